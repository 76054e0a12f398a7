import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { bulkOrderJob } from '../modules/bulk/jobs.ts';
import type { BulkService } from '../modules/bulk/service.ts';
import { createBullmqQueue } from './bullmq-queue.ts';
import { createEmbeddedQueue } from './embedded-queue.ts';
import type { JobQueue } from './job-queue.ts';

/** The configured engine: BullMQ on Redis when REDIS_URL is set, otherwise the embedded queue in the database. */
export function createJobQueue(config: Config, db: Db, log: FastifyBaseLogger): JobQueue {
  if (config.REDIS_URL) {
    return createBullmqQueue(
      { redisUrl: config.REDIS_URL, concurrency: config.QUEUE_CONCURRENCY, prefix: config.QUEUE_PREFIX, stalledIntervalMs: config.QUEUE_STALLED_INTERVAL_MS },
      log,
    );
  }
  return createEmbeddedQueue(db, log, config.QUEUE_CONCURRENCY);
}

/** Every job the app runs: the web process and `npm run worker` define the same list. */
export function defineJobs(queue: JobQueue, services: { bulk: BulkService }): void {
  queue.define(bulkOrderJob(services.bulk));
}

/** Starts taking jobs in this process, then queues again any bulk order a dead process left behind. */
export async function startJobWorkers(queue: JobQueue, services: { bulk: BulkService }, log: FastifyBaseLogger): Promise<void> {
  await queue.startWorkers();
  await services.bulk.resumeStalled().catch((error) => log.error({ err: error }, 'stalled bulk order sweep failed'));
}
