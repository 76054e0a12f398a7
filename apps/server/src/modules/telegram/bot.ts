import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { Bot, type Context } from 'grammy';
import type { Update } from 'grammy/types';
import type { Lease } from '../../lib/lease.ts';
import type { TelegramService } from './service.ts';
import { botTexts } from './texts.ts';

/** Seconds a getUpdates call waits for updates (long polling). */
const POLL_SECONDS = 30;

/** The secret Telegram sends back in X-Telegram-Bot-Api-Secret-Token (webhook mode): derived from a server secret, the same in every process. */
export const webhookSecretToken = (serverSecret: string) => crypto.createHmac('sha256', serverSecret).update('telegram-webhook-secret').digest('base64url');

/** Whether a webhook request carries the secret (compared in constant time). */
export function isWebhookSecret(header: string | string[] | undefined, secret: string): boolean {
  const given = Buffer.from(typeof header === 'string' ? header : '');
  const expected = Buffer.from(secret);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/** The bot on a Bot API server (TELEGRAM_API_ROOT), before its commands are added. Requests give up after a minute. */
export const createBot = (token: string, apiRoot: string) => new Bot(token, { client: { apiRoot, timeoutSeconds: POLL_SECONDS + 30 } });

/**
 * The bot's commands in private chats, each answered with the text the service gives; a command
 * that fails is logged and answered with an apology (updates in groups are ignored).
 */
export function addCommands(bot: Bot, telegram: TelegramService, log: FastifyBaseLogger): void {
  // Instead of grammY's default (print and stop polling): an update that fails is logged and polling goes on.
  bot.catch(({ error }) => log.error({ err: error }, 'telegram update failed'));
  const chats = bot.chatType('private').errorBoundary(async ({ error, ctx }) => {
    log.error({ err: error }, 'telegram command failed');
    await ctx.reply(botTexts.failed).catch(() => {});
  });
  const answer = (work: (ctx: Context & { chat: { id: number } }) => Promise<string> | string) => async (ctx: Context & { chat: { id: number } }) => {
    await ctx.reply(await work(ctx), { link_preview_options: { is_disabled: true } });
  };
  chats.command(
    'start',
    answer((ctx) => telegram.start({ id: ctx.chat.id, username: ctx.from?.username }, typeof ctx.match === 'string' ? ctx.match.trim() : '')),
  );
  chats.command(
    'orders',
    answer((ctx) => telegram.listOrders(ctx.chat.id)),
  );
  chats.command(
    'balance',
    answer((ctx) => telegram.balance(ctx.chat.id)),
  );
  chats.command(
    'stop',
    answer((ctx) => telegram.stop(ctx.chat.id)),
  );
  chats.command(
    'help',
    answer(() => botTexts.help),
  );
  chats.on(
    'message:text',
    answer(() => botTexts.help),
  );
}

/** Webhook mode: handles one update Telegram posted (the route checked its secret first). */
export async function handleUpdate(bot: Bot, update: Update): Promise<void> {
  await bot.init();
  await bot.handleUpdate(update);
}

/**
 * Long polling in one process at a time: the process that holds the lease polls and renews it every
 * third of its time; the others wait and try to take it as often. A holder that loses its lease (or
 * whose polling fails) stops polling and lets go.
 */
export function createPoller(bot: Bot, lease: Lease, leaseMs: number, log: FastifyBaseLogger) {
  let stopped = false;
  let running: Promise<void> | undefined;
  const idle = new AbortController();

  async function pollWhileHeld(): Promise<void> {
    const renew = setInterval(
      () => {
        lease.renew().then(
          (held) => {
            if (!held && bot.isRunning()) {
              log.warn('telegram polling lease lost; another process polls now');
              void bot.stop().catch(() => {});
            }
          },
          (error) => log.warn({ err: error }, 'telegram polling lease could not be renewed'),
        );
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );
    try {
      await bot.start({ timeout: POLL_SECONDS, allowed_updates: ['message'], onStart: () => log.info('polling Telegram for updates') });
    } catch (error) {
      if (!stopped) log.error({ err: error }, 'telegram polling stopped');
    } finally {
      clearInterval(renew);
      await lease.release().catch(() => {});
    }
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      const held = await lease.acquire().catch((error) => void log.warn({ err: error }, 'telegram polling lease could not be taken'));
      if (held === false) log.debug('telegram polling lease is held by another process');
      // Nothing is awaited between this check and bot.start() marking the bot running, so stop() sees one or the other.
      if (held && !stopped) await pollWhileHeld();
      else if (held) await lease.release().catch(() => {});
      await sleep(Math.max(100, Math.floor(leaseMs / 3)), undefined, { signal: idle.signal }).catch(() => {});
    }
  }

  return {
    start(): void {
      running ??= loop();
    },
    /** Stops polling (confirming the updates handled to Telegram) and lets the lease go. */
    async stop(): Promise<void> {
      stopped = true;
      idle.abort();
      if (bot.isRunning()) await bot.stop().catch((error) => log.warn({ err: error }, 'telegram polling did not stop cleanly'));
      await running;
      await lease.close();
    },
  };
}
