// Real postage across a crash: a shop process is killed with SIGKILL in the middle of a bulk order bought through
// EasyPost (the fake), and a new one finishes it. Every completed row was bought exactly once, refused rows never.
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ORDERS_CREATED } from '@portal/contract';
import { engines } from './harness.ts';
import { orderPayload } from './order-fixtures.ts';
import { fundedCustomer } from './customers.ts';
import { createFromCsv, csvText, readBulkOrders, usRows, validateCsv } from './bulk-fixtures.ts';
import { RATES_UNDER_PRICES, startEasyPostApp } from './easypost-fixtures.ts';
import { exited, killAll, startShopChild } from './processes.ts';

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

    const startShop = () => startShopChild(children, { dataDir: t.config.dataDir, databaseUrl: t.databaseUrl, engine, env: shopEnv });

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
      .select(['id', 'status', 'bulk_row', 'upstream_ref', 'tracking'])
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
    for (const order of completed) expect(fake.shipments.get(order.upstream_ref!)).toMatchObject({ reference: order.id, tracking_code: order.tracking });
    // No Shipment was ever bought a second time (the fake refuses that with 422, which would cancel a row).
    expect(fake.requests.filter((r) => r.endsWith('/buy')).length).toBe(completed.length);
  }, 240_000);

  it('a SCAN form whose process is killed while the upstream makes it is found there by the next process: one form', async () => {
    const {
      t,
      fake,
      env: shopEnv,
      close,
    } = await startEasyPostApp(engine, 'easypost-kill-form', () => ({
      QUEUE_RUN_WORKERS: 'false',
      // A dead process's hold on the form runs out after a second.
      LABEL_CLAIM_MS: '1000',
      ORDER_POLL_INTERVAL_MS: '100',
    }));
    closers.push(close);
    fake.rates = { ...RATES_UNDER_PRICES };
    const startShop = () => startShopChild(children, { dataDir: t.config.dataDir, databaseUrl: t.databaseUrl, engine, env: shopEnv });
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const orderNow = (id: string) => t.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const labels: Awaited<ReturnType<typeof orderNow>>[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
      expect(res.json()).toMatchObject({ message: expect.any(String) });
      labels.push(await orderNow(res.json().orderId));
    }
    expect(labels.map((l) => l.status)).toEqual(['completed', 'completed']);
    // The upstream holds the form's call until the process that asked is dead; then it makes the form, and its answer is lost.
    let release = () => {};
    fake.faults.push({ kind: 'slow', on: 'form', count: 1, until: new Promise<void>((resolve) => (release = resolve)) });
    const asked = await t.app.inject({ method: 'POST', url: '/api/v1/scan-form', payload: { orderIds: labels.map((l) => l.id) }, headers: user.headers });
    const formId: string = asked.json().forms[0]._id;
    const first = await startShop();
    await expect.poll(() => fake.requests.includes('POST /v2/scan_forms'), { timeout: 30_000, interval: 10, message: 'the form asked upstream' }).toBe(true);
    first.kill('SIGKILL');
    await exited(first);
    release();
    const ours = () => [...fake.scanForms.values()].filter((f) => labels.some((l) => f.tracking_codes.includes(l.tracking)));
    await expect.poll(() => ours().length, { timeout: 10_000, interval: 10, message: 'the form made upstream' }).toBe(1);

    await startShop();
    const form = await vi.waitFor(
      async () => {
        const row = await t.db.selectFrom('scan_forms').selectAll().where('id', '=', formId).executeTakeFirstOrThrow();
        if (row.status === 'creating') throw new Error('still creating');
        return row;
      },
      { timeout: 30_000, interval: 25 },
    );
    expect(form).toMatchObject({ status: 'created', upstream_ref: ours()[0].id, label_count: 2 });
    expect(ours()).toHaveLength(1);
    expect(fake.requests.filter((r) => r === 'POST /v2/scan_forms')).toHaveLength(1);
    for (const label of labels)
      expect((await t.db.selectFrom('orders').select('scan_form_id').where('id', '=', label.id).executeTakeFirstOrThrow()).scan_form_id).toBe(formId);
    const pdf = await t.app.inject({ method: 'GET', url: `/api/v1/scan-form/${formId}/pdf`, headers: user.headers });
    expect(pdf.statusCode).toBe(200);
  }, 120_000);

  it('a pickup whose process is killed while the upstream books it is found booked by the next process: booked and charged once', async () => {
    const { t, fake, env: shopEnv, close } = await startEasyPostApp(engine, 'easypost-kill-pickup', () => ({ QUEUE_RUN_WORKERS: 'false' }));
    closers.push(close);
    fake.rates = { ...RATES_UNDER_PRICES };
    const startShop = () => startShopChild(children, { dataDir: t.config.dataDir, databaseUrl: t.databaseUrl, engine, env: shopEnv });
    const user = await fundedCustomer(t.app, 20_000, t.db);
    const label = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('ups_standard'), headers: user.headers });
    const rated = await t.app.inject({
      method: 'POST',
      url: '/api/v1/pickup/rates',
      headers: user.headers,
      payload: {
        orderIds: [label.json().orderId],
        minDatetime: new Date(Date.now() + 20 * 3_600_000).toISOString(),
        maxDatetime: new Date(Date.now() + 24 * 3_600_000).toISOString(),
      },
    });
    const pickupId: string = rated.json().pickup._id;
    // The upstream holds the purchase until the process that asked is dead; then it books it, and its answer is lost.
    let release = () => {};
    fake.faults.push({ kind: 'slow', on: 'pickup-buy', count: 1, until: new Promise<void>((resolve) => (release = resolve)) });
    const first = await startShop();
    const asked = fetch(`${first.url}/api/v1/pickup`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ pickupId, service: 'Same-Day Pickup' }),
    }).catch(() => null);
    await expect
      .poll(() => fake.requests.some((r) => /^POST \/v2\/pickups\/[^/]+\/buy$/.test(r)), { timeout: 30_000, interval: 10, message: 'the purchase asked' })
      .toBe(true);
    first.kill('SIGKILL');
    await exited(first);
    await asked;
    release();
    const upstream = () => [...fake.pickups.values()].find((p) => p.reference === pickupId);
    await expect.poll(() => upstream()?.status, { timeout: 10_000, interval: 10 }).toBe('scheduled');

    await startShop();
    const row = await vi.waitFor(
      async () => {
        const now = await t.db.selectFrom('pickups').selectAll().where('id', '=', pickupId).executeTakeFirstOrThrow();
        if (now.status === 'booking') throw new Error('still booking');
        return now;
      },
      { timeout: 30_000, interval: 25 },
    );
    expect(row).toMatchObject({ status: 'booked', confirmation: upstream().confirmation });
    expect(fake.pickupPurchases).toBe(1);
    const ledger = await t.db
      .selectFrom('ledger')
      .select(['kind', 'amount_cents'])
      .where('user_id', '=', user.userId)
      .where('kind', 'like', 'pickup_%')
      .execute();
    expect(ledger).toEqual([{ kind: 'pickup_fee', amount_cents: -850 }]);
  }, 120_000);

  it('automatic voids whose process is killed while EasyPost voids a label are finished by the next process: one void and one credit a label', async () => {
    // A dead process's hold on a refund runs out after 5 s; the voids and the refund sweep run often.
    const often = { LABEL_CLAIM_MS: '5000', ORDER_POLL_INTERVAL_MS: '100', REFUND_POLL_INTERVAL_MS: '100', AUTO_VOID_INTERVAL_MS: '100' };
    const { t, fake, env, close } = await startEasyPostApp(engine, 'easypost-kill-void', () => ({ QUEUE_RUN_WORKERS: 'false' }));
    closers.push(close);
    fake.rates = { ...RATES_UNDER_PRICES };
    const startShop = () => startShopChild(children, { dataDir: t.config.dataDir, databaseUrl: t.databaseUrl, engine, env: { ...env, ...often } });
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
      ids.push(res.json().orderId);
    }
    const orders = () => t.db.selectFrom('orders').selectAll().where('id', 'in', ids).execute();
    expect((await orders()).map((o) => o.status)).toEqual(['completed', 'completed', 'completed']);
    const makeDue = (some: string[]) =>
      t.db
        .updateTable('orders')
        .set({ created_at: new Date(Date.now() - 26 * 86_400_000).toISOString() })
        .where('id', 'in', some)
        .execute();
    // EasyPost holds the first label's void until the process that asked is dead; then it voids it, and its answer is lost.
    let release = () => {};
    fake.faults.push({ kind: 'slow', on: 'refund', count: 1, until: new Promise<void>((resolve) => (release = resolve)) });
    const voids = () => fake.requests.filter((r) => /^POST \/v2\/shipments\/[^/]+\/refund$/.test(r));
    await makeDue([ids[0]]);
    const first = await startShop();
    await expect.poll(() => voids().length, { timeout: 30_000, interval: 10, message: 'the void asked upstream' }).toBeGreaterThan(0);
    first.kill('SIGKILL');
    await exited(first);
    expect(voids()).toHaveLength(1);
    release();

    // The next process finds the first label's void made (asks before asking again) and voids the two others.
    await makeDue(ids.slice(1));
    await startShop();
    await vi.waitFor(
      async () => {
        if ((await orders()).some((o) => o.refund_status !== 'refunded')) throw new Error('not all refunded');
      },
      { timeout: 30_000, interval: 25 },
    );
    expect(voids()).toHaveLength(3);
    expect(new Set(voids()).size).toBe(3);
    const credits = await t.db.selectFrom('ledger').select(['reference']).where('kind', '=', 'label_refund').where('reference', 'in', ids).execute();
    expect(credits.map((c) => c.reference).sort()).toEqual([...ids].sort());
  }, 120_000);
});
