import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { createEmbeddedQueue } from './embedded-queue.ts';
import type { JobQueue } from './job-queue.ts';

/** The configured engine: BullMQ on Redis when REDIS_URL is set, otherwise the embedded queue in the database. */
export async function createJobQueue(config: Config, db: Db, log: FastifyBaseLogger): Promise<JobQueue> {
  const tuning = { concurrency: config.QUEUE_CONCURRENCY, lockMs: config.QUEUE_STALLED_INTERVAL_MS, retryBaseMs: config.QUEUE_RETRY_DELAY_MS };
  // BullMQ is loaded only when used (about 25 MB a process).
  if (config.REDIS_URL)
    return (await import('./bullmq-queue.ts')).createBullmqQueue({ ...tuning, redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX }, log);
  return createEmbeddedQueue(db, log, tuning);
}
