import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { createBullmqQueue } from './bullmq-queue.ts';
import { createEmbeddedQueue } from './embedded-queue.ts';
import type { JobQueue } from './job-queue.ts';

/** The configured engine: BullMQ on Redis when REDIS_URL is set, otherwise the embedded queue in the database. */
export function createJobQueue(config: Config, db: Db, log: FastifyBaseLogger): JobQueue {
  const tuning = { concurrency: config.QUEUE_CONCURRENCY, lockMs: config.QUEUE_STALLED_INTERVAL_MS, retryBaseMs: config.QUEUE_RETRY_DELAY_MS };
  if (config.REDIS_URL) return createBullmqQueue({ ...tuning, redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX }, log);
  return createEmbeddedQueue(db, log, tuning);
}
