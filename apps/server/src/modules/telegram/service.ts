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
import { HttpError, notFound } from '../../lib/http-errors.ts';
import { isoIn, newId, nowIso, randomToken, sha256Hex } from '../../lib/ids.ts';
import { eventOf, type ShopEvent, type ShopEventRow } from '../../lib/shop-events.ts';
import { RetryLaterError, type JobContext, type JobQueue, type RetryPolicy } from '../../queue/job-queue.ts';
import type { BulkService } from '../bulk/service.ts';
import type { FedexService } from '../fedex/service.ts';
import type { OrderService, PickupService } from '../orders/service.ts';
import * as repo from './repository.ts';
import { botTexts, eventTexts } from './texts.ts';

export const TELEGRAM_MESSAGE_JOB = 'telegram-message';
export const TELEGRAM_WEBHOOK_JOB = 'telegram-webhook';
/** Tries of one message: the first and 7 retries, base, 2 x base, 4 x base... apart (QUEUE_RETRY_DELAY_MS, at most 10 minutes); a 429 waits its retry_after instead. */
export const TELEGRAM_MAX_ATTEMPTS = 8;
export const telegramRetryPolicy = (baseMs: number): RetryPolicy => ({
  attempts: TELEGRAM_MAX_ATTEMPTS,
  delayMs: (attempt) => Math.min(600_000, baseMs * 2 ** (attempt - 1)),
});

/** Which Account Setting choice each event falls under. */
const TOPIC_OF: Record<ShopEvent['type'], TelegramTopic> = {
  'order.completed': 'orderCompleted',
  'order.cancelled': 'orderCancelled',
  'order.tracking': 'orderDelivered',
  'order.refunded': 'labelRefunds',
  'order.refund_rejected': 'labelRefunds',
  'bulk.completed': 'bulkCompleted',
  'scan_form.created': 'bulkCompleted',
  'pickup.booked': 'pickups',
  'pickup.cancelled': 'pickups',
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
  pickups: Pick<PickupService, 'view'>;
  log: FastifyBaseLogger;
  /** The Bot API client and the bot's username, or null when Telegram is not configured. */
  bot: { api: Api; username: string } | null;
  /** PUBLIC_URL: links in messages use it, else the shop address the account linked from. */
  publicUrl?: string;
  retryBaseMs: number;
  /**
   * How long the run that takes a message to send it holds it (QUEUE_STALLED_INTERVAL_MS, the queue's own lease): a
   * message whose holder died is taken again after it. A send is given up after half of it, so a live holder is done
   * before anyone else may take it.
   */
  claimMs: number;
  /** Webhook mode: where Telegram posts updates, and the secret it sends back with each. */
  webhook?: { url: string; secretToken: string };
}) {
  const { db, queue, orders, bulk, fedex, log } = deps;
  const retry = telegramRetryPolicy(deps.retryBaseMs);
  const publicUrl = deps.publicUrl?.replace(/\/+$/, '');
  const queueMessage = (id: string, again = false) => queue.enqueue(TELEGRAM_MESSAGE_JOB, { messageId: id }, { jobId: `telegram-${id}`, again });

  function requireBot() {
    if (!deps.bot) throw notFound(TELEGRAM_NOT_CONFIGURED);
    return deps.bot;
  }

  async function settings(userId: string, message = TELEGRAM_SETTINGS): Promise<TelegramSettingsResponse> {
    const bot = requireBot();
    const account = await repo.findAccount(db, userId);
    const muted = mutedOf(account);
    const topics = Object.fromEntries(TELEGRAM_TOPICS.map((topic) => [topic, !muted.includes(topic)])) as TelegramTopics;
    return {
      message,
      bot: bot.username,
      linked: Boolean(account?.chat_id),
      chatUsername: account?.chat_id ? account.chat_username : null,
      linkedAt: account?.linked_at ?? null,
      topics,
    };
  }

  /** The message an event makes, read when the event is dispatched (just after its commit, or after a crash, later); null when there is nothing to tell. */
  async function messageOf(event: ShopEvent, shopUrl: string | null): Promise<{ eventId: string; text: string } | null> {
    switch (event.type) {
      case 'order.completed':
      case 'order.cancelled':
      case 'order.refunded':
      case 'order.refund_rejected': {
        const order = await orders.getOwn(event.userId, event.orderId).catch((error) => {
          if (error instanceof HttpError && error.statusCode === 404) return null;
          throw error;
        });
        if (!order) return null;
        const text =
          event.type === 'order.completed'
            ? eventTexts.orderCompleted(order, shopUrl)
            : event.type === 'order.cancelled'
              ? eventTexts.orderCancelled(order, shopUrl)
              : event.type === 'order.refunded'
                ? eventTexts.orderRefunded(order, shopUrl)
                : eventTexts.orderRefundRejected(order, shopUrl);
        return { eventId: `${event.type}:${event.orderId}`, text };
      }
      case 'order.tracking': {
        // Only a delivery is told, and only of a single order (a bulk order's labels would be a message each).
        if (event.status !== 'delivered' || event.bulk) return null;
        const order = await orders.getOwn(event.userId, event.orderId).catch((error) => {
          if (error instanceof HttpError && error.statusCode === 404) return null;
          throw error;
        });
        return order && { eventId: `${event.type}:${event.orderId}:${event.status}`, text: eventTexts.orderDelivered(order, shopUrl) };
      }
      case 'bulk.completed': {
        const own = await bulk.findOwn(event.userId, event.bulkOrderId);
        return own && { eventId: `${event.type}:${event.bulkOrderId}`, text: eventTexts.bulkCompleted(own, shopUrl) };
      }
      case 'fedex.completed':
      case 'fedex.cancelled': {
        const order = await fedex.findOwn(event.userId, event.fedexOrderId);
        if (!order) return null;
        return {
          eventId: `${event.type}:${event.fedexOrderId}`,
          text: event.type === 'fedex.completed' ? eventTexts.fedexCompleted(order, shopUrl) : eventTexts.fedexCancelled(order, shopUrl),
        };
      }
      case 'deposit.credited':
        return { eventId: `${event.type}:${event.invoiceId}`, text: eventTexts.depositCredited(event, shopUrl) };
      // The customer asked for the form on the page (or the API, which has its webhook): no message.
      case 'scan_form.created':
        return null;
      case 'pickup.booked':
      case 'pickup.cancelled': {
        const pickup = await deps.pickups.view(event.userId, event.pickupId);
        if (!pickup) return null;
        return {
          eventId: `${event.type}:${event.pickupId}`,
          text: event.type === 'pickup.booked' ? eventTexts.pickupBooked(pickup, shopUrl) : eventTexts.pickupCancelled(pickup, shopUrl),
        };
      }
    }
  }

  /**
   * The outbox's receiver: records each event's message for its user's linked chat (once per event and chat, however
   * often the event is dispatched) and queues its sending. A message recorded before and never tried is queued again.
   */
  async function record(rows: ShopEventRow[]): Promise<void> {
    if (!deps.bot || rows.length === 0) return;
    const events = rows.map(eventOf);
    const accounts = new Map((await repo.findAccounts(db, [...new Set(events.map((e) => e.userId))])).map((a) => [a.user_id, a]));
    const messages: repo.TelegramMessageRow[] = [];
    for (const event of events) {
      const account = accounts.get(event.userId);
      if (!account?.chat_id || mutedOf(account).includes(TOPIC_OF[event.type])) continue;
      const message = await messageOf(event, publicUrl ?? account.shop_url);
      if (!message) continue;
      const at = nowIso();
      messages.push({
        id: newId(),
        user_id: event.userId,
        chat_id: account.chat_id,
        event_id: message.eventId,
        text: message.text,
        status: 'pending',
        attempts: 0,
        last_error: null,
        telegram_message_id: null,
        sent_at: null,
        claimed_until: null,
        created_at: at,
        updated_at: at,
      });
    }
    if (messages.length === 0) return;
    const inserted = await repo.insertMessages(db, messages);
    const queued = [...inserted];
    if (inserted.size < messages.length) {
      const before = messages.filter((m) => !inserted.has(m.id));
      for (const { id } of await repo.untriedMessages(
        db,
        [...new Set(before.map((m) => m.chat_id))],
        before.map((m) => m.event_id),
      ))
        queued.push(id);
    }
    for (const id of queued) await queueMessage(id);
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
      await repo.insertLinkToken(db, {
        token_hash: sha256Hex(token),
        user_id: userId,
        shop_url: shopUrl,
        expires_at: expiresAt,
        used_at: null,
        created_at: nowIso(),
      });
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

    record,

    /**
     * The job's handler: sends one message. The run that claims it sends it: runs of its job at once (a queue that
     * took it again from a live worker) send it once. A message whose holder died while sending is taken again once
     * the claim is over, and may reach the chat twice. A 429 is retried after its retry_after, a 403 (the user blocked
     * the bot) unlinks the chat and drops the message, other failures are retried with backoff until the last attempt.
     */
    async deliver(messageId: string, job: Pick<JobContext, 'attempt'>): Promise<void> {
      const message = await repo.findMessage(db, messageId);
      if (!message || repo.isDone(message)) return;
      /**
       * Another run holds it (this job was taken again from a live worker whose lease ran out, or the message was
       * queued twice): this one must not send, and must not end the job before the message is done, as the holder's
       * run may fail and its retry be lost with the job. It comes back after the policy's wait.
       */
      const held = () => {
        if (job.attempt >= retry.attempts) return;
        throw new RetryLaterError('the message is being sent by another run', Math.min(retry.delayMs(job.attempt), deps.claimMs));
      };
      if (!repo.isClaimable(message, nowIso())) return held();
      const account = await repo.findAccount(db, message.user_id);
      if (!deps.bot || account?.chat_id !== message.chat_id) {
        await repo.updateMessage(db, messageId, {
          status: 'dropped',
          last_error: deps.bot ? 'The chat was unlinked' : 'Telegram is not configured',
          claimed_until: null,
          updated_at: nowIso(),
        });
        return;
      }
      if (!(await repo.claimMessage(db, messageId, nowIso(), isoIn(deps.claimMs)))) return held();
      const attempts = message.attempts + 1;
      try {
        // grammY's own type is a polyfill's AbortSignal; it takes any signal with addEventListener.
        const signal = AbortSignal.timeout(Math.floor(deps.claimMs / 2)) as unknown as Parameters<Api['sendMessage']>[3];
        const sent = await deps.bot.api.sendMessage(Number(message.chat_id), message.text, { link_preview_options: { is_disabled: true } }, signal);
        await repo.updateMessage(db, messageId, {
          status: 'sent',
          attempts,
          telegram_message_id: sent.message_id,
          last_error: null,
          sent_at: nowIso(),
          claimed_until: null,
          updated_at: nowIso(),
        });
      } catch (error) {
        const code = isBotApiError(error) ? error.error_code : null;
        if (code === 403) {
          // Blocked (or the user deleted the chat): no more messages to it.
          await repo.unlink(db, message.user_id, nowIso(), message.chat_id);
          await repo.updateMessage(db, messageId, { status: 'dropped', attempts, last_error: errorText(error), claimed_until: null, updated_at: nowIso() });
          log.info({ userId: message.user_id }, 'a Telegram chat blocked the bot; unlinked');
          return;
        }
        // The job counts tries too: a job queued again with the engine's count reset still ends.
        const last = code === 400 || Math.max(job.attempt, attempts) >= retry.attempts;
        await repo.updateMessage(db, messageId, {
          status: last ? 'failed' : 'retrying',
          attempts,
          last_error: errorText(error),
          claimed_until: null,
          updated_at: nowIso(),
        });
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

    /**
     * Queues the messages recorded before `before` and never tried (a process stopped before queueing them), and the
     * messages whose holder died while sending (their claim is over): their job, done or not, runs again.
     */
    async resume(before: string): Promise<void> {
      const pending = await repo.unqueuedMessages(db, before, 500);
      for (const message of pending) await queueMessage(message.id);
      const stalled = await repo.stalledMessages(db, nowIso(), 500);
      for (const message of stalled) await queueMessage(message.id, true);
      if (pending.length + stalled.length > 0) log.info({ unqueued: pending.length, stalled: stalled.length }, 'telegram messages queued again');
    },
  };
}
export type TelegramService = ReturnType<typeof createTelegramService>;
