import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { WAIT } from '../../../test/basics.ts';
import { sql } from 'kysely';
import { createTestDb, startTestApp, type TestApp } from '../../../test/harness.ts';
import { isPostgres, migrateToLatest } from '../../db/database.ts';
import { eventRow, recordEvents } from '../../lib/shop-events.ts';
import { callApi, labelFields, resellerUser } from '../../../test/reseller-fixtures.ts';
import { startReceiver } from '../../../test/webhook-receiver.ts';

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
  // The sweep runs every 200 ms, and takes events 200 ms old.
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true', QUEUE_SWEEP_INTERVAL_MS: '200' });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const events = (userId: string) => t.db.selectFrom('shop_events').select(['id', 'type']).where('user_id', '=', userId).execute();
const deliveries = (userId: string) =>
  t.db.selectFrom('webhook_deliveries').select(['id', 'event_id', 'status', 'attempts']).where('user_id', '=', userId).execute();
const postsFor = (eventId: string) => receiver.received.filter((r) => (JSON.parse(r.body) as { id: string }).id === eventId);

it('an event its process never dispatched is dispatched by the sweep, and an event dispatched again makes nothing twice', async () => {
  const user = await resellerUser(t.app, t.db, 10_000);
  await t.app.inject({ method: 'PUT', url: '/api/v1/account/webhook', headers: user.headers, payload: { url: receiver.url } });
  const order = (await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields() })).json().order as { id: string };
  const eventId = `order.completed-${order.id}`;
  await vi.waitFor(async () => expect((await deliveries(user.userId)).map((d) => d.status)).toEqual(['delivered']), WAIT);
  expect(await events(user.userId)).toEqual([]);
  const [delivered] = await deliveries(user.userId);

  // As if a process had died after writing its event (the order's, again) and before dispatching it.
  await recordEvents(t.db, [eventRow({ type: 'order.completed', userId: user.userId, orderId: order.id }, new Date().toISOString())]);
  await vi.waitFor(async () => expect(await events(user.userId)).toEqual([]), WAIT);
  expect(await deliveries(user.userId)).toEqual([delivered]);

  // As if it had died after recording the delivery of a new event and before queueing it: the sweep queues it.
  const bulkEvent = {
    ...delivered,
    id: `${delivered.id}-x`,
    event_id: 'bulk.completed-test',
    event_type: 'bulk.completed',
    status: 'pending' as const,
    attempts: 0,
  };
  const at = new Date(Date.now() - 1000).toISOString();
  const row = await t.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', delivered.id).executeTakeFirstOrThrow();
  await t.db
    .insertInto('webhook_deliveries')
    .values({
      ...row,
      ...bulkEvent,
      payload: row.payload.replace(eventId, 'bulk.completed-test'),
      delivered_at: null,
      last_status_code: null,
      last_attempt_at: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  await vi.waitFor(
    async () =>
      expect((await deliveries(user.userId)).map((d) => [d.event_id, d.status]).sort()).toEqual([
        ['bulk.completed-test', 'delivered'],
        [eventId, 'delivered'],
      ]),
    WAIT,
  );
  expect(postsFor(eventId)).toHaveLength(1);
  expect(postsFor('bulk.completed-test')).toHaveLength(1);
});

it('an order the balance cannot cover writes no event', async () => {
  const user = await resellerUser(t.app, t.db, 100);
  await t.app.inject({ method: 'PUT', url: '/api/v1/account/webhook', headers: user.headers, payload: { url: receiver.url } });
  expect((await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields() })).statusCode).toBe(402);
  expect(await t.db.selectFrom('orders').select('id').where('user_id', '=', user.userId).execute()).toEqual([]);
  expect(await events(user.userId)).toEqual([]);
  expect(await deliveries(user.userId)).toEqual([]);
});

it('its migration goes down (no outbox, no Telegram claims) and up again', async () => {
  const { db, drop } = await createTestDb();
  try {
    // A table's columns in this test's database alone (PostgreSQL: the connection's current schema). Kysely's
    // introspection reads every schema's tables, and failed when another test dropped its own schema meanwhile.
    const columns = async (table: string) => {
      const { rows } = isPostgres(db)
        ? await sql<{ name: string }>`select column_name as name from information_schema.columns
            where table_schema = current_schema() and table_name = ${table} order by ordinal_position`.execute(db)
        : await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
      return rows.length > 0 ? rows.map((r) => r.name) : undefined;
    };
    expect(await columns('shop_events')).toEqual(['id', 'type', 'user_id', 'subject_id', 'data', 'created_at']);
    expect(await columns('telegram_messages')).toContain('claimed_until');
    await migrateToLatest(db, '2026-11-28-20-revoked-tokens');
    expect(await columns('shop_events')).toBeUndefined();
    expect(await columns('telegram_messages')).not.toContain('claimed_until');
    await migrateToLatest(db);
    expect(await columns('shop_events')).toHaveLength(6);
    await sql`insert into shop_events (id, type, user_id, subject_id, data, created_at) values ('a:b', 'a', 'u', 'b', null, 'now')`.execute(db);
  } finally {
    await drop();
  }
});
