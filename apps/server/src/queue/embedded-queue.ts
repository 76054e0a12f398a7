import type { FastifyBaseLogger } from 'fastify';
import { ZodError } from 'zod';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { isoIn, newId, nowIso } from '../lib/ids.ts';
import {
  defaultRetry,
  delayAfterFailure,
  type JobCounts,
  type JobDefinition,
  type JobInfo,
  type JobQueue,
  type JobState,
  type QueueTuning,
} from './job-queue.ts';
import { withLogContext } from '../lib/log-context.ts';

const POLL_MS = 250;
/** How often the state of a failed job is written again while the database does not take it. */
const RETRY_WRITE_MS = 1000;
/** Finished jobs are kept this long for status calls, then deleted. */
const KEEP_FINISHED_MS = 7 * 24 * 3600_000;

type ClaimedJob = { id: string; name: string; payload: string; attempts: number };

/**
 * The default engine: jobs are rows in the app's own database, run by the processes that start
 * workers. A running job holds a lease (locked_until) that its worker renews; a job still 'active'
 * past its lease lost its worker (a crash or kill) and is taken again by any live worker.
 */
export function createEmbeddedQueue(db: Db, log: FastifyBaseLogger, tuning: QueueTuning): JobQueue {
  const definitions = new Map<string, JobDefinition<any>>();
  const schedules = new Map<string, number>();
  const queuedSlots = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let wake: (() => void) | undefined;
  let lastPrune = 0;

  /** Takes the oldest due job, or one whose worker died, with one conditional update, so two workers never take the same job. */
  async function claim(): Promise<ClaimedJob | undefined> {
    const now = nowIso();
    const next = await db
      .selectFrom('jobs')
      .select(['id', 'state', 'locked_until'])
      .where((eb) =>
        eb.or([
          eb.and([eb('state', 'in', ['waiting', 'delayed']), eb('run_at', '<=', now)]),
          eb.and([eb('state', '=', 'active'), eb('locked_until', '<', now)]),
        ]),
      )
      .orderBy('run_at')
      .limit(1)
      .executeTakeFirst();
    if (!next) return undefined;
    return db
      .updateTable('jobs')
      .set({ state: 'active', attempts: sql`attempts + 1`, locked_until: isoIn(tuning.lockMs), updated_at: now })
      .where('id', '=', next.id)
      .where('state', '=', next.state)
      .where((eb) => (next.locked_until === null ? eb('locked_until', 'is', null) : eb('locked_until', '=', next.locked_until)))
      .returning(['id', 'name', 'payload', 'attempts'])
      .executeTakeFirst();
  }

  async function run(job: ClaimedJob): Promise<void> {
    const definition = definitions.get(job.name);
    // Renewed while the job runs; a worker that dies stops renewing, and the job is taken again once the lease is over.
    const renew = setInterval(
      () => {
        db.updateTable('jobs')
          .set({ locked_until: isoIn(tuning.lockMs) })
          .where('id', '=', job.id)
          .where('state', '=', 'active')
          .execute()
          .catch(() => {});
      },
      Math.max(50, Math.floor(tuning.lockMs / 3)),
    );
    try {
      if (!definition) throw new Error(`No handler for job ${job.name}`);
      const payload = definition.payload.parse(JSON.parse(job.payload));
      await withLogContext({ jobId: job.id }, () =>
        definition.handle(payload, {
          id: job.id,
          attempt: job.attempts,
          updateProgress: async (percent) => {
            await db
              .updateTable('jobs')
              .set({ progress: Math.round(percent), updated_at: nowIso() })
              .where('id', '=', job.id)
              .execute();
          },
        }),
      );
      await db
        .updateTable('jobs')
        .set({ state: 'completed', progress: 100, failed_reason: null, locked_until: null, updated_at: nowIso() })
        .where('id', '=', job.id)
        .execute();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // A payload that does not parse or an unknown job name will not get better by waiting.
      const policy = definition?.retry ?? defaultRetry(tuning.retryBaseMs);
      const retry = job.attempts < policy.attempts && definition !== undefined && !(error instanceof ZodError);
      log.error({ err: error, jobId: job.id, job: job.name, attempt: job.attempts, retry }, 'job failed');
      const failure = () =>
        db
          .updateTable('jobs')
          .set({
            state: retry ? 'delayed' : 'failed',
            run_at: isoIn(delayAfterFailure(policy, job.attempts, error)),
            failed_reason: reason.slice(0, 1000),
            locked_until: null,
            updated_at: nowIso(),
          })
          .where('id', '=', job.id)
          .execute();
      // The jobs are in the database: when it is away (a restart) this write fails too. It is tried again every
      // RETRY_WRITE_MS until the job's lease ends (or the queue closes); then the job is taken again as one whose
      // worker died. Thrown, it was an unhandled rejection that ended the process.
      for (const until = Date.now() + tuning.lockMs; ;) {
        const failed = await failure().then(
          () => null,
          (writeError: unknown) => writeError,
        );
        if (failed === null) break;
        if (stopped || Date.now() + RETRY_WRITE_MS > until) {
          log.error({ err: failed, jobId: job.id }, 'the failed job could not be set to run again; it runs again once its lease ends');
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_WRITE_MS));
      }
    } finally {
      clearInterval(renew);
    }
  }

  /** Queues each schedule's run of the current interval; its id names the interval, so every process queues the same one. */
  async function queueScheduled(): Promise<void> {
    const now = Date.now();
    for (const [name, everyMs] of schedules) {
      // Written once per interval by this process, not on every turn of the loop.
      const slot = Math.floor(now / everyMs);
      if (queuedSlots.get(name) === slot) continue;
      await enqueue(name, {}, `schedule:${name}:${slot}`);
      queuedSlots.set(name, slot);
    }
    if (now - lastPrune > 10_000) {
      lastPrune = now;
      await db
        .deleteFrom('jobs')
        .where('state', 'in', ['completed', 'failed'])
        .where('updated_at', '<', new Date(now - KEEP_FINISHED_MS).toISOString())
        .execute();
      // A scheduled run's row is what keeps its interval from running twice; once the interval is long past it can go.
      for (const [name, everyMs] of schedules) {
        await db
          .deleteFrom('jobs')
          .where('id', 'like', `schedule:${name}:%`)
          .where('state', '=', 'completed')
          .where('updated_at', '<', new Date(now - 2 * everyMs).toISOString())
          .execute();
      }
    }
  }

  async function enqueue(name: string, payload: unknown, id: string, again = false): Promise<string> {
    const now = nowIso();
    await db
      .insertInto('jobs')
      .values({
        id,
        name,
        payload: JSON.stringify(payload),
        state: 'waiting',
        progress: 0,
        attempts: 0,
        run_at: now,
        failed_reason: null,
        created_at: now,
        updated_at: now,
        locked_until: null,
      })
      // The same id is queued once, unless it failed (or, asked to run again, completed): then it runs again from its first attempt.
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet({ state: 'waiting', progress: 0, attempts: 0, run_at: now, failed_reason: null, updated_at: now, locked_until: null })
          .where('jobs.state', 'in', again ? ['failed', 'completed'] : ['failed']),
      )
      .execute();
    wake?.();
    return id;
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      let claimed = false;
      await queueScheduled().catch((error) => void log.error({ err: error }, 'scheduling jobs failed'));
      if (running.size < tuning.concurrency) {
        const job = await claim().catch((error) => void log.error({ err: error }, 'job claim failed'));
        if (job) {
          claimed = true;
          const task = run(job).finally(() => {
            running.delete(task);
            wake?.();
          });
          running.add(task);
        }
      }
      if (!claimed) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, POLL_MS);
        });
        clearTimeout(timer);
      }
    }
  }

  let loopDone: Promise<void> | undefined;
  return {
    engine: 'embedded',
    define(definition) {
      definitions.set(definition.name, definition);
    },
    enqueue: (name, payload, options = {}) => enqueue(name, payload, options.jobId ?? newId(), options.again),
    async schedule(name, everyMs) {
      schedules.set(name, everyMs);
    },
    async getJob(id): Promise<JobInfo | null> {
      const row = await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) return null;
      return { id: row.id, name: row.name, state: row.state as JobState, progress: row.progress, attempts: row.attempts, failedReason: row.failed_reason };
    },
    async counts(): Promise<JobCounts> {
      const rows = await db
        .selectFrom('jobs')
        .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
        .where('id', 'not like', 'schedule:%')
        .groupBy('state')
        .execute();
      const counts: JobCounts = { waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0, total: 0 };
      for (const row of rows) {
        counts[row.state as JobState] = Number(row.n);
        counts.total += Number(row.n);
      }
      return counts;
    },
    async startWorkers() {
      if (!stopped) return;
      stopped = false;
      loopDone = loop();
    },
    async close() {
      stopped = true;
      wake?.();
      await loopDone;
      await Promise.allSettled([...running]);
    },
  };
}
