import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { orderPayload } from '../../../test/order-fixtures.ts';
import { fundedCustomer } from '../../../test/customers.ts';
import { newId } from '../../lib/ids.ts';
import { listAllOrders } from './repository.ts';
import { cancelOrder, insertOrders, markAllCompleted, type OrderRow } from './repository.ts';

// The history's and the console's totals come from settled_order_counts, which triggers keep (2026-11-24-30
// migration), and the waiting orders counted: after every kind of write the kept counts must equal the settled
// orders counted one by one.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ LABEL_SANDBOX_MODE: 'processing', LABEL_SANDBOX_DELAY_MS: '3600000' });
});
afterAll(() => t.close());

async function kept(): Promise<string[]> {
  const rows = await t.db
    .selectFrom('settled_order_counts')
    .select(['user_id', 'status', 'total'])
    .where('total', '<>', 0)
    .orderBy('user_id')
    .orderBy('status')
    .execute();
  return rows.map((r) => `${r.user_id} ${r.status} ${Number(r.total)}`);
}

async function counted(): Promise<string[]> {
  const { rows } = await sql<{
    user_id: string;
    status: string;
    n: number;
  }>`select user_id, status, count(*) as n from orders where status in ('completed', 'cancelled') group by user_id, status order by user_id, status`.execute(
    t.db,
  );
  return rows.map((r) => `${r.user_id} ${r.status} ${Number(r.n)}`);
}

describe('settled order counts', () => {
  it('follow every insert, status change and delete, and give the history its totals', async () => {
    const user = await fundedCustomer(t.app, 100_000, t.db);
    const other = await fundedCustomer(t.app, 100_000, t.db);
    for (const who of [user, user, user, user, other]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: who.headers });
      expect(res.statusCode, res.body).toBe(200);
    }
    expect(await kept()).toEqual(await counted());

    const mine = await t.db.selectFrom('orders').selectAll().where('user_id', '=', user.userId).orderBy('created_at').execute();
    // Two completed in one statement, one cancelled, a claim that changes no status.
    await markAllCompleted(
      t.db,
      mine.slice(0, 2).map((o, i) => ({ id: o.id, tracking: `94055000000000000000${i}`, pdfKey: 'labels/x.pdf' })),
      new Date().toISOString(),
    );
    expect(await cancelOrder(t.db, mine[2].id, 'test', new Date().toISOString())).toBe(true);
    await t.db.updateTable('orders').set({ claimed_until: null }).where('user_id', '=', user.userId).execute();
    // A bulk order's rows in one insert, and a row deleted.
    const rows: OrderRow[] = Array.from({ length: 300 }, (_, i) => ({
      ...mine[3],
      id: newId(),
      tracking_token: null,
      bulk_row: i + 1,
      created_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    }));
    await t.db.transaction().execute((trx) => insertOrders(trx, rows));
    await t.db.deleteFrom('orders').where('id', '=', rows[0].id).execute();
    expect(await kept()).toEqual(await counted());

    const total = async (query: string) =>
      (await t.app.inject({ method: 'GET', url: `/api/v1/order/read?limit=10${query}`, headers: user.headers })).json().total;
    expect(await total('')).toBe(4 + 299);
    expect(await total('&status=completed')).toBe(2);
    expect(await total('&status=cancelled')).toBe(1);
    expect(await total('&status=processing')).toBe(1 + 299);
    expect(await total('&status=pending')).toBe(0);
    // The console's totals over every customer.
    const everyone = async (status?: 'completed' | 'processing') => (await listAllOrders(t.db, { status }, { offset: 0, limit: 1 })).total;
    const all = async (status?: string) =>
      Number((await sql<{ n: number }>`select count(*) as n from orders where ${status ? sql`status = ${status}` : sql`1 = 1`}`.execute(t.db)).rows[0].n);
    expect(await everyone()).toBe(await all());
    expect(await everyone('completed')).toBe(await all('completed'));
    expect(await everyone('processing')).toBe(await all('processing'));
  });

  it('stay right under concurrent orders of one customer (no lost update, no deadlock)', async () => {
    const user = await fundedCustomer(t.app, 100_000, t.db);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers })),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const mine = await t.db.selectFrom('orders').select('id').where('user_id', '=', user.userId).execute();
    await Promise.all([
      markAllCompleted(
        t.db,
        mine.slice(0, 10).map((o, i) => ({ id: o.id, tracking: `9405511111111111111${String(i).padStart(3, '0')}`, pdfKey: 'labels/x.pdf' })),
        new Date().toISOString(),
      ),
      ...mine.slice(10, 15).map((o) => cancelOrder(t.db, o.id, 'test', new Date().toISOString())),
      ...Array.from({ length: 5 }, () =>
        t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers }),
      ),
    ]);
    expect(await kept()).toEqual(await counted());
  });
});
