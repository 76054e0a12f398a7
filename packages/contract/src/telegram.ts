import { z } from 'zod';

// ---- Telegram order messages (Account Setting and the Orders card, signed-in user) ------------

/** The kinds of message a linked chat gets, each turned on or off in Account Setting (all on by default). */
export const TELEGRAM_TOPICS = ['orderCompleted', 'orderCancelled', 'bulkCompleted', 'fedexOrders', 'deposits'] as const;
export type TelegramTopic = (typeof TELEGRAM_TOPICS)[number];
export const TELEGRAM_TOPIC_LABELS: Record<TelegramTopic, string> = {
  orderCompleted: 'A label order completed',
  orderCancelled: 'An order cancelled and refunded',
  bulkCompleted: 'A bulk (CSV) order done',
  fedexOrders: 'A FedEx hand-made order completed or cancelled',
  deposits: 'A deposit credited',
};

/** How long a deep link's one-time token works. */
export const TELEGRAM_LINK_TTL_MINUTES = 15;
export const TELEGRAM_LINK_TEXT = 'Get order updates on Telegram';
export const TELEGRAM_NOT_CONFIGURED = 'Telegram messages are not set up on this shop';
export const TELEGRAM_SETTINGS = 'Telegram';
export const TELEGRAM_SAVED = 'Telegram messages saved';
export const TELEGRAM_UNLINKED = 'Telegram unlinked';

export const telegramTopicsSchema = z.object({
  orderCompleted: z.boolean(),
  orderCancelled: z.boolean(),
  bulkCompleted: z.boolean(),
  fedexOrders: z.boolean(),
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
