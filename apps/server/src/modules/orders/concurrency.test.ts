import { afterAll, beforeAll, expect, it } from 'vitest';
import { INSUFFICIENT_BALANCE, ledgerSumCents } from '../billing/service.ts';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { balanceOf, orderPayload } from '../../../test/order-fixtures.ts';
import { fundedCustomer } from '../../../test/customers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

it('50 parallel orders on a balance that covers exactly 10: 10 orders, balance 0.00, never negative, ledger equal to balance', async () => {
  const probe = await fundedCustomer(t.app, 0, t.db);
  const price = (
    await t.app.inject({ method: 'POST', url: '/api/v1/order/price', payload: { labelType: 'priority', weight: 2 }, headers: probe.headers })
  ).json().price;
  const user = await fundedCustomer(t.app, 10 * Math.round(price * 100), t.db);

  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority', { ToName: `Parallel ${i}` }), headers: user.headers }),
    ),
  );
  expect(results.filter((r) => r.statusCode === 200)).toHaveLength(10);
  const refused = results.filter((r) => r.statusCode !== 200);
  expect(refused).toHaveLength(40);
  for (const r of refused) {
    expect(r.statusCode).toBe(402);
    expect(r.json()).toEqual({ message: INSUFFICIENT_BALANCE });
  }

  expect(await balanceOf(t.app, user.headers)).toBe(0);
  const orders = await t.db.selectFrom('orders').select(['id', 'status']).where('user_id', '=', user.userId).execute();
  expect(orders).toHaveLength(10);
  expect(orders.every((o) => o.status === 'completed')).toBe(true);
  expect((await t.app.inject({ method: 'GET', url: '/api/v1/order/read', headers: user.headers })).json().total).toBe(10);
  const ledger = await t.db.selectFrom('ledger').selectAll().where('user_id', '=', user.userId).execute();
  expect(ledger.filter((row) => row.kind === 'order_charge')).toHaveLength(10);
  expect(ledger.every((row) => Number(row.balance_after_cents) >= 0)).toBe(true);
  expect(await ledgerSumCents(t.db, user.userId)).toBe(0);
  const stored = await t.db.selectFrom('users').select('balance_cents').where('id', '=', user.userId).executeTakeFirstOrThrow();
  expect(Number(stored.balance_cents)).toBe(0);
});
