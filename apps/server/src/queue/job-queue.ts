import { z } from 'zod';

export type JobState = 'waiting' | 'active' | 'completed' | 'failed' | 'delayed';

export type JobCounts = Record<JobState, number> & { total: number };

export type JobInfo = { id: string; name: string; state: JobState | 'unknown'; progress: number; attempts: number; failedReason: string | null };

export type JobContext = {
  id: string;
  /** 1 on the first run, 2 on the first retry, ... */
  attempt: number;
  /** Percent done, 0-100. */
  updateProgress(percent: number): Promise<void>;
};

/** The payload of a scheduled job: nothing. */
export const noPayload = z.object({}).strict() as z.ZodType<Record<string, never>>;

export type JobDefinition<T> = {
  name: string;
  payload: z.ZodType<T>;
  handle(payload: T, job: JobContext): Promise<void>;
  /** How often and when a job that throws runs again; default MAX_ATTEMPTS runs backing off from QUEUE_RETRY_DELAY_MS. */
  retry?: RetryPolicy;
};

export type RetryPolicy = {
  /** Runs in all, the first included. */
  attempts: number;
  /** Delay before run n + 1 after run n (1-based) failed. */
  delayMs(attempt: number): number;
};

export type EnqueueOptions = {
  /** A stable id makes enqueueing idempotent: the same id is queued once while it waits, runs or has completed; a failed one is queued again. */
  jobId?: string;
  /** With jobId: a job that already completed runs again too (its work was not done, e.g. a bulk order still processing). */
  again?: boolean;
};

/**
 * Durable background jobs. A job has a name, a zod payload schema and a thin handler; the engine
 * (embedded in the database, or BullMQ on Redis) retries a job that throws or whose worker died.
 * Handlers must therefore be safe to run again.
 */
export interface JobQueue {
  readonly engine: 'embedded' | 'bullmq';
  define<T>(definition: JobDefinition<T>): void;
  enqueue<T>(name: string, payload: T, options?: EnqueueOptions): Promise<string>;
  /**
   * Runs the job `name` (empty payload) every `everyMs` where workers run, once per interval however
   * many processes schedule it. Scheduled runs are not kept once done and are not in the counts.
   */
  schedule(name: string, everyMs: number): Promise<void>;
  getJob(id: string): Promise<JobInfo | null>;
  counts(): Promise<JobCounts>;
  /** Starts taking jobs in this process. */
  startWorkers(): Promise<void>;
  /** Stops taking jobs and waits for running ones to finish. */
  close(): Promise<void>;
}

/**
 * Resolves once the queue is drained: no job waiting, running or due for a retry (scheduled runs aside), as
 * its counts say. What a test waits for before it asserts that nothing more runs; it throws after `timeoutMs`.
 */
export async function drained(queue: Pick<JobQueue, 'counts'>, timeoutMs = 15_000): Promise<void> {
  for (const until = Date.now() + timeoutMs; ;) {
    const { waiting, active, delayed } = await queue.counts();
    if (waiting + active + delayed === 0) return;
    if (Date.now() > until) throw new Error(`the queue is not drained after ${timeoutMs} ms: ${waiting} waiting, ${active} active, ${delayed} delayed`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const MAX_ATTEMPTS = 5;
/** Delay before retry n (1-based): base, 2 x base, 4 x base, ... capped at 1 minute (base: QUEUE_RETRY_DELAY_MS). */
export const retryDelayMs = (attempt: number, baseMs = 1000) => Math.min(60_000, baseMs * 2 ** (attempt - 1));

/** The policy of a job that names none. */
export const defaultRetry = (baseMs: number): RetryPolicy => ({ attempts: MAX_ATTEMPTS, delayMs: (attempt) => retryDelayMs(attempt, baseMs) });

/** Thrown by a handler whose outside service said when to come back (e.g. Telegram's 429 retry_after): the retry waits that long instead of the policy's delay. */
export class RetryLaterError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** How long both engines wait before the next run after run `attempt` failed with `error`. */
export const delayAfterFailure = (policy: RetryPolicy, attempt: number, error: unknown): number =>
  error instanceof RetryLaterError ? error.retryAfterMs : policy.delayMs(attempt);

/** How an engine runs jobs: at most `concurrency` at once; a running job is held `lockMs` between renewals; retries back off from `retryBaseMs`. */
export type QueueTuning = { concurrency: number; lockMs: number; retryBaseMs: number };
