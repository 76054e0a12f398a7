// Real postage across a crash: a shop process is killed with SIGKILL in the middle of a bulk order bought through
// EasyPost (the fake), and a new one finishes it. Every completed row was bought exactly once, refused rows never.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ORDERS_CREATED } from '@portal/contract';
import { engines } from './harness.ts';
import { fundedCustomer } from './customers.ts';
import { createFromCsv, csvText, readBulkOrders, usRows, validateCsv } from './bulk-fixtures.ts';
import { RATES_UNDER_PRICES, startEasyPostApp } from './easypost-fixtures.ts';
import { exited, freePort, killAll, untilServing } from './processes.ts';

const serverDir = path.resolve(import.meta.dirname, '..');
const ROWS = 40;
/** Rows whose address the upstream refuses. */
const REFUSED = [5, 17, 33];
/** The shop is killed once this many labels are bought. */
const BOUGHT_BEFORE_KILL = 8;

describe.each(engines)('EasyPost purchases across a kill -9, on the %s queue', (engine) => {
  const children: ChildProcess[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    await killAll(children);
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('a bulk order interrupted by SIGKILL is finished by a new process: one purchase per completed row, none for refused rows', async () => {
    // The test's own view of the shop: its database and users. It runs no jobs.
    const { t, fake, env: shopEnv, close } = await startEasyPostApp(engine, 'easypost-kill', () => ({ QUEUE_RUN_WORKERS: 'false' }));
    closers.push(close);
    // Slow enough upstream that the kill lands in the middle of the order.
    fake.latencyMs = 60;
    fake.rates = { ...RATES_UNDER_PRICES }; // the test is about buying, not about cost

    async function startShop(): Promise<ChildProcess> {
      const port = await freePort();
      const env: Record<string, string> = {
        ...(process.env as Record<string, string>),
        ...shopEnv,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: t.config.dataDir,
        WEB_DIST: path.join(t.config.dataDir, 'no-web'),
        LOG_LEVEL: 'error',
        LABEL_RENDER_THREADS: '0',
        QUEUE_RETRY_DELAY_MS: '200',
        // A dead process's job and rows are taken again after 2 s.
        QUEUE_STALLED_INTERVAL_MS: '2000',
        QUEUE_SWEEP_INTERVAL_MS: '1000',
        LABEL_CLAIM_MS: '2000',
        ORDER_POLL_INTERVAL_MS: '200',
      };
      delete env.DATABASE_URL;
      if (t.databaseUrl) env.DATABASE_URL = t.databaseUrl;
      if (engine === 'embedded') delete env.REDIS_URL;
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: serverDir, env, stdio: ['ignore', 'ignore', 'inherit'] });
      children.push(child);
      await untilServing(child, `http://127.0.0.1:${port}`, undefined, 90_000);
      return child;
    }

    const user = await fundedCustomer(t.app, 1_000_000, t.db);
    const rows = usRows(ROWS);
    for (const row of REFUSED) rows[row - 1].ToStreet = fake.unverifiableStreet;
    const file = csvText(rows);
    const validated = await validateCsv(t.app, user.headers, 'priority', file);
    const placed = await createFromCsv(t.app, user.headers, { type: 'priority', total_price: validated.json().totalPrice, design: 'evs' }, file);
    expect(placed.json()).toEqual({ message: ORDERS_CREATED });

    const first = await startShop();
    await expect.poll(() => fake.purchases >= BOUGHT_BEFORE_KILL, { timeout: 60_000, interval: 10, message: 'labels bought' }).toBe(true);
    first.kill('SIGKILL');
    await exited(first);
    const boughtAtKill = fake.purchases;
    expect(boughtAtKill).toBeLessThan(ROWS - REFUSED.length); // killed in the middle

    await startShop();
    await expect
      .poll(async () => ['completed', 'failed'].includes((await readBulkOrders(t.app, user.headers))[0]?.status ?? ''), {
        timeout: 90_000,
        interval: 10,
        message: 'the bulk order to finish',
      })
      .toBe(true);
    const [bulk] = await readBulkOrders(t.app, user.headers);
    expect(bulk).toMatchObject({ status: 'completed', totalOrders: ROWS, failedOrders: REFUSED.length });

    const orders = await t.db
      .selectFrom('orders')
      .select(['id', 'status', 'bulk_row', 'shipment_id', 'tracking'])
      .where('bulk_order_id', '=', bulk._id)
      .execute();
    const completed = orders.filter((o) => o.status === 'completed');
    expect(completed).toHaveLength(ROWS - REFUSED.length);
    expect(
      orders
        .filter((o) => o.status === 'cancelled')
        .map((o) => o.bulk_row)
        .sort((a, b) => a! - b!),
    ).toEqual(REFUSED);
    // Exactly one purchase per completed row, and its recorded Shipment is the one bought.
    expect(fake.purchases).toBe(completed.length);
    const bought = [...fake.shipments.values()].filter((s) => s.postage_label);
    expect(new Set(bought.map((s) => s.reference)).size).toBe(bought.length);
    for (const order of completed) expect(fake.shipments.get(order.shipment_id!)).toMatchObject({ reference: order.id, tracking_code: order.tracking });
    // No Shipment was ever bought a second time (the fake refuses that with 422, which would cancel a row).
    expect(fake.requests.filter((r) => r.endsWith('/buy')).length).toBe(completed.length);
  }, 240_000);
});
