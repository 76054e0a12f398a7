import type { FastifyBaseLogger } from 'fastify';
import type { Api, GrammyError } from 'grammy';
import {
  TELEGRAM_LINK_TTL_MINUTES,
  TELEGRAM_NOT_CONFIGURED,
  TELEGRAM_SAVED,
  TELEGRAM_SETTINGS,
  TELEGRAM_TOPICS,
  TELEGRAM_UNLINKED,
  type TelegramLinkResponse,
  type TelegramSettingsResponse,
  type TelegramTopic,
  type TelegramTopics,
} from '@portal/contract';
import type { Db } from '../../db/database.ts';
import { notFound } from '../../lib/http-errors.ts';
import { isoIn, newId, nowIso, randomToken, sha256Hex } from '../../lib/ids.ts';
import type { ShopEvent } from '../../lib/shop-events.ts';
import { RetryLaterError, type JobContext, type JobQueue, type RetryPolicy } from '../../queue/job-queue.ts';
import type { BulkService } from '../bulk/service.ts';
import type { FedexService } from '../fedex/service.ts';
import type { OrderService } from '../orders/service.ts';
import * as repo from './repository.ts';
import { botTexts, eventTexts } from './texts.ts';

export const TELEGRAM_MESSAGE_JOB = 'telegram-message';
export const TELEGRAM_WEBHOOK_JOB = 'telegram-webhook';
/** Tries of one message: the first and 7 retries, base, 2 x base, 4 x base... apart (QUEUE_RETRY_DELAY_MS, at most 10 minutes); a 429 waits its retry_after instead. */
export const TELEGRAM_MAX_ATTEMPTS = 8;
export const telegramRetryPolicy = (baseMs: number): RetryPolicy => ({ attempts: TELEGRAM_MAX_ATTEMPTS, delayMs: (attempt) => Math.min(600_000, baseMs * 2 ** (attempt - 1)) });

/** Which Account Setting choice each event falls under. */
const TOPIC_OF: Record<ShopEvent['type'], TelegramTopic> = {
  'order.completed': 'orderCompleted',
  'order.cancelled': 'orderCancelled',
  'bulk.completed': 'bulkCompleted',
  'fedex.completed': 'fedexOrders',
  'fedex.cancelled': 'fedexOrders',
  'deposit.credited': 'deposits',
};

/** The chat a command came from: its id and the sender's Telegram username. */
export type TelegramChat = { id: number; username?: string };

const mutedOf = (row: repo.TelegramAccountRow | undefined): TelegramTopic[] => {
  try {
    return (JSON.parse(row?.muted ?? '[]') as string[]).filter((t): t is TelegramTopic => (TELEGRAM_TOPICS as readonly string[]).includes(t));
  } catch {
    return [];
  }
};
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 500);

/** An error answered by the Bot API (grammY's GrammyError, known by its shape so grammY loads only where a bot is configured). */
const isBotApiError = (error: unknown): error is GrammyError =>
  error instanceof Error && error.name === 'GrammyError' && typeof (error as Partial<GrammyError>).error_code === 'number';

/**
 * Telegram messages of the shop: linking a chat with a one-time deep link, the bot's commands, and
 * one message per event and chat, sent by queue jobs (never inside the change that caused it).
 * Without a bot (`api` null) the feature is off: events are ignored and the account calls answer 404.
 */

export function createTelegramService(deps: {
  db: Db;
  queue: JobQueue;
  orders: OrderService;
  bulk: BulkService;
  fedex: FedexService;
  log: FastifyBaseLogger;
  /** The Bot API client and the bot's username, or null when Telegram is not configured. */
  bot: { api: Api; username: string } | null;
  /** PUBLIC_URL: links in messages use it, else the shop address the account linked from. */
  publicUrl?: string;
  retryBaseMs: number;
  /** Webhook mode: where Telegram posts updates, and the secret it sends back with each. */
  webhook?: { url: string; secretToken: string };
}) {
  const { db, queue, orders, bulk, fedex, log } = deps;
  const retry = telegramRetryPolicy(deps.retryBaseMs);
  const publicUrl = deps.publicUrl?.replace(/\/+$/, '');
  /** Events being recorded: flush() waits for them. */
  const recording = new Set<Promise<void>>();

  function requireBot() {
    if (!deps.bot) throw notFound(TELEGRAM_NOT_CONFIGURED);
    return deps.bot;
  }

  async function settings(userId: string, message = TELEGRAM_SETTINGS): Promise<TelegramSettingsResponse> {
    const bot = requireBot();
    const account = await repo.findAccount(db, userId);
    const muted = mutedOf(account);
    const topics = Object.fromEntries(TELEGRAM_TOPICS.map((topic) => [topic, !muted.includes(topic)])) as TelegramTopics;
    return { message, bot: bot.username, linked: Boolean(account?.chat_id), chatUsername: account?.chat_id ? account.chat_username : null, linkedAt: account?.linked_at ?? null, topics };
  }

  /** The message an event makes, read after the change was committed; null when there is nothing to tell. */
  async function messageOf(event: ShopEvent, shopUrl: string | null): Promise<{ eventId: string; text: string } | null> {
    switch (event.type) {
      case 'order.completed':
      case 'order.cancelled': {
        const order = await orders.getOwn(event.userId, event.orderId);
        const text = event.type === 'order.completed' ? eventTexts.orderCompleted(order, shopUrl) : eventTexts.orderCancelled(order, shopUrl);
        return { eventId: `${event.type}:${event.orderId}`, text };
      }
      case 'bulk.completed': {
        const own = await bulk.findOwn(event.userId, event.bulkOrderId);
        return own && { eventId: `${event.type}:${event.bulkOrderId}`, text: eventTexts.bulkCompleted(own, shopUrl) };
      }
      case 'fedex.completed':
      case 'fedex.cancelled': {
        const order = await fedex.findOwn(event.userId, event.fedexOrderId);
        if (!order) return null;
        return { eventId: `${event.type}:${event.fedexOrderId}`, text: event.type === 'fedex.completed' ? eventTexts.fedexCompleted(order, shopUrl) : eventTexts.fedexCancelled(order, shopUrl) };
      }
      case 'deposit.credited':
        return { eventId: `${event.type}:${event.invoiceId}`, text: eventTexts.depositCredited(event, shopUrl) };
    }
  }

  /** Records the event's message for the user's linked chat (once per event and chat) and queues its sending. */
  async function record(event: ShopEvent): Promise<void> {
    const account = await repo.findAccount(db, event.userId);
    if (!account?.chat_id || mutedOf(account).includes(TOPIC_OF[event.type])) return;
    const message = await messageOf(event, publicUrl ?? account.shop_url);
    if (!message) return;
    const id = newId();
    const at = nowIso();
    const inserted = await repo.insertMessage(db, {
      id,
      user_id: event.userId,
      chat_id: account.chat_id,
      event_id: message.eventId,
      text: message.text,
      status: 'pending',
      attempts: 0,
      last_error: null,
      telegram_message_id: null,
      sent_at: null,
      created_at: at,
      updated_at: at,
    });
    if (inserted) await queue.enqueue(TELEGRAM_MESSAGE_JOB, { messageId: id }, { jobId: `telegram-${id}` });
  }

  /** The linked account of a chat, with its user; null when the chat is linked to none. */
  async function accountOfChat(chatId: number) {
    const account = await repo.findAccountByChat(db, String(chatId));
    const user = account && (await repo.findUser(db, account.user_id));
    return user ? { account, user } : null;
  }

  return {
    retry,
    /** Whether the bot is configured. */
    enabled: deps.bot !== null,

    /** GET /account/telegram */
    settings: (userId: string) => settings(userId),

    /** PUT /account/telegram: which kinds of message the chat gets. */
    async saveTopics(userId: string, topics: TelegramTopics): Promise<TelegramSettingsResponse> {
      requireBot();
      await repo.saveMuted(db, userId, JSON.stringify(TELEGRAM_TOPICS.filter((topic) => !topics[topic])), nowIso());
      return settings(userId, TELEGRAM_SAVED);
    },

    /** DELETE /account/telegram: the chat gets no more messages. */
    async unlink(userId: string): Promise<TelegramSettingsResponse> {
      requireBot();
      await repo.unlink(db, userId, nowIso());
      return settings(userId, TELEGRAM_UNLINKED);
    },

    /** POST /account/telegram/link: a deep link with a fresh one-time token (kept only as its hash). */
    async createLink(userId: string, shopUrl: string): Promise<TelegramLinkResponse> {
      const bot = requireBot();
      const token = randomToken(24);
      const expiresAt = isoIn(TELEGRAM_LINK_TTL_MINUTES * 60_000);
      await repo.deleteOldLinkTokens(db, new Date(Date.now() - 24 * 3600_000).toISOString());
      await repo.insertLinkToken(db, { token_hash: sha256Hex(token), user_id: userId, shop_url: shopUrl, expires_at: expiresAt, used_at: null, created_at: nowIso() });
      const account = await repo.findAccount(db, userId);
      return { url: `https://t.me/${bot.username}?start=${token}`, expiresAt, linked: Boolean(account?.chat_id) };
    },

    // ---- the bot's commands: each answers the text to reply ----

    /** /start <token>: links the chat to the token's account; a used, expired or unknown token is told so. */
    async start(chat: TelegramChat, token: string): Promise<string> {
      if (!token) {
        const linked = await accountOfChat(chat.id);
        return linked ? botTexts.alreadyLinked(linked.user.tg_id) : botTexts.welcome;
      }
      const tokenHash = sha256Hex(token);
      const row = await repo.findLinkToken(db, tokenHash);
      if (!row) return botTexts.tokenUnknown;
      if (row.used_at) return botTexts.tokenUsed;
      const at = nowIso();
      if (row.expires_at <= at) return botTexts.tokenExpired;
      const user = await repo.findUser(db, row.user_id);
      if (!user) return botTexts.tokenUnknown;
      const used = await db.transaction().execute(async (trx) => {
        if (!(await repo.useLinkToken(trx, tokenHash, at))) return false;
        await repo.linkChat(trx, { userId: row.user_id, chatId: String(chat.id), chatUsername: chat.username ?? null, shopUrl: row.shop_url, at });
        return true;
      });
      return used ? botTexts.linked(user.tg_id) : botTexts.tokenUsed;
    },

    /** /orders: the last 5 orders with status and tracking. */
    async listOrders(chatId: number): Promise<string> {
      const linked = await accountOfChat(chatId);
      if (!linked) return botTexts.notLinked;
      if (linked.user.disabled_at) return botTexts.disabled;
      const { orders: last } = await orders.list(linked.user.id, { search: '', status: 'all', sort: 'desc', page: 1, limit: 5 });
      return last.length ? botTexts.orders(last) : botTexts.noOrders;
    },

    /** /balance */
    async balance(chatId: number): Promise<string> {
      const linked = await accountOfChat(chatId);
      if (!linked) return botTexts.notLinked;
      if (linked.user.disabled_at) return botTexts.disabled;
      return botTexts.balance(Number(linked.user.balance_cents));
    },

    /** /stop: unlinks the chat. */
    async stop(chatId: number): Promise<string> {
      const linked = await accountOfChat(chatId);
      if (!linked) return botTexts.notLinked;
      await repo.unlink(db, linked.user.id, nowIso(), String(chatId));
      return botTexts.unlinked;
    },

    // ---- messages ----

    /** The notifier's listener: records and queues without holding up the change that was made; a failure is logged. */
    onEvent(event: ShopEvent): void {
      if (!deps.bot) return;
      const task = record(event)
        .catch((error) => log.error({ err: error, event }, 'telegram message could not be recorded'))
        .finally(() => recording.delete(task));
      recording.add(task);
    },

    /**
     * The job's handler: sends one message, at most once (the run that claims it sends it). A 429 is
     * retried after its retry_after, a 403 (the user blocked the bot) unlinks the chat and drops the
     * message, other failures are retried with backoff until the last attempt.
     */
    async deliver(messageId: string, job: Pick<JobContext, 'attempt'>): Promise<void> {
      const message = await repo.findMessage(db, messageId);
      if (!message || (message.status !== 'pending' && message.status !== 'retrying')) return;
      const account = await repo.findAccount(db, message.user_id);
      if (!deps.bot || account?.chat_id !== message.chat_id) {
        await repo.updateMessage(db, messageId, { status: 'dropped', last_error: deps.bot ? 'The chat was unlinked' : 'Telegram is not configured', updated_at: nowIso() });
        return;
      }
      if (!(await repo.claimMessage(db, messageId, nowIso()))) return;
      const attempts = message.attempts + 1;
      try {
        const sent = await deps.bot.api.sendMessage(Number(message.chat_id), message.text, { link_preview_options: { is_disabled: true } });
        await repo.updateMessage(db, messageId, { status: 'sent', attempts, telegram_message_id: sent.message_id, last_error: null, sent_at: nowIso(), updated_at: nowIso() });
      } catch (error) {
        const code = isBotApiError(error) ? error.error_code : null;
        if (code === 403) {
          // Blocked (or the user deleted the chat): no more messages to it.
          await repo.unlink(db, message.user_id, nowIso(), message.chat_id);
          await repo.updateMessage(db, messageId, { status: 'dropped', attempts, last_error: errorText(error), updated_at: nowIso() });
          log.info({ userId: message.user_id }, 'a Telegram chat blocked the bot; unlinked');
          return;
        }
        // The job counts tries too: a job queued again with the engine's count reset still ends.
        const last = code === 400 || Math.max(job.attempt, attempts) >= retry.attempts;
        await repo.updateMessage(db, messageId, { status: last ? 'failed' : 'retrying', attempts, last_error: errorText(error), updated_at: nowIso() });
        if (last) {
          log.warn({ err: error, messageId }, 'telegram message not sent');
          return;
        }
        const retryAfter = isBotApiError(error) && code === 429 ? error.parameters.retry_after : undefined;
        throw retryAfter === undefined ? error : new RetryLaterError(errorText(error), retryAfter * 1000);
      }
    },

    /** Webhook mode: tells Telegram where to post updates and the secret to send with them (a queue job, retried until it is taken). */
    async setWebhook(): Promise<void> {
      if (!deps.bot || !deps.webhook) return;
      await deps.bot.api.setWebhook(deps.webhook.url, { secret_token: deps.webhook.secretToken, allowed_updates: ['message'] });
    },

    /** Queues messages recorded but never queued (a process stopped between the two); a queued one is not queued twice. */
    async resumePending(): Promise<number> {
      const pending = await repo.unqueuedMessages(db, new Date(Date.now() - 60_000).toISOString(), 500);
      for (const message of pending) await queue.enqueue(TELEGRAM_MESSAGE_JOB, { messageId: message.id }, { jobId: `telegram-${message.id}` });
      return pending.length;
    },

    /** Waits for events still being recorded (at shutdown, before the queue and database close). */
    async flush(): Promise<void> {
      await Promise.allSettled([...recording]);
    },
  };
}
export type TelegramService = ReturnType<typeof createTelegramService>;
