import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WAIT, uniqueId } from '../../../test/basics.ts';
import { TELEGRAM_NOT_CONFIGURED, TELEGRAM_SAVED, TELEGRAM_UNLINKED } from '@portal/contract';
import { dropRedisPrefix, startTestApp, type TestApp } from '../../../test/harness.ts';
import { startFakeTelegram, type FakeTelegram } from '../../../test/fake-telegram.ts';
import { sha256Hex } from '../../lib/ids.ts';
import { createJobQueue } from '../../queue/from-config.ts';
import { fedexPayload, labelPdf, multipartBody, operator, setFedexPrice } from '../../../test/fedex-fixtures.ts';
import { bulkRow, callApi, labelFields, resellerUser } from '../../../test/reseller-fixtures.ts';
import { insertMessage } from './repository.ts';
import { RetryLaterError, type JobQueue } from '../../queue/job-queue.ts';
import { createBot } from './bot.ts';
import { TELEGRAM_MESSAGE_JOB, createTelegramService } from './service.ts';
import { REFUSAL, REFUSED_RECEIVER, engines, linkChat, linkOf, newChatId, telegramEnv, telegramSettled, testLabels } from '../../../test/telegram-fixtures.ts';
import { botTexts } from './texts.ts';

const SHOP = 'https://shop.example.com';
type User = Awaited<ReturnType<typeof resellerUser>>;

describe.each(engines)('Telegram on the %s queue', (engine) => {
  let t: TestApp;
  let tg: FakeTelegram;
  const prefix = uniqueId('test-telegram');
  beforeAll(async () => {
    tg = await startFakeTelegram();
    t = await startTestApp(
      telegramEnv(tg, {
        PUBLIC_URL: SHOP,
        QUEUE_RETRY_DELAY_MS: '50',
        ...(engine === 'bullmq' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix } : {}),
      }),
      { labels: await testLabels() },
    );
  });
  afterAll(async () => {
    await t?.close();
    await tg?.close();
    if (engine === 'bullmq') await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  });

  const settingsOf = async (user: User) => (await t.app.inject({ method: 'GET', url: '/api/v1/account/telegram', headers: user.headers })).json();
  const latestOrder = (user: User) =>
    t.db.selectFrom('orders').selectAll().where('user_id', '=', user.userId).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
  const messagesOf = (user: User) => t.db.selectFrom('telegram_messages').selectAll().where('user_id', '=', user.userId).orderBy('created_at').execute();
  const createOrder = (user: User, fields: Record<string, string | number> = {}) =>
    callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields(fields) });

  it('links a chat with a good token, and answers a used, an expired and an unknown one', async () => {
    const user = await resellerUser(t.app, t.db, 0);
    expect(await settingsOf(user)).toEqual({
      message: 'Telegram',
      bot: tg.username,
      linked: false,
      chatUsername: null,
      linkedAt: null,
      topics: {
        orderCompleted: true,
        orderDelivered: true,
        orderCancelled: true,
        labelRefunds: true,
        bulkCompleted: true,
        fedexOrders: true,
        pickups: true,
        deposits: true,
      },
    });
    const link = await linkOf(t.app, user.headers);
    expect(link.url).toBe(`https://t.me/${tg.username}?start=${link.token}`);
    expect(link.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(Date.parse(link.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(Date.parse(link.expiresAt) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    expect(link.linked).toBe(false);
    // Kept hashed only.
    const stored = await t.db.selectFrom('telegram_link_tokens').selectAll().where('user_id', '=', user.userId).execute();
    expect(stored.map((row) => row.token_hash)).toEqual([sha256Hex(link.token)]);

    // The token proves who the chat is, whatever its Telegram username.
    const chat = newChatId();
    tg.send(chat, `/start ${link.token}`, 'not_the_account_name');
    expect(await tg.sentTo(chat, 1)).toEqual([`Linked to @${user.tgId}\nYou will get your order updates in this chat. /help lists what I can do.`]);
    expect(await settingsOf(user)).toMatchObject({ linked: true, chatUsername: 'not_the_account_name', linkedAt: expect.any(String) });
    expect((await linkOf(t.app, user.headers)).linked).toBe(true);

    const other = newChatId();
    tg.send(other, `/start ${link.token}`);
    expect(await tg.sentTo(other, 1)).toEqual([
      "This link was already used.\nOpen a fresh link with 'Get order updates on Telegram' on the Orders card of your dashboard.",
    ]);
    const late = await linkOf(t.app, user.headers);
    await t.db
      .updateTable('telegram_link_tokens')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('token_hash', '=', sha256Hex(late.token))
      .execute();
    tg.send(other, `/start ${late.token}`);
    expect((await tg.sentTo(other, 2))[1]).toBe(
      "This link has expired (a link works for 15 minutes).\nOpen a fresh link with 'Get order updates on Telegram' on the Orders card of your dashboard.",
    );
    tg.send(other, '/start not-a-token-we-made');
    expect((await tg.sentTo(other, 3))[2]).toBe(botTexts.tokenUnknown);
    // Still linked to the first chat only.
    expect(await settingsOf(user)).toMatchObject({ linked: true, chatUsername: 'not_the_account_name' });
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/account/telegram/link' })).statusCode).toBe(401);
  });

  it('moves a chat linked by a second account to that account', async () => {
    const [first, second] = [await resellerUser(t.app, t.db, 0), await resellerUser(t.app, t.db, 0)];
    const chat = await linkChat(t.app, tg, first);
    tg.send(chat, `/start ${(await linkOf(t.app, second.headers)).token}`);
    expect((await tg.sentTo(chat, 2))[1]).toBe(botTexts.linked(second.tgId));
    expect((await settingsOf(first)).linked).toBe(false);
    expect((await settingsOf(second)).linked).toBe(true);
  });

  it('answers /orders, /balance, /help and /stop', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    const chat = await linkChat(t.app, tg, user);
    tg.send(chat, '/orders');
    expect((await tg.sentTo(chat, 2))[1]).toBe('You have no orders yet.');
    for (let i = 1; i <= 6; i++) expect((await createOrder(user, { ToName: `Receiver ${i}` })).statusCode).toBe(200);
    await tg.sentTo(chat, 8);
    const last = await t.db.selectFrom('orders').select(['id', 'tracking']).where('user_id', '=', user.userId).orderBy('created_at', 'desc').limit(5).execute();
    tg.send(chat, '/orders');
    expect((await tg.sentTo(chat, 9))[8]).toBe(
      [
        'Your last 5 orders:',
        ...last.map((o, i) => `\n${o.id.slice(0, 8).toUpperCase()} USPS Priority Mail to Receiver ${6 - i}\ncompleted, tracking ${o.tracking}`),
      ].join('\n'),
    );
    tg.send(chat, '/balance');
    expect((await tg.sentTo(chat, 10))[9]).toBe(`Balance: $${(100 - 6 * 6.75).toFixed(2)}`);
    tg.send(chat, '/help');
    expect((await tg.sentTo(chat, 11))[10]).toBe(
      '/orders - your last 5 orders with status and tracking\n/balance - your balance\n/stop - stop the messages and unlink this chat\n/help - this list\nChoose which messages you get in Account Setting.',
    );
    tg.send(chat, '/stop');
    expect((await tg.sentTo(chat, 12))[11]).toBe(
      "Unlinked: this chat gets no more messages.\nTo link it again, use 'Get order updates on Telegram' on the Orders card of your dashboard.",
    );
    expect((await settingsOf(user)).linked).toBe(false);
    tg.send(chat, '/balance');
    expect((await tg.sentTo(chat, 13))[12]).toBe(botTexts.notLinked);
    // Unlinked chats get nothing more: the order's event is dispatched and makes no message.
    expect((await createOrder(user)).statusCode).toBe(200);
    await telegramSettled(t.db, user.userId);
    expect((await messagesOf(user)).map((m) => m.event_id.split(':')[0])).toEqual(Array(6).fill('order.completed'));
    expect(tg.sent.filter((m) => m.chatId === chat)).toHaveLength(13);
  });

  it('sends each kind of message, with its text, to the linked chat only', async () => {
    const user = await resellerUser(t.app, t.db, 20_000);
    const chat = await linkChat(t.app, tg, user);
    const texts = async (count: number) => (await tg.sentTo(chat, count + 1)).slice(1);

    // A label order completed.
    expect((await createOrder(user)).statusCode).toBe(200);
    const done = await latestOrder(user);
    const short = (id: string) => id.slice(0, 8).toUpperCase();
    expect(await texts(1)).toEqual([`Order ${short(done.id)} completed\nUSPS Priority Mail to John Receiver\nTracking: ${done.tracking}\nDashboard: ${SHOP}/`]);

    // An order refused by the carrier: cancelled and refunded.
    expect((await createOrder(user, { ToName: REFUSED_RECEIVER })).statusCode).toBe(502);
    const refused = await latestOrder(user);
    expect((await texts(2))[1]).toBe(
      `Order ${short(refused.id)} cancelled and refunded ($6.75)\nUSPS Priority Mail to ${REFUSED_RECEIVER}\nReason: ${REFUSAL}\nDashboard: ${SHOP}/`,
    );

    // A bulk order: one label made, one refused and refunded.
    const bulk = await callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', {
      payload: { labelType: 'uspsv9', data: [bulkRow(1), bulkRow(2, { ToName: REFUSED_RECEIVER })] },
    });
    expect(bulk.statusCode).toBe(200);
    expect((await texts(3))[2]).toBe(`Bulk order ${short(bulk.json().bulkorder_id)} done: 1 made, 1 failed\nRefunded: $7.25\nFiles: ${SHOP}/csv-orders`);

    // FedEx hand-made orders: completed with a note, cancelled with one.
    const admin = await operator(t.app, t.db);
    await setFedexPrice(t.app, admin, 35);
    const fedexOrder = async () => {
      expect((await t.app.inject({ method: 'POST', url: '/api/v1/fed/create-order', payload: fedexPayload(), headers: user.headers })).statusCode).toBe(200);
      return (await t.db.selectFrom('fedex_orders').select('id').where('user_id', '=', user.userId).orderBy('created_at', 'desc').executeTakeFirstOrThrow()).id;
    };
    const shipped = await fedexOrder();
    const body = multipartBody({ note: 'Picked up at 3 pm' }, [{ field: 'label', name: 'label.pdf', type: 'application/pdf', data: await labelPdf() }]);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/v1/admin/fedex-orders/${shipped}/complete`,
          payload: body.payload,
          headers: { ...admin.headers, ...body.headers },
        })
      ).statusCode,
    ).toBe(200);
    expect((await texts(4))[3]).toBe(`FedEx order ${short(shipped)} completed\nNote: Picked up at 3 pm\nLabel: ${SHOP}/fedex-order`);
    const dropped = await fedexOrder();
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/v1/admin/fedex-orders/${dropped}/cancel`,
          payload: { note: 'Destination not served' },
          headers: admin.headers,
        })
      ).statusCode,
    ).toBe(200);
    expect((await texts(5))[4]).toBe(
      `FedEx order ${short(dropped)} cancelled and refunded ($35.00)\nNote: Destination not served\nDashboard: ${SHOP}/fedex-order`,
    );

    // A deposit credited, with its bonus and the new balance.
    const before = (await t.db.selectFrom('users').select('balance_cents').where('id', '=', user.userId).executeTakeFirstOrThrow()).balance_cents;
    const invoice = (
      await t.app.inject({ method: 'POST', url: '/api/v1/invoices/create-invoice', headers: user.headers, payload: { amount: 250, type: 'crypto' } })
    ).json().data;
    const sandboxId = new URL(invoice.hosted_url).pathname.split('/').pop();
    const paid = await t.app.inject({
      method: 'POST',
      url: `/pay/${sandboxId}/simulate`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'action=pay',
    });
    expect(paid.statusCode).toBe(303);
    expect((await texts(6))[5]).toBe(
      `Deposit credited: $250.00\nBonus: 2% ($5.00)\nNew balance: $${((before + 25_500) / 100).toFixed(2)}\nDeposits: ${SHOP}/deposits`,
    );

    // Someone else's chat heard nothing of it; every message is recorded as sent once.
    expect(tg.sent.filter((m) => m.chatId === chat)).toHaveLength(7);
    await vi.waitFor(async () => expect((await messagesOf(user)).every((r) => r.status === 'sent')).toBe(true), WAIT);
    const rows = await messagesOf(user);
    expect(rows.map((r) => [r.event_id.split(':')[0], r.status, r.attempts])).toEqual([
      ['order.completed', 'sent', 1],
      ['order.cancelled', 'sent', 1],
      ['bulk.completed', 'sent', 1],
      ['fedex.completed', 'sent', 1],
      ['fedex.cancelled', 'sent', 1],
      ['deposit.credited', 'sent', 1],
    ]);
  });

  it('sends only the kinds of message the user chose', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    const chat = await linkChat(t.app, tg, user);
    const topics = {
      orderCompleted: false,
      orderDelivered: true,
      orderCancelled: true,
      labelRefunds: true,
      bulkCompleted: true,
      fedexOrders: true,
      pickups: true,
      deposits: true,
    };
    const saved = await t.app.inject({ method: 'PUT', url: '/api/v1/account/telegram', headers: user.headers, payload: { topics } });
    expect(saved.json()).toMatchObject({ message: TELEGRAM_SAVED, linked: true, topics });
    expect((await createOrder(user)).statusCode).toBe(200);
    expect((await createOrder(user, { ToName: REFUSED_RECEIVER })).statusCode).toBe(502);
    const [, cancelled] = await tg.sentTo(chat, 2);
    expect(cancelled).toMatch(/^Order \w{8} cancelled and refunded/);
    await telegramSettled(t.db, user.userId);
    expect((await messagesOf(user)).map((m) => [m.event_id.split(':')[0], m.status])).toEqual([['order.cancelled', 'sent']]);
    expect(tg.sent.filter((m) => m.chatId === chat)).toHaveLength(2);
    expect((await settingsOf(user)).topics).toEqual(topics);
  });

  it('sends an event at most once per chat, when its job runs twice or twice at once', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    const chat = await linkChat(t.app, tg, user);
    expect((await createOrder(user)).statusCode).toBe(200);
    await tg.sentTo(chat, 2);
    await vi.waitFor(async () => expect((await messagesOf(user)).map((m) => m.status)).toEqual(['sent']), WAIT);
    const [message] = await messagesOf(user);

    // Another queue on the same database / Redis: its jobs are run by the app's workers.
    const side = await createJobQueue(t.config, t.db, pino({ level: 'silent' }));
    try {
      const again = await side.enqueue(TELEGRAM_MESSAGE_JOB, { messageId: message.id }, { jobId: `again-${message.id}` });
      await vi.waitFor(async () => expect((await side.getJob(again))?.state).toBe('completed'), WAIT);

      // A message not sent yet, whose job is queued three times at once: one run claims and sends it.
      const at = new Date().toISOString();
      const fresh = {
        ...message,
        id: uniqueId('dup'),
        event_id: `test.duplicate:${uniqueId('e')}`,
        text: 'Once only',
        status: 'pending' as const,
        attempts: 0,
        sent_at: null,
        telegram_message_id: null,
        created_at: at,
        updated_at: at,
      };
      expect(await insertMessage(t.db, fresh)).toBe(true);
      // The same event for the same chat is recorded once (the idempotency key).
      expect(await insertMessage(t.db, { ...fresh, id: uniqueId('dup') })).toBe(false);
      const jobs = await Promise.all([1, 2, 3].map((n) => side.enqueue(TELEGRAM_MESSAGE_JOB, { messageId: fresh.id }, { jobId: `dup-${n}-${fresh.id}` })));
      await vi.waitFor(
        async () => expect(await Promise.all(jobs.map(async (id) => (await side.getJob(id))?.state))).toEqual(['completed', 'completed', 'completed']),
        WAIT,
      );
    } finally {
      await side.close();
    }
    // Every run of every job has ended (their states above): all they sent is in.
    expect((await tg.sentTo(chat, 3)).slice(1)).toEqual([expect.stringMatching(/^Order \w{8} completed/), 'Once only']);
    expect(tg.sent.filter((m) => m.chatId === chat)).toHaveLength(3);
  });

  it("waits Telegram's retry_after on a 429, then sends once", async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    const chat = await linkChat(t.app, tg, user);
    tg.failNextSends({ error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } });
    expect((await createOrder(user)).statusCode).toBe(200);
    await tg.sentTo(chat, 2);
    const calls = tg.sendCalls.filter((c) => c.chatId === chat).slice(1);
    expect(calls.map((c) => c.status)).toEqual([429, 200]);
    // Retries back off from 50 ms here: only retry_after explains the wait.
    expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(950);
    // The fake has answered; the job records it just after.
    await vi.waitFor(async () => expect((await messagesOf(user)).map((m) => [m.status, m.attempts])).toEqual([['sent', 2]]), WAIT);
  });

  it('retries other failures with backoff', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    const chat = await linkChat(t.app, tg, user);
    tg.failNextSends({ error_code: 502, description: 'Bad Gateway' }, { error_code: 502, description: 'Bad Gateway' });
    expect((await createOrder(user)).statusCode).toBe(200);
    await tg.sentTo(chat, 2);
    expect(tg.sendCalls.filter((c) => c.chatId === chat).map((c) => c.status)).toEqual([200, 502, 502, 200]);
    await vi.waitFor(async () => expect((await messagesOf(user)).map((m) => [m.status, m.attempts])).toEqual([['sent', 3]]), WAIT);
  });

  it('unlinks a chat that blocked the bot (403) and sends it nothing more', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    const chat = await linkChat(t.app, tg, user);
    tg.failNextSends({ error_code: 403, description: 'Forbidden: bot was blocked by the user' });
    expect((await createOrder(user)).statusCode).toBe(200);
    await vi.waitFor(async () => expect((await messagesOf(user)).map((m) => m.status)).toEqual(['dropped']), WAIT);
    expect((await settingsOf(user)).linked).toBe(false);
    expect((await createOrder(user)).statusCode).toBe(200);
    await telegramSettled(t.db, user.userId);
    expect(tg.sendCalls.filter((c) => c.chatId === chat).map((c) => c.status)).toEqual([200, 403]);
    expect(await messagesOf(user)).toHaveLength(1);
  });

  it('unlinks from Account Setting', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    await linkChat(t.app, tg, user);
    const res = await t.app.inject({ method: 'DELETE', url: '/api/v1/account/telegram', headers: user.headers });
    expect(res.json()).toMatchObject({ message: TELEGRAM_UNLINKED, linked: false, chatUsername: null, linkedAt: null });
    expect((await createOrder(user)).statusCode).toBe(200);
    await telegramSettled(t.db, user.userId);
    expect(await messagesOf(user)).toEqual([]);
  });
});

describe('a message job run twice at once', () => {
  let t: TestApp;
  let tg: FakeTelegram;
  beforeAll(async () => {
    tg = await startFakeTelegram();
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
    await tg?.close();
  });

  // Both engines take a job again from a worker whose lease ran out while it still runs (a starved process): two runs
  // of one job at once. The claim lets one send; the other must not end the job while the message is not done: the
  // holder's run may fail (a 429), and BullMQ refuses the retry of a run whose job another run completed (its lock
  // is gone), so the message would wait forever.
  it('sends once: the run that finds the message held throws to come back, and the held run fails and is retried', async () => {
    const user = await resellerUser(t.app, t.db, 0);
    const chat = newChatId();
    const at = new Date().toISOString();
    await t.db
      .insertInto('telegram_accounts')
      .values({ user_id: user.userId, chat_id: String(chat), chat_username: null, shop_url: null, muted: '[]', linked_at: at, created_at: at, updated_at: at })
      .execute();
    const id = uniqueId('twice');
    const message = {
      id,
      user_id: user.userId,
      chat_id: String(chat),
      event_id: `test.twice:${id}`,
      text: 'Held once',
      status: 'pending' as const,
      attempts: 0,
      last_error: null,
      telegram_message_id: null,
      sent_at: null,
      claimed_until: null,
      created_at: at,
      updated_at: at,
    };
    expect(await insertMessage(t.db, message)).toBe(true);
    const bot = createBot(tg.token, tg.apiRoot);
    const unused = {} as never;
    const telegram = createTelegramService({
      db: t.db,
      queue: {} as JobQueue,
      orders: unused,
      pickups: unused,
      bulk: unused,
      fedex: unused,
      log: pino({ level: 'silent' }),
      bot: { api: bot.api, username: tg.username },
      retryBaseMs: 50,
      claimMs: 10_000,
    });
    const statuses = () => tg.sendCalls.filter((c) => c.chatId === chat).map((c) => c.status);

    tg.sendDelayMs = 300;
    tg.failNextSends({ error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } });
    const first = telegram.deliver(id, { attempt: 1 });
    await vi.waitFor(async () => expect(statuses()).toEqual([429]), WAIT); // the first run holds it, waiting for the answer
    await expect(telegram.deliver(id, { attempt: 1 })).rejects.toBeInstanceOf(RetryLaterError);
    await expect(first).rejects.toMatchObject({ retryAfterMs: 1000 });
    tg.sendDelayMs = 0;
    const row = () => t.db.selectFrom('telegram_messages').select(['status', 'attempts', 'claimed_until']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(await row()).toEqual({ status: 'retrying', attempts: 1, claimed_until: null });
    await telegram.deliver(id, { attempt: 2 }); // either run's retry: the first to come sends
    await telegram.deliver(id, { attempt: 2 }); // the other finds it sent
    expect(statuses()).toEqual([429, 200]);
    expect(await row()).toEqual({ status: 'sent', attempts: 2, claimed_until: null });
  });
});

describe('without a bot configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('shows no bot, refuses the Telegram calls with 404, and orders go on', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/config' })).json().telegramBot).toBeNull();
    const user = await resellerUser(t.app, t.db, 10_000);
    for (const call of [
      { method: 'GET', url: '/api/v1/account/telegram' },
      { method: 'POST', url: '/api/v1/account/telegram/link' },
      { method: 'DELETE', url: '/api/v1/account/telegram' },
    ] as const) {
      const res = await t.app.inject({ ...call, headers: user.headers });
      expect({ url: call.url, status: res.statusCode, body: res.json() }).toEqual({ url: call.url, status: 404, body: { message: TELEGRAM_NOT_CONFIGURED } });
    }
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/telegram/webhook', payload: { update_id: 1 } })).statusCode).toBe(404);
    expect((await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields() })).statusCode).toBe(200);
  });
});

describe('Telegram settings', () => {
  it('needs both the token and the username, and a webhook URL on the webhook path', async () => {
    const { loadConfig } = await import('../../config.ts');
    expect(() => loadConfig({ TELEGRAM_BOT_TOKEN: '1:abc' })).toThrowError(/TELEGRAM_BOT_TOKEN, TELEGRAM_BOT_USERNAME: set both/);
    expect(() => loadConfig({ TELEGRAM_BOT_USERNAME: 'shop_bot' })).toThrowError(/TELEGRAM_BOT_TOKEN, TELEGRAM_BOT_USERNAME: set both/);
    expect(() => loadConfig({ TELEGRAM_WEBHOOK_URL: 'https://shop.example.com/api/v1/telegram/webhook' })).toThrowError(
      /TELEGRAM_WEBHOOK_URL: needs TELEGRAM_BOT_TOKEN/,
    );
    expect(() =>
      loadConfig({ TELEGRAM_BOT_TOKEN: '1:abc', TELEGRAM_BOT_USERNAME: 'shop_bot', TELEGRAM_WEBHOOK_URL: 'https://shop.example.com/hook' }),
    ).toThrowError(/TELEGRAM_WEBHOOK_URL: must end with the path \/api\/v1\/telegram\/webhook/);
    expect(loadConfig({ TELEGRAM_BOT_TOKEN: '1:abc', TELEGRAM_BOT_USERNAME: '@shop_bot', TELEGRAM_API_ROOT: 'http://127.0.0.1:8081/' })).toMatchObject({
      TELEGRAM_BOT_USERNAME: 'shop_bot',
      TELEGRAM_API_ROOT: 'http://127.0.0.1:8081',
      TELEGRAM_POLL_LEASE_MS: 30_000,
    });
    expect(loadConfig({}).TELEGRAM_API_ROOT).toBe('https://api.telegram.org');
  });
});
