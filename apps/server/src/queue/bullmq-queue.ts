import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { ZodError } from 'zod';
import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
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
import { createRedis } from '../lib/redis.ts';

const STATES: JobState[] = ['waiting', 'active', 'completed', 'failed', 'delayed'];

export type BullmqOptions = QueueTuning & {
  redisUrl: string;
  /** Redis key prefix; tests give each run its own. */
  prefix?: string;
  queueName?: string;
};

/** BullMQ on Redis: the web process enqueues, and any number of worker processes (npm run worker) run jobs. */
export function createBullmqQueue(options: BullmqOptions, log: FastifyBaseLogger): JobQueue {
  const queueName = options.queueName ?? 'portal-jobs';
  const connection = createRedis(options.redisUrl, { name: 'job queue', log, maxRetriesPerRequest: null });
  const queue = new Queue(queueName, { connection, prefix: options.prefix });
  const definitions = new Map<string, JobDefinition<any>>();
  let worker: Worker | undefined;
  let workerConnection: Redis | undefined;
  const policyOf = (name: string) => definitions.get(name)?.retry ?? defaultRetry(options.retryBaseMs);

  async function process(job: Job): Promise<void> {
    const definition = definitions.get(job.name);
    // A payload that does not parse or an unknown job name will not get better by waiting.
    if (!definition) throw new UnrecoverableError(`No handler for job ${job.name}`);
    const parsed = definition.payload.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(new ZodError(parsed.error.issues).message);
    await withLogContext({ jobId: job.id }, () =>
      definition.handle(parsed.data, {
        id: job.id!,
        attempt: job.attemptsMade + 1,
        updateProgress: (percent) => job.updateProgress(Math.round(percent)),
      }),
    );
  }

  return {
    engine: 'bullmq',
    define(definition) {
      definitions.set(definition.name, definition);
    },
    async enqueue(name, payload, enqueueOptions = {}) {
      // BullMQ keeps a finished job's id: a failed one (or, asked to run again, a completed one) runs again from its first attempt.
      const existing = enqueueOptions.jobId ? await queue.getJob(enqueueOptions.jobId) : undefined;
      const state = await existing?.getState();
      if (existing && (state === 'failed' || (state === 'completed' && enqueueOptions.again))) {
        await existing.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
        return existing.id!;
      }
      const job = await queue.add(name, payload, {
        jobId: enqueueOptions.jobId,
        // The retry policy is the job definition's (every process defines every job); the worker's backoffStrategy applies it.
        attempts: policyOf(name).attempts,
        backoff: { type: 'policy' },
        removeOnComplete: { age: 7 * 24 * 3600 },
        removeOnFail: { age: 30 * 24 * 3600 },
      });
      return job.id!;
    },
    async schedule(name, everyMs) {
      await queue.upsertJobScheduler(name, { every: everyMs }, { name, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } });
    },
    async getJob(id): Promise<JobInfo | null> {
      const job = await queue.getJob(id);
      if (!job) return null;
      const state = await job.getState();
      return {
        id,
        name: job.name,
        state: state === 'prioritized' || state === 'waiting-children' ? 'waiting' : (state as JobState | 'unknown'),
        progress: typeof job.progress === 'number' ? job.progress : 0,
        attempts: job.attemptsMade,
        failedReason: job.failedReason ?? null,
      };
    },
    async counts(): Promise<JobCounts> {
      const raw = await queue.getJobCounts(...STATES, 'prioritized', 'waiting-children');
      const counts: JobCounts = { waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0, total: 0 };
      for (const state of STATES) counts[state] = raw[state] ?? 0;
      counts.waiting += (raw.prioritized ?? 0) + (raw['waiting-children'] ?? 0);
      // Each schedule keeps its next run as a delayed job: those are not work anyone queued.
      counts.delayed = Math.max(0, counts.delayed - (await queue.getJobSchedulersCount()));
      counts.total = STATES.reduce((sum, state) => sum + counts[state], 0);
      return counts;
    },
    async startWorkers() {
      if (worker) return;
      workerConnection = createRedis(options.redisUrl, { name: 'job queue workers', log, maxRetriesPerRequest: null });
      worker = new Worker(queueName, process, {
        connection: workerConnection,
        prefix: options.prefix,
        concurrency: options.concurrency,
        stalledInterval: options.lockMs,
        lockDuration: options.lockMs,
        // A busy worker may miss a lock renewal; its job is taken again rather than failed (rows are claimed, so nothing is made twice).
        maxStalledCount: 3,
        settings: { backoffStrategy: (attemptsMade, _type, error, job) => delayAfterFailure(policyOf(job?.name ?? ''), attemptsMade, error) },
      });
      worker.on('failed', (job, error) => log.error({ err: error, jobId: job?.id, job: job?.name }, 'job failed'));
      worker.on('error', (error) => log.error({ err: error }, 'worker error'));
    },
    async close() {
      await worker?.close();
      await queue.close();
      workerConnection?.disconnect();
      connection.disconnect();
    },
  };
}
