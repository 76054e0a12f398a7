import { noPayload, type JobDefinition } from '../../queue/job-queue.ts';
import type { OrderService } from './service.ts';

export const ORDER_COMPLETION_JOB = 'order-completion';

/** Scheduled: asks the provider about orders it makes later, and sends again orders whose placing process died. */
export const orderCompletionJob = (orders: OrderService): JobDefinition<Record<string, never>> => ({
  name: ORDER_COMPLETION_JOB,
  payload: noPayload,
  handle: async () => void (await orders.completeWaiting()),
});
