import { z } from 'zod';
import type { JobDefinition } from '../../queue/job-queue.ts';
import { WEBHOOK_DELIVERY_JOB, type WebhookService } from './webhooks.ts';

const webhookDeliveryPayload = z.object({ deliveryId: z.string().min(1) });

/** Delivers one webhook event (the service does the work; this is its entry point), with the webhook retry policy. */
export const webhookDeliveryJob = (webhooks: WebhookService): JobDefinition<z.infer<typeof webhookDeliveryPayload>> => ({
  name: WEBHOOK_DELIVERY_JOB,
  payload: webhookDeliveryPayload,
  handle: ({ deliveryId }, job) => webhooks.deliver(deliveryId, job),
  retry: webhooks.retry,
});
