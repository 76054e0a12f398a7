import { noPayload, type JobDefinition } from '../../queue/job-queue.ts';
import type { OrderService } from './service.ts';
import type { RefundService } from './refunds.ts';

export const ORDER_COMPLETION_JOB = 'order-completion';

/** Scheduled: asks the provider about orders it makes later, and sends again orders whose placing process died. */
export const orderCompletionJob = (orders: OrderService): JobDefinition<Record<string, never>> => ({
  name: ORDER_COMPLETION_JOB,
  payload: noPayload,
  handle: async () => void (await orders.completeWaiting()),
});

export const LABEL_REFUND_JOB = 'label-refunds';

/** Scheduled: asks the label provider about requested refunds that are due (a sandbox refund's delay, an upstream's answer). */
export const labelRefundJob = (refunds: RefundService): JobDefinition<Record<string, never>> => ({
  name: LABEL_REFUND_JOB,
  payload: noPayload,
  handle: async () => void (await refunds.completeRefunds()),
});
