import { expect, vi } from 'vitest';
import { WAIT } from './basics.ts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../src/db/database.ts';
import type { FakeTelegram } from './fake-telegram.ts';
import { LabelProviderError, type LabelProvider } from '../src/providers/labels/label-provider.ts';
import { labelPdf } from './fedex-fixtures.ts';
import { sandboxQuote } from '../src/providers/labels/sandbox.ts';
import { botTexts } from '../src/modules/telegram/texts.ts';

export { engines } from './harness.ts';

/** The settings that turn Telegram on against the fake Bot API server (polling unless a webhook URL is given). */
export const telegramEnv = (fake: FakeTelegram, extra: Record<string, string> = {}): Record<string, string> => ({
  TELEGRAM_BOT_TOKEN: fake.token,
  TELEGRAM_BOT_USERNAME: fake.username,
  TELEGRAM_API_ROOT: fake.apiRoot,
  TELEGRAM_POLL_LEASE_MS: '600',
  ...extra,
});

/** The receiver name a test label provider refuses. */
export const REFUSED_RECEIVER = 'Refused Receiver';
export const REFUSAL = 'the address is not deliverable';

/** Labels made at once (a real one-page PDF, so bulk orders can merge them), refused for REFUSED_RECEIVER. */
export async function testLabels(): Promise<LabelProvider> {
  const pdf = await labelPdf();
  return {
    name: 'test',
    quote: async (request) => sandboxQuote(request),
    async createLabel(request) {
      if (request.to.name === REFUSED_RECEIVER) throw new LabelProviderError(REFUSAL);
      return { status: 'completed', tracking: `9400TEST${request.orderId.slice(0, 8).toUpperCase()}`, pdf };
    },
    async findLabel() {
      return null;
    },
    async checkLabel() {
      return { status: 'failed', message: 'not asked' };
    },
  };
}

let chats = 0;
/** A new Telegram chat id (a private chat's id is its user's). */
export const newChatId = () => 7_000_000_000 + process.pid * 1000 + ++chats;

/** A fresh deep link of the signed-in user, and its one-time token. */
export async function linkOf(app: FastifyInstance, headers: { authorization: string }) {
  const res = await app.inject({ method: 'POST', url: '/api/v1/account/telegram/link', headers });
  expect(res.statusCode).toBe(200);
  const link = res.json() as { url: string; expiresAt: string; linked: boolean };
  return { ...link, token: new URL(link.url).searchParams.get('start')! };
}

/** Links a new chat (whose Telegram username is not the account's) to the user through /start <token>, as a tap on the deep link does. */
export async function linkChat(app: FastifyInstance, fake: FakeTelegram, user: { tgId: string; headers: { authorization: string } }) {
  const chatId = newChatId();
  const { token } = await linkOf(app, user.headers);
  fake.send(chatId, `/start ${token}`, `someone_${chatId}`);
  expect(await fake.sentTo(chatId, 1)).toEqual([botTexts.linked(user.tgId)]);
  return chatId;
}

/**
 * Waits until every event of the user is dispatched (no outbox row left) and every Telegram message those events made
 * is done with (sent, failed or dropped). A message reaches a chat only from such a row, sent by its job before the
 * row is marked: from then on nothing more reaches any chat for the user's events, however long one waits.
 */
export async function telegramSettled(db: Db, userId: string): Promise<void> {
  await vi.waitFor(async () => {
    const events = await db.selectFrom('shop_events').select('id').where('user_id', '=', userId).execute();
    const open = await db
      .selectFrom('telegram_messages')
      .select(['event_id', 'status'])
      .where('user_id', '=', userId)
      .where('status', 'in', ['pending', 'retrying', 'sending'])
      .execute();
    expect({ events, open }).toEqual({ events: [], open: [] });
  }, WAIT);
}
