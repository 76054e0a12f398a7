// Two upstreams across a crash: a shop process buying a bulk order at Shippo (the cheaper fake) is killed with SIGKILL;
// EasyPost becomes the cheaper one; a new process finishes the order. Rows whose upstream was chosen before the kill are
// asked of that upstream only; the rest are bought at EasyPost. Every row is bought exactly once in total, and the bulk
// order is charged once.
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { ORDERS_CREATED } from '@portal/contract';
import { engines } from './harness.ts';
import { fundedCustomer } from './customers.ts';
import { createFromCsv, csvText, readBulkOrders, usRows, validateCsv } from './bulk-fixtures.ts';
import { startUpstreamsApp } from './upstream-fixtures.ts';
import { exited, killAll, startShopChild } from './processes.ts';

const ROWS = 300;
/** The shop is killed once this many labels are bought. */
const BOUGHT_BEFORE_KILL = 60;

// Each database with one queue engine (SQLite with the embedded queue, PostgreSQL with BullMQ when Redis is here): the
// pair covers both, at half the time of every combination.
const engine = process.env.TEST_DB === 'postgres' ? engines[engines.length - 1] : 'embedded';
describe(`purchases at two upstreams across a kill -9, on the ${engine} queue`, () => {
  const children: ChildProcess[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    await killAll(children);
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('a bulk order interrupted by SIGKILL is finished by a new process: one purchase per row across both upstreams, one charge', async () => {
    // The test's own view of the shop: its database and users. It runs no jobs.
    const { t, easypost, shippo, env: shopEnv, close } = await startUpstreamsApp(engine, 'upstreams-kill', { QUEUE_RUN_WORKERS: 'false' });
    closers.push(close);
    // Slow enough upstreams that the kill lands in the middle of the order.
    easypost.latencyMs = 40;
    shippo.latencyMs = 40;

    // A purchase asked before the kill may land for 2 x the upstream timeout; no second purchase is asked before that.
    const startShop = () =>
      startShopChild(children, {
        dataDir: t.config.dataDir,
        databaseUrl: t.databaseUrl,
        engine,
        env: { ...shopEnv, QUEUE_RUN_WORKERS: 'true', EASYPOST_TIMEOUT_MS: '2000', SHIPPO_TIMEOUT_MS: '2000' },
      });

    const user = await fundedCustomer(t.app, 10_000_000, t.db);
    const file = csvText(usRows(ROWS));
    const validated = await validateCsv(t.app, user.headers, 'priority', file);
    const placed = await createFromCsv(t.app, user.headers, { type: 'priority', total_price: validated.json().totalPrice, design: 'evs' }, file);
    expect(placed.json()).toEqual({ message: ORDERS_CREATED });

    const first = await startShop();
    await expect.poll(() => shippo.purchases >= BOUGHT_BEFORE_KILL, { timeout: 60_000, interval: 10, message: 'labels bought at Shippo' }).toBe(true);
    first.kill('SIGKILL');
    await exited(first);
    expect(shippo.purchases).toBeLessThan(ROWS); // killed in the middle
    // Not asserted: none at EasyPost yet. On a loaded machine Shippo's backlog can pass its wait, and the upstream list
    // then buys a row at EasyPost (CI, 2026-11-30): legitimate, and the checks below hold either way.
    // EasyPost is the cheaper upstream from now on.
    easypost.rates.Priority = '3.00';

    await startShop();
    await expect
      .poll(async () => ['completed', 'failed'].includes((await readBulkOrders(t.app, user.headers))[0]?.status ?? ''), {
        timeout: 120_000,
        interval: 20,
        message: 'the bulk order to finish',
      })
      .toBe(true);
    const [bulk] = await readBulkOrders(t.app, user.headers);
    expect(bulk).toMatchObject({ status: 'completed', totalOrders: ROWS, failedOrders: 0 });

    const orders = await t.db.selectFrom('orders').select(['id', 'status', 'provider', 'upstream_ref']).where('bulk_order_id', '=', bulk._id).execute();
    expect(orders.filter((o) => o.status === 'completed')).toHaveLength(ROWS);
    // Exactly one purchase per row in total, at the upstream the order names.
    for (const order of orders) {
      const atEasyPost = easypost.purchasesFor.get(order.id) ?? 0;
      const atShippo = shippo.purchasesFor.get(order.id) ?? 0;
      expect({ id: order.id, total: atEasyPost + atShippo, at: atEasyPost ? 'easypost' : 'shippo' }).toEqual({ id: order.id, total: 1, at: order.provider });
    }
    expect(easypost.purchases + shippo.purchases).toBe(ROWS);
    expect(easypost.purchases).toBeGreaterThan(0); // the second process bought the rest at EasyPost
    // One charge for the bulk order, none refunded.
    const ledger = await t.db.selectFrom('ledger').select(['kind']).where('user_id', '=', user.userId).where('kind', '!=', 'adjustment').execute();
    expect(ledger.map((l) => l.kind)).toEqual(['bulk_charge']);
  }, 300_000);
});
