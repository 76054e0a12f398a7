import { z } from 'zod';
import { noPayload, type JobDefinition } from '../../queue/job-queue.ts';
import type { OrderService } from './service.ts';
import type { RefundService } from './refunds.ts';
import type { ScanFormService } from './scan-forms.ts';
import type { PickupService } from './pickups.ts';

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

export const AUTO_VOID_JOB = 'auto-void';

/** Scheduled: asks the refund of unused labels old enough (AUTO_VOID_DAYS_USPS, AUTO_VOID_DAYS_UPS_FEDEX). */
export const autoVoidJob = (refunds: RefundService): JobDefinition<Record<string, never>> => ({
  name: AUTO_VOID_JOB,
  payload: noPayload,
  handle: async () => void (await refunds.autoVoid()),
});

export const SCAN_FORM_JOB = 'scan-form';
export const SCAN_FORM_SWEEP_JOB = 'scan-form-sweep';

/** Asks the upstream for one form, as soon as it is asked for. */
export const scanFormJob = (forms: ScanFormService): JobDefinition<{ formId: string }> => ({
  name: SCAN_FORM_JOB,
  payload: z.object({ formId: z.string().min(1).max(64) }).strict(),
  handle: async ({ formId }) => forms.advance(formId),
});

/** Scheduled: asks again about forms still being made, or whose process died or could not reach the upstream. */
export const scanFormSweepJob = (forms: ScanFormService): JobDefinition<Record<string, never>> => ({
  name: SCAN_FORM_SWEEP_JOB,
  payload: noPayload,
  handle: async () => void (await forms.sweep()),
});

export const PICKUP_SWEEP_JOB = 'pickup-sweep';

/** Scheduled: asks again about pickups being booked or cancelled (an upstream away, a lost answer, a process that died). */
export const pickupSweepJob = (pickups: PickupService): JobDefinition<Record<string, never>> => ({
  name: PICKUP_SWEEP_JOB,
  payload: noPayload,
  handle: async () => void (await pickups.sweep()),
});
