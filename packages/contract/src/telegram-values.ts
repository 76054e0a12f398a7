// Telegram message topics and texts, without zod (see index.ts).

// ---- Telegram order messages (Account Setting and the Orders card, signed-in user) ------------

/** The kinds of message a linked chat gets, each turned on or off in Account Setting (all on by default). */
export const TELEGRAM_TOPICS = [
  'orderCompleted',
  'orderDelivered',
  'orderCancelled',
  'labelRefunds',
  'bulkCompleted',
  'fedexOrders',
  'pickups',
  'deposits',
] as const;
export type TelegramTopic = (typeof TELEGRAM_TOPICS)[number];
export const TELEGRAM_TOPIC_LABELS: Record<TelegramTopic, string> = {
  orderCompleted: 'A label order completed',
  orderDelivered: 'A label order delivered (tracking)',
  orderCancelled: 'An order cancelled and refunded',
  labelRefunds: 'A label refund approved or rejected',
  bulkCompleted: 'A bulk (CSV) order done',
  fedexOrders: 'A FedEx hand-made order completed or cancelled',
  pickups: 'A carrier pickup booked or cancelled',
  deposits: 'A deposit credited',
};

/** How long a deep link's one-time token works. */
export const TELEGRAM_LINK_TTL_MINUTES = 15;
export const TELEGRAM_LINK_TEXT = 'Get order updates on Telegram';
export const TELEGRAM_NOT_CONFIGURED = 'Telegram messages are not set up on this shop';
export const TELEGRAM_SETTINGS = 'Telegram';
export const TELEGRAM_SAVED = 'Telegram messages saved';
export const TELEGRAM_UNLINKED = 'Telegram unlinked';
