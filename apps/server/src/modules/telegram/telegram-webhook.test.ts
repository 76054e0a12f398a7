import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WAIT, uniqueId } from '../../../test/basics.ts';
import { dropRedisPrefix, startTestApp, type TestApp } from '../../../test/harness.ts';
import { startFakeTelegram, type FakeTelegram } from '../../../test/fake-telegram.ts';
import { resellerUser } from '../../../test/reseller-fixtures.ts';
import { engines, linkOf, newChatId, telegramEnv } from '../../../test/telegram-fixtures.ts';
import { botTexts } from './texts.ts';

const WEBHOOK_URL = 'https://shop.example.com/api/v1/telegram/webhook';

describe.each(engines)('Telegram webhook mode on the %s queue', (engine) => {
  let t: TestApp;
  let tg: FakeTelegram;
  const prefix = uniqueId('test-tg-hook');
  beforeAll(async () => {
    tg = await startFakeTelegram();
    t = await startTestApp(
      telegramEnv(tg, {
        TELEGRAM_WEBHOOK_URL: WEBHOOK_URL,
        QUEUE_RETRY_DELAY_MS: '50',
        ...(engine === 'bullmq' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix } : {}),
      }),
    );
  });
  let closed = false;
  afterAll(async () => {
    if (!closed) await t?.close();
    await tg?.close();
    if (engine === 'bullmq') await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  });

  const post = (update: Record<string, unknown>, secret?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/telegram/webhook',
      payload: update,
      headers: secret === undefined ? {} : { 'x-telegram-bot-api-secret-token': secret },
    });

  it('registers the webhook with a generated secret, never polls, and handles only updates that carry the secret', async () => {
    await vi.waitFor(async () => expect(tg.webhook).toMatchObject({ url: WEBHOOK_URL, allowed_updates: ['message'] }), WAIT);
    const secret = tg.webhook!.secret_token!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tg.calls).not.toContain('getUpdates');

    const user = await resellerUser(t.app, t.db, 0);
    const chat = newChatId();
    const { token } = await linkOf(t.app, user.headers);
    const update = tg.updateOf(chat, `/start ${token}`);
    for (const wrong of [undefined, '', 'wrong-secret', `${secret}x`, secret.slice(0, -1)]) {
      const res = await post(update, wrong);
      expect({ wrong, status: res.statusCode }).toEqual({ wrong, status: 401 });
    }
    expect(tg.sent).toEqual([]);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/account/telegram', headers: user.headers })).json().linked).toBe(false);

    const res = await post(update, secret);
    expect(res.statusCode).toBe(200);
    expect(await tg.sentTo(chat, 1)).toEqual([botTexts.linked(user.tgId)]);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/account/telegram', headers: user.headers })).json().linked).toBe(true);
    expect((await post({ nothing: 'here' }, secret)).statusCode).toBe(400);
    // Closed, the process has stopped all it started (a poller's loop included): what it called is all it ever will.
    closed = true;
    await t.close();
    expect(tg.calls).not.toContain('getUpdates');
    expect(tg.calls).not.toContain('deleteWebhook');
  });
});
