import type { FastifyBaseLogger } from 'fastify';
import { ZodError } from 'zod';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { newId, nowIso } from '../lib/ids.ts';
import { MAX_ATTEMPTS, retryDelayMs, type JobCounts, type JobDefinition, type JobInfo, type JobQueue, type JobState } from './job-queue.ts';

const POLL_MS = 250;

/**
 * The default engine: jobs are rows in the app's own database and run inside the server process.
 * Being one process, any job found 'active' at start was cut off by a crash or kill, and runs again.
 */
export function createEmbeddedQueue(db: Db, log: FastifyBaseLogger, concurrency: number): JobQueue {
  const definitions = new Map<string, JobDefinition<any>>();
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let wake: (() => void) | undefined;

  /** Takes the oldest due job with one conditional update, so two loops never take the same job. */
  async function claim(): Promise<{ id: string; name: string; payload: string; attempts: number } | undefined> {
    const now = nowIso();
    const next = await db
      .selectFrom('jobs')
      .select(['id'])
      .where('state', 'in', ['waiting', 'delayed'])
      .where('run_at', '<=', now)
      .orderBy('run_at')
      .limit(1)
      .executeTakeFirst();
    if (!next) return undefined;
    return db
      .updateTable('jobs')
      .set({ state: 'active', attempts: sql`attempts + 1`, updated_at: now })
      .where('id', '=', next.id)
      .where('state', 'in', ['waiting', 'delayed'])
      .returning(['id', 'name', 'payload', 'attempts'])
      .executeTakeFirst();
  }

  async function run(job: { id: string; name: string; payload: string; attempts: number }): Promise<void> {
    const definition = definitions.get(job.name);
    try {
      if (!definition) throw new Error(`No handler for job ${job.name}`);
      const payload = definition.payload.parse(JSON.parse(job.payload));
      await definition.handle(payload, {
        id: job.id,
        attempt: job.attempts,
        updateProgress: async (percent) => {
          await db.updateTable('jobs').set({ progress: Math.round(percent), updated_at: nowIso() }).where('id', '=', job.id).execute();
        },
      });
      await db.updateTable('jobs').set({ state: 'completed', progress: 100, failed_reason: null, updated_at: nowIso() }).where('id', '=', job.id).execute();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // A payload that does not parse or an unknown job name will not get better by waiting.
      const retry = job.attempts < MAX_ATTEMPTS && definition !== undefined && !(error instanceof ZodError);
      log.error({ err: error, jobId: job.id, job: job.name, attempt: job.attempts, retry }, 'job failed');
      await db
        .updateTable('jobs')
        .set({
          state: retry ? 'delayed' : 'failed',
          run_at: new Date(Date.now() + retryDelayMs(job.attempts)).toISOString(),
          failed_reason: reason.slice(0, 1000),
          updated_at: nowIso(),
        })
        .where('id', '=', job.id)
        .execute();
    }
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      let claimed = false;
      if (running.size < concurrency) {
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
    async enqueue(name, payload, options = {}) {
      const id = options.jobId ?? newId();
      const now = nowIso();
      await db
        .insertInto('jobs')
        .values({ id, name, payload: JSON.stringify(payload), state: 'waiting', progress: 0, attempts: 0, run_at: now, failed_reason: null, created_at: now, updated_at: now })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      wake?.();
      return id;
    },
    async getJob(id): Promise<JobInfo | null> {
      const row = await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) return null;
      return { id: row.id, name: row.name, state: row.state as JobState, progress: row.progress, attempts: row.attempts, failedReason: row.failed_reason };
    },
    async counts(): Promise<JobCounts> {
      const rows = await db.selectFrom('jobs').select(['state', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('state').execute();
      const counts: JobCounts = { waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0, total: 0 };
      for (const row of rows) {
        counts[row.state as JobState] = Number(row.n);
        counts.total += Number(row.n);
      }
      return counts;
    },
    async startWorkers() {
      if (!stopped) return;
      // Jobs a previous process left active were cut off: run them again.
      await db.updateTable('jobs').set({ state: 'waiting', updated_at: nowIso() }).where('state', '=', 'active').execute();
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
