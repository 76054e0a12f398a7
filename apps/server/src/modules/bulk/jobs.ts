import { z } from 'zod';
import { noPayload, type JobDefinition } from '../../queue/job-queue.ts';
import { BULK_ORDER_JOB, BULK_SWEEP_JOB, type BulkService } from './service.ts';

const bulkOrderPayload = z.object({ bulkOrderId: z.string().min(1) });

/** Makes a paid bulk order's labels and files (the service does the work; this is its entry point). */
export const bulkOrderJob = (bulk: BulkService): JobDefinition<z.infer<typeof bulkOrderPayload>> => ({
  name: BULK_ORDER_JOB,
  payload: bulkOrderPayload,
  handle: ({ bulkOrderId }, job) => bulk.runJob(bulkOrderId, job),
});

/** Scheduled: queues again the bulk orders that stopped moving, so paid work never waits for a restart. */
export const bulkSweepJob = (bulk: BulkService): JobDefinition<Record<string, never>> => ({
  name: BULK_SWEEP_JOB,
  payload: noPayload,
  handle: async () => void (await bulk.resumeStalled()),
});
