import { z } from 'zod';
import type { TelegramTopic } from './telegram-values.ts';

export const telegramTopicsSchema = z.object({
  orderCompleted: z.boolean(),
  orderDelivered: z.boolean(),
  orderCancelled: z.boolean(),
  labelRefunds: z.boolean(),
  bulkCompleted: z.boolean(),
  fedexOrders: z.boolean(),
  /** Added later: a client that does not send it keeps it on. */
  pickups: z.boolean().default(true),
  deposits: z.boolean(),
}) satisfies z.ZodType<Record<TelegramTopic, boolean>>;
export type TelegramTopics = z.infer<typeof telegramTopicsSchema>;

/** GET, PUT and DELETE /api/v1/account/telegram: whether a chat is linked, and which messages it gets. */
export const telegramSettingsResponse = z.object({
  message: z.string(),
  /** The bot's username. */
  bot: z.string(),
  linked: z.boolean(),
  /** The Telegram username of the linked chat, when it has one. */
  chatUsername: z.string().nullable(),
  linkedAt: z.string().nullable(),
  topics: telegramTopicsSchema,
});
export type TelegramSettingsResponse = z.infer<typeof telegramSettingsResponse>;

/** PUT /api/v1/account/telegram */
export const telegramTopicsBody = z.object({ topics: telegramTopicsSchema });
export type TelegramTopicsBody = z.infer<typeof telegramTopicsBody>;

/** POST /api/v1/account/telegram/link: a deep link `https://t.me/<bot>?start=<one-time token>`, valid TELEGRAM_LINK_TTL_MINUTES. */
export const telegramLinkResponse = z.object({ url: z.string(), expiresAt: z.string(), linked: z.boolean() });
export type TelegramLinkResponse = z.infer<typeof telegramLinkResponse>;
