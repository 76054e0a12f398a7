import { z } from 'zod';
import { noPayload, type JobDefinition } from '../../queue/job-queue.ts';
import { TELEGRAM_MESSAGE_JOB, TELEGRAM_WEBHOOK_JOB, type TelegramService } from './service.ts';

const telegramMessagePayload = z.object({ messageId: z.string().min(1) });

/** Sends one Telegram message (the service does the work; this is its entry point), with the Telegram retry policy. */
export const telegramMessageJob = (telegram: TelegramService): JobDefinition<z.infer<typeof telegramMessagePayload>> => ({
  name: TELEGRAM_MESSAGE_JOB,
  payload: telegramMessagePayload,
  handle: ({ messageId }, job) => telegram.deliver(messageId, job),
  retry: telegram.retry,
});

/** Webhook mode: registers the webhook URL and its secret with Telegram, retried until Telegram takes it. */
export const telegramWebhookJob = (telegram: TelegramService): JobDefinition<Record<string, never>> => ({
  name: TELEGRAM_WEBHOOK_JOB,
  payload: noPayload,
  handle: () => telegram.setWebhook(),
});
