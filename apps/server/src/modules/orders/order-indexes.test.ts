import { CompiledQuery, sql, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testDbKind, type TestApp } from '../../../test/harness.ts';
import { orderPayload } from '../../../test/order-fixtures.ts';
import { fundedCustomer } from '../../../test/customers.ts';
import { newId } from '../../lib/ids.ts';
import { insertBulkOrder } from '../bulk/repository.ts';
import { claimableOrders, insertOrders, type OrderRow } from './repository.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ LABEL_SANDBOX_MODE: 'processing', LABEL_SANDBOX_DELAY_MS: '3600000' });
});
afterAll(() => t.close());

/** A waiting single order of a new customer, and `rows` rows of a bulk order of theirs. */
async function ordersOfNewCustomer(rows: number): Promise<{ single: OrderRow; bulk: OrderRow[] }> {
  const user = await fundedCustomer(t.app, 100_000, t.db);
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
  expect(res.statusCode, res.body).toBe(200);
  const single = await t.db.selectFrom('orders').selectAll().where('user_id', '=', user.userId).executeTakeFirstOrThrow();
  const bulkId = newId();
  const at = single.created_at;
  await insertBulkOrder(t.db, {
    ...{
      id: bulkId,
      user_id: user.userId,
      label_type_id: single.label_type_id,
      label_type_uid: single.label_type_uid,
      label_type_name: single.label_type_name,
      design: single.design,
    },
    ...{
      status: 'processing',
      job_attempts: 0,
      total_orders: rows,
      total_cents: 0,
      progress: 0,
      job_id: null,
      input_key: 'bulk/x.csv',
      report_key: null,
      pdf_key: null,
      zip_key: null,
    },
    ...{ made_orders: 0, failed_orders: 0, refunded_cents: 0, note: null, created_at: at, updated_at: at, completed_at: null },
  });
  const bulk = Array.from({ length: rows }, (_, i) => ({ ...single, id: newId(), tracking_token: null, bulk_order_id: bulkId, bulk_row: i + 1 }));
  await t.db.transaction().execute((trx) => insertOrders(trx, bulk));
  return { single, bulk };
}

describe('order indexes', () => {
  it('keep one order per bulk row', async () => {
    const { bulk } = await ordersOfNewCustomer(2);
    await expect(
      t.db
        .insertInto('orders')
        .values({ ...bulk[1], id: newId(), tracking_token: null })
        .execute(),
    ).rejects.toThrow(/unique|duplicate/i);
    await t.db
      .insertInto('orders')
      .values({ ...bulk[1], id: newId(), tracking_token: null, bulk_row: 3 })
      .execute();
  });

  it('give the completion sweep the waiting single orders, found by status (SQLite once read every single order through the bulk-row key)', async () => {
    const { single, bulk } = await ordersOfNewCustomer(3);
    await t.db
      .updateTable('orders')
      .set({ claimed_until: null })
      .where('id', 'in', [single.id, ...bulk.map((o) => o.id)])
      .execute();
    // The sweep's own query, as the database is asked it (captured on its way to the driver).
    let asked: RootOperationNode | undefined;
    const capture: KyselyPlugin = { transformQuery: ({ node }) => (asked = node), transformResult: async ({ result }) => result };
    const due = await claimableOrders(t.db.withPlugin(capture), new Date().toISOString(), 1000);
    expect(due.map((o) => o.id)).toContain(single.id);
    expect(due.filter((o) => o.bulk_order_id !== null)).toEqual([]);
    if (testDbKind !== 'sqlite') return; // PostgreSQL keeps NULL statistics and never took that path
    const query = t.db.getExecutor().compileQuery(asked!, { queryId: 'plan' });
    const { rows } = await t.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
    expect(rows.map((r) => r.detail).join('\n')).not.toMatch(/orders_bulk_row/);
  });

  it.runIf(testDbKind === 'postgres')(
    'are planned on PostgreSQL as if the tables were in memory: a page read at random costs little more than one read in turn',
    async () => {
      // At 100,000 orders a customer owning a tenth of them had their page read by walking orders_created and testing
      // each order's owner (100 orders for 10) instead of from orders_user_created: random reads were costed at 4.
      const { rows } = await sql<{ random_page_cost: string }>`show random_page_cost`.execute(t.db);
      expect(rows[0].random_page_cost).toBe('1.1');
    },
  );
});
