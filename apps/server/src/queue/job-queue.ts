import type { z } from 'zod';

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

export type JobDefinition<T> = {
  name: string;
  payload: z.ZodType<T>;
  handle(payload: T, job: JobContext): Promise<void>;
};

export type EnqueueOptions = {
  /** A stable id makes enqueueing idempotent: the same id is queued once. */
  jobId?: string;
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
  getJob(id: string): Promise<JobInfo | null>;
  counts(): Promise<JobCounts>;
  /** Starts taking jobs in this process. */
  startWorkers(): Promise<void>;
  /** Stops taking jobs and waits for running ones to finish. */
  close(): Promise<void>;
}

export const MAX_ATTEMPTS = 5;
/** Delay before retry n (1-based): 1 s, 2 s, 4 s, ... capped at 1 minute. */
export const retryDelayMs = (attempt: number) => Math.min(60_000, 1000 * 2 ** (attempt - 1));
