import { z } from 'zod';
import type { JobDefinition } from '../../queue/job-queue.ts';
import type { BulkService } from './service.ts';

export const BULK_ORDER_JOB = 'bulk-order';

const bulkOrderPayload = z.object({ bulkOrderId: z.string().min(1) });

/** Makes a paid bulk order's labels and files (the service does the work; this is its entry point). */
export const bulkOrderJob = (bulk: BulkService): JobDefinition<z.infer<typeof bulkOrderPayload>> => ({
  name: BULK_ORDER_JOB,
  payload: bulkOrderPayload,
  handle: ({ bulkOrderId }, job) => bulk.runJob(bulkOrderId, job),
});
