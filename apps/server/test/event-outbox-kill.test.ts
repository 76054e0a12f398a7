// The shop's events across a crash: a server process is killed while it places orders and tells their events to a
// webhook receiver and a Telegram chat; a new process finishes what it left. Every event reaches each receiver.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ledgerSumCents } from '../src/modules/billing/service.ts';
import { startFakeTelegram, type FakeTelegram } from './fake-telegram.ts';
import { dropRedisPrefix, startTestApp, type TestApp } from './harness.ts';
import { orderPayload } from './order-fixtures.ts';
import { fundedCustomer } from './customers.ts';
import { exited, freePort, killAll, untilServing } from './processes.ts';
import { startReceiver } from './webhook-receiver.ts';
import { uniqueId } from './basics.ts';

const engines = ['embedded', ...(process.env.TEST_REDIS_URL ? ['bullmq'] : [])] as const;
const serverDir = path.resolve(import.meta.dirname, '..');
const USERS = 3;
/** Orders placed at once for each user while the shop runs. */
const LANES = 2;
/** The shop is killed once this many more orders are in, and events wait in its outbox. */
const ORDERS_BEFORE_KILL = 15;
/** Kills tried until one leaves events in the outbox (each kill lands somewhere in the shop's work). */
const MAX_KILLS = 5;
/** How long a receiver takes to answer: deliveries and messages are in flight when the shop dies. */
const ANSWER_MS = 25;

describe.each(engines)('events across a kill, on the %s queue', (engine) => {
  const prefix = uniqueId('test-outbox-kill');
  const children: ChildProcess[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    await killAll(children);
    for (const close of closers.splice(0).reverse()) await close();
    if (engine === 'bullmq') await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  });

  it('every event reaches the webhook once by its id and the chat once, whatever the kill interrupted', async () => {
    const tg: FakeTelegram = await startFakeTelegram({ sendDelayMs: ANSWER_MS });
    closers.push(() => tg.close());
    const receiver = await startReceiver([], { answerMs: ANSWER_MS });
    closers.push(() => receiver.close());
    // The test's own view of the shop: its database, its users. It runs no jobs and places no orders.
    const redis: Record<string, string> = engine === 'bullmq' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix } : {};
    const t: TestApp = await startTestApp({ QUEUE_RUN_WORKERS: 'false', WEBHOOK_ALLOW_PRIVATE: 'true', ...redis });
    closers.push(() => t.close());
    const db = t.db;

    const users: (Awaited<ReturnType<typeof fundedCustomer>> & { chatId: number })[] = [];
    for (let i = 0; i < USERS; i++) {
      const user = await fundedCustomer(t.app, 1_000_000, db);
      const saved = await t.app.inject({ method: 'PUT', url: '/api/v1/account/webhook', headers: user.headers, payload: { url: receiver.url } });
      expect(saved.statusCode).toBe(200);
      const chatId = 8_000_000_000 + process.pid * 10 + i;
      const at = new Date().toISOString();
      await db
        .insertInto('telegram_accounts')
        .values({
          user_id: user.userId,
          chat_id: String(chatId),
          chat_username: `kill_${i}`,
          shop_url: 'https://shop.example.com',
          muted: '[]',
          linked_at: at,
          created_at: at,
          updated_at: at,
        })
        .execute();
      users.push({ ...user, chatId });
    }
    const userIds = users.map((u) => u.userId);

    /** `npm start`'s entry in its own process on the test's database and files (web, jobs and sweeps in one). */
    async function startShop(): Promise<{ child: ChildProcess; url: string }> {
      const port = await freePort();
      const env: Record<string, string> = {
        ...(process.env as Record<string, string>),
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: t.config.dataDir,
        WEB_DIST: path.join(t.config.dataDir, 'no-web'),
        LOG_LEVEL: 'error',
        LABEL_RENDER_THREADS: '0',
        RATE_LIMIT_MAX: '1000',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_BASE_MS: '200',
        QUEUE_RETRY_DELAY_MS: '200',
        // A dead process's jobs and Telegram claims are taken again after 2 s; the sweep runs every second.
        QUEUE_STALLED_INTERVAL_MS: '2000',
        QUEUE_SWEEP_INTERVAL_MS: '1000',
        TELEGRAM_BOT_TOKEN: tg.token,
        TELEGRAM_BOT_USERNAME: tg.username,
        TELEGRAM_API_ROOT: tg.apiRoot,
        TELEGRAM_POLL_LEASE_MS: '1000',
        ...redis,
      };
      delete env.DATABASE_URL;
      if (t.databaseUrl) env.DATABASE_URL = t.databaseUrl;
      if (engine === 'embedded') delete env.REDIS_URL;
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: serverDir, env, stdio: ['ignore', 'ignore', 'inherit'] });
      children.push(child);
      const url = `http://127.0.0.1:${port}`;
      await untilServing(child, url, undefined, 90_000);
      return { child, url };
    }

    /** Each user's lanes place orders one after another until the shop stops answering. */
    const placeOrders = (url: string) =>
      Promise.all(
        users.flatMap((user) =>
          Array.from({ length: LANES }, async () => {
            for (;;) {
              const answer = await fetch(`${url}/api/v1/order/create`, {
                method: 'POST',
                headers: { ...user.headers, 'content-type': 'application/json' },
                body: JSON.stringify(orderPayload('priority', { ToName: `Kill ${uniqueId('x')}` })),
              }).catch(() => null);
              if (!answer) return;
              if (answer.status !== 200) throw new Error(`an order was refused: ${answer.status} ${await answer.text()}`);
            }
          }),
        ),
      );
    const count = async (table: 'orders' | 'shop_events') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('user_id', 'in', userIds)
            .executeTakeFirstOrThrow()
        ).n,
      );

    // Killed while it works, once events wait in its outbox: committed with their orders, not yet dispatched. A kill
    // that finds none (each is dispatched within milliseconds) is tried again on a new shop.
    let leftInOutbox = 0;
    const heldAtKill = new Set<string>();
    for (let kills = 0; leftInOutbox === 0 && kills < MAX_KILLS; kills++) {
      const shop = await startShop();
      const placing = placeOrders(shop.url);
      const target = (await count('orders')) + ORDERS_BEFORE_KILL;
      await expect
        .poll(async () => (await count('orders')) >= target && (await count('shop_events')) > 0, {
          timeout: 60_000,
          interval: 10,
          message: 'orders with events waiting',
        })
        .toBe(true);
      shop.child.kill('SIGKILL');
      await exited(shop.child);
      await placing;
      leftInOutbox = await count('shop_events');
      // Telegram messages the dead shop held while sending: they may have reached the chat, and are sent again.
      for (const m of await db.selectFrom('telegram_messages').select('event_id').where('user_id', 'in', userIds).where('status', '=', 'sending').execute())
        heldAtKill.add(m.event_id);
    }
    expect(leftInOutbox).toBeGreaterThan(0);

    // A new shop finishes what the dead one left, and takes new orders meanwhile.
    const shop = await startShop();
    for (const user of users) {
      const answer = await fetch(`${shop.url}/api/v1/order/create`, {
        method: 'POST',
        headers: { ...user.headers, 'content-type': 'application/json' },
        body: JSON.stringify(orderPayload('priority')),
      });
      expect(answer.status).toBe(200);
    }
    const orders = await db.selectFrom('orders').select(['id', 'user_id', 'status']).where('user_id', 'in', userIds).execute();
    expect(orders.every((o) => o.status === 'completed')).toBe(true);
    const open = async () => ({
      events: await count('shop_events'),
      deliveries: (await db.selectFrom('webhook_deliveries').select('id').where('user_id', 'in', userIds).where('status', '=', 'delivered').execute()).length,
      messages: (await db.selectFrom('telegram_messages').select('id').where('user_id', 'in', userIds).where('status', '=', 'sent').execute()).length,
    });
    await expect
      .poll(async () => JSON.stringify(await open()) === JSON.stringify({ events: 0, deliveries: orders.length, messages: orders.length }), {
        timeout: 90_000,
        interval: 10,
        message: 'every event delivered',
      })
      .toBe(true);

    // The webhook: every order's event arrived, always under the same delivery id; a receiver keeping the first of
    // each id (as the docs ask) has each event once. A POST the dead shop had sent and not heard back from comes again.
    const expected = orders.map((o) => `order.completed-${o.id}`).sort();
    const posts = receiver.received.map((r) => ({ delivery: String(r.headers['x-portal-delivery']), eventId: (JSON.parse(r.body) as { id: string }).id }));
    expect([...new Set(posts.map((r) => r.eventId))].sort()).toEqual(expected);
    const deliveryOf = new Map<string, Set<string>>();
    for (const r of posts) deliveryOf.set(r.eventId, (deliveryOf.get(r.eventId) ?? new Set()).add(r.delivery));
    expect([...deliveryOf.values()].filter((ids) => ids.size !== 1)).toEqual([]);
    const stored = await db.selectFrom('webhook_deliveries').select(['id', 'event_id']).where('user_id', 'in', userIds).execute();
    expect(new Map(stored.map((d) => [d.event_id, d.id]))).toEqual(new Map([...deliveryOf].map(([eventId, ids]) => [eventId, [...ids][0]])));

    // Telegram: each order's message reached its chat once, except those the dead shop held while sending (at most
    // one a job at once): Telegram may have taken one before the kill, and it is sent again.
    const chats = new Map(users.map((u) => [u.chatId, u.userId]));
    const sentFor = new Map<string, number>();
    for (const m of tg.sent.filter((s) => chats.has(s.chatId))) {
      const short = /^Order (\w{8}) completed/.exec(m.text)?.[1];
      expect(short).toBeDefined();
      sentFor.set(short!, (sentFor.get(short!) ?? 0) + 1);
    }
    const shortOf = (id: string) => id.slice(0, 8).toUpperCase();
    expect(orders.filter((o) => !sentFor.has(shortOf(o.id)))).toEqual([]);
    const twice = orders.filter((o) => sentFor.get(shortOf(o.id))! > 1);
    expect(twice.filter((o) => !heldAtKill.has(`order.completed:${o.id}`) || sentFor.get(shortOf(o.id))! > 2)).toEqual([]);
    expect(sentFor.size).toBe(orders.length);

    // Money: each order charged once, the ledger and the balance agree.
    for (const user of users) {
      const charges = await db.selectFrom('ledger').select('reference').where('user_id', '=', user.userId).where('kind', '=', 'order_charge').execute();
      expect(charges.length).toBe(orders.filter((o) => o.user_id === user.userId).length);
      const balance = await db.selectFrom('users').select('balance_cents').where('id', '=', user.userId).executeTakeFirstOrThrow();
      expect(await ledgerSumCents(db, user.userId)).toBe(Number(balance.balance_cents));
    }
    console.log(
      `[${engine}] ${orders.length} orders; ${leftInOutbox} events left in the outbox at the kill, ${heldAtKill.size} Telegram messages held, ${twice.length} sent twice; ${receiver.received.length - expected.length} webhook POSTs repeated`,
    );
  }, 240_000);
});
