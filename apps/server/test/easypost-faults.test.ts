import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_REUSED, ORDER_CREATED, ORDERS_CREATED } from '@portal/contract';
import { adminCall, signUpAdmin } from './admin-fixtures.ts';
import { LABEL_SOLD_NOT_VOIDED, LABEL_SOLD_VOID_ASKED } from '../src/modules/admin/service.ts';
import { UPSTREAM_NOT_ASKED } from '../src/modules/orders/label-pipeline.ts';
import { engines, type TestApp } from './harness.ts';
import { ledgerSumCents } from '../src/modules/billing/service.ts';
import { createLocalFileStore, type FileStore } from '../src/providers/storage/file-store.ts';
import { orderPayload } from './order-fixtures.ts';
import { fundedCustomer } from './customers.ts';
import { createFromCsv, csvText, usRows, validateCsv, waitForCompletion } from './bulk-fixtures.ts';
import type { FakeEasyPost } from './fake-easypost.ts';
import { RATES_UNDER_PRICES, newestOrder, settledOrder, startEasyPostApp } from './easypost-fixtures.ts';
import pino from 'pino';
import { buildServices } from '../src/services.ts';
import { MAX_ATTEMPTS } from '../src/queue/job-queue.ts';
import { isoIn, nowIso } from '../src/lib/ids.ts';

/** The local file store, whose next `failPacks` label writes fail (a full disk, a store that cannot be reached). */
function failingStore(root: string): FileStore & { failPacks: number } {
  const store = createLocalFileStore(root);
  const failing = Object.assign(Object.create(store) as FileStore, {
    failPacks: 0,
    async appendToPack(prefix: string, data: Uint8Array) {
      if (failing.failPacks > 0) {
        failing.failPacks--;
        throw new Error('EIO: the label store failed');
      }
      return store.appendToPack(prefix, data);
    },
  });
  return failing;
}

describe.each(engines)('no money lost when a purchase meets a fault (EasyPost fake), on the %s queue', (engine) => {
  let t: TestApp;
  let fake: FakeEasyPost;
  let close = async () => {};
  let files: ReturnType<typeof failingStore>;
  let root: string;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'easypost-faults-'));
    files = failingStore(root);
    ({ t, fake, close } = await startEasyPostApp(
      engine,
      'easypost-faults',
      // The client's own deadline (30 s): a buy held by a test until its Cancel has answered must not time out first.
      () => ({ ORDER_POLL_INTERVAL_MS: '100', REFUND_POLL_INTERVAL_MS: '200' }),
      { files },
    ));
    fake.rates = { ...RATES_UNDER_PRICES }; // these tests are about buying, not about cost
  });
  afterAll(async () => {
    await close();
    await files.close();
    await fs.rm(root, { recursive: true, force: true });
  });
  afterEach(() => {
    fake.faults = [];
    fake.refundDecision = 'approve';
    files.failPacks = 0;
  });

  const ledgerKinds = async (reference: string) =>
    (await t.db.selectFrom('ledger').select('kind').where('reference', '=', reference).orderBy('created_at').execute()).map((l) => l.kind);

  it('a label bought upstream that cannot be stored here: answered 200 (Processing), not refunded; the sweep records that label, bought once, charged once', async () => {
    // The request's recording and the sweep's first try both fail.
    files.failPacks = 2;
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ message: ORDER_CREATED });
    const order = await newestOrder(t.db, user.userId);
    expect(order).toMatchObject({ status: 'processing', provider_ref: null });
    expect(fake.purchasesFor.get(order.id)).toBe(1);
    expect(await ledgerKinds(order.id)).toEqual(['order_charge']);

    const done = await settledOrder(t.db, user.userId);
    expect(files.failPacks).toBe(0);
    expect(done).toMatchObject({ status: 'completed', tracking: fake.shipments.get(done.upstream_ref!).tracking_code });
    expect(fake.purchasesFor.get(order.id)).toBe(1);
    expect(await ledgerKinds(order.id)).toEqual(['order_charge']);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(5_000 - Number(order.price_cents));
    const pdf = await t.app.inject({ method: 'GET', url: `/api/v1/order/download/${order.id}`, headers: user.headers });
    expect(Buffer.compare(pdf.rawPayload, fake.pdf)).toBe(0);
  });

  it('a bulk row whose purchase answer cannot be read is not refunded: the row gets the label bought for it, once', async () => {
    const user = await fundedCustomer(t.app, 50_000, t.db);
    const file = csvText(usRows(4));
    const validated = await validateCsv(t.app, user.headers, 'priority', file);
    fake.faults.push({ kind: 'garble', on: 'buy', count: 1 });
    const res = await createFromCsv(t.app, user.headers, { type: 'priority', total_price: validated.json().totalPrice, design: 'evs' }, file);
    expect(res.json()).toEqual({ message: ORDERS_CREATED });
    const { order } = await waitForCompletion(t.app, user.headers);
    expect(order).toMatchObject({ totalOrders: 4, failedOrders: 0 });
    const rows = await t.db.selectFrom('orders').select(['id', 'status']).where('bulk_order_id', '=', order._id).execute();
    expect(rows.map((r) => r.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(rows.map((r) => fake.purchasesFor.get(r.id))).toEqual([1, 1, 1, 1]);
    expect(await t.db.selectFrom('ledger').select('kind').where('user_id', '=', user.userId).where('kind', '=', 'bulk_refund').execute()).toEqual([]);
  });

  describe("the operator's Cancel of a Processing order asks the upstream first", () => {
    /**
     * A funded customer's order bought upstream whose answer was lost: Processing, its label sold, and held from the
     * completion sweep (due 100 ms later) as a busy process would hold it, so the operator's Cancel finds it Processing
     * however slow the machine. Only an order no sweep has claimed yet (a sweep's claim runs LABEL_CLAIM_MS) can be held:
     * when a sweep took it first, another customer's order is made.
     */
    async function soldButProcessing() {
      for (let attempt = 1; ; attempt++) {
        const user = await fundedCustomer(t.app, 5_000, t.db); // one of its own each time: the balances are checked to the cent
        fake.faults.push({ kind: 'lose', on: 'buy', count: 1 });
        const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
        expect(res.statusCode).toBe(200);
        const { id } = await newestOrder(t.db, user.userId);
        const held = await t.db
          .updateTable('orders')
          .set({ claimed_until: isoIn(3_600_000) })
          .where('id', '=', id)
          .where('status', '=', 'processing')
          .where('claimed_until', '<=', isoIn(10_000))
          .executeTakeFirst();
        if (Number(held.numUpdatedRows) === 1) {
          const order = await newestOrder(t.db, user.userId);
          expect(fake.purchasesFor.get(order.id)).toBe(1);
          return { user, order };
        }
        expect(attempt, 'a completion sweep took every order before it could be held').toBeLessThan(10);
      }
    }
    const cancel = async (orderId: string) =>
      adminCall(t.app, (await signUpAdmin(t)).headers, 'POST', `/orders/${orderId}/cancel`, { reason: 'Customer asked' });
    const shipmentOf = (orderId: string) => [...fake.shipments.values()].find((s) => s.reference === orderId);

    it('a label sold upstream is voided before anything is refunded; the customer is credited once the void is accepted', async () => {
      fake.refundDecision = 'hold';
      const { user, order } = await soldButProcessing();
      const refundsBefore = fake.refunds;
      const res = await cancel(order.id);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ message: LABEL_SOLD_VOID_ASKED });
      expect(fake.refunds - refundsBefore).toBe(1);
      expect(shipmentOf(order.id).refund_status).toBe('submitted');
      // Asked upstream, not decided: nothing credited yet, and the label is not downloadable.
      expect(await newestOrder(t.db, user.userId)).toMatchObject({
        status: 'completed',
        refund_status: 'requested',
        tracking: shipmentOf(order.id).tracking_code,
      });
      expect(await ledgerKinds(order.id)).toEqual(['order_charge']);
      expect((await t.app.inject({ method: 'GET', url: `/api/v1/order/download/${order.id}`, headers: user.headers })).statusCode).toBe(409);

      fake.settleRefund(shipmentOf(order.id).id, 'refunded');
      await expect.poll(() => ledgerKinds(order.id), { timeout: 10_000 }).toEqual(['order_charge', 'label_refund']);
      expect(await newestOrder(t.db, user.userId)).toMatchObject({ status: 'completed', refund_status: 'refunded' });
      expect(await ledgerSumCents(t.db, user.userId)).toBe(5_000);
      expect(fake.purchasesFor.get(order.id)).toBe(1);
    });

    it('a void the carrier refuses: 409 saying so, the order completed with its label, nothing refunded', async () => {
      const { user, order } = await soldButProcessing();
      fake.faults.push({ kind: 'refuse', on: 'refund', count: 1 });
      const res = await cancel(order.id);
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toBe(LABEL_SOLD_NOT_VOIDED);
      expect(await newestOrder(t.db, user.userId)).toMatchObject({ status: 'completed', refund_status: 'rejected' });
      expect(await ledgerKinds(order.id)).toEqual(['order_charge']);
      expect((await t.app.inject({ method: 'GET', url: `/api/v1/order/download/${order.id}`, headers: user.headers })).statusCode).toBe(200);
    });

    it('an upstream that cannot be asked: 503, nothing changed; the sweep then records the label', async () => {
      const { user, order } = await soldButProcessing();
      fake.faults.push({ kind: '500', on: 'retrieve', count: 1_000_000 });
      const res = await cancel(order.id);
      expect(res.statusCode).toBe(503);
      expect(res.json().message).toBe(UPSTREAM_NOT_ASKED);
      expect((await newestOrder(t.db, user.userId)).status).toBe('processing');
      expect(await ledgerKinds(order.id)).toEqual(['order_charge']);
      fake.faults = [];
      await t.db.updateTable('orders').set({ claimed_until: nowIso() }).where('id', '=', order.id).execute(); // let go: due now
      expect(await settledOrder(t.db, user.userId)).toMatchObject({ status: 'completed', refund_status: null });
      expect(fake.purchasesFor.get(order.id)).toBe(1);
    });

    it('a purchase that ends after the cancel: the order stays cancelled and refunded, and its buyer voids the label', async () => {
      const user = await fundedCustomer(t.app, 5_000, t.db);
      let endPurchase = () => {};
      const purchaseEnds = new Promise<void>((resolve) => (endPurchase = resolve));
      fake.faults.push({ kind: 'slow', on: 'buy', count: 1, until: purchaseEnds });
      const requestsBefore = fake.requests.length;
      const placing = t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
      // The purchase is on its way upstream, not made yet: nothing sold, so the Cancel refunds.
      await expect.poll(() => fake.requests.slice(requestsBefore).some((r) => r.endsWith('/buy')), { interval: 5 }).toBe(true);
      const order = await newestOrder(t.db, user.userId);
      expect((await cancel(order.id)).json()).toEqual({ message: 'Order cancelled and refunded' });
      endPurchase(); // the purchase ends only now, after the Cancel
      expect((await placing).statusCode).toBe(502);
      expect(fake.purchasesFor.get(order.id)).toBe(1);
      await expect.poll(() => shipmentOf(order.id).refund_status).toBe('submitted');
      expect(await newestOrder(t.db, user.userId)).toMatchObject({ status: 'cancelled', tracking: null });
      expect(await ledgerKinds(order.id)).toEqual(['order_charge', 'order_refund']);
    });

    it('no label sold upstream: cancelled and refunded at once, as before', async () => {
      const user = await fundedCustomer(t.app, 5_000, t.db);
      fake.faults.push({ kind: '500', on: 'create', count: 1_000_000 });
      await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
      const order = await newestOrder(t.db, user.userId);
      expect(order.status).toBe('processing');
      const res = await cancel(order.id);
      expect(res.json()).toEqual({ message: 'Order cancelled and refunded' });
      expect(await newestOrder(t.db, user.userId)).toMatchObject({ status: 'cancelled', note: 'Customer asked' });
      expect(await ledgerKinds(order.id)).toEqual(['order_charge', 'order_refund']);
    });
  });

  it("the web's order calls honour their Idempotency-Key: the same submission sent again is answered again, ordered and charged once", async () => {
    const user = await fundedCustomer(t.app, 50_000, t.db);
    const create = (key: string, payload = orderPayload('priority')) =>
      t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload, headers: { ...user.headers, 'idempotency-key': key } });
    const orderCount = async () => (await t.db.selectFrom('orders').select('id').where('user_id', '=', user.userId).execute()).length;

    const first = await create('web-create-1');
    const again = await create('web-create-1');
    expect([first.statusCode, again.statusCode]).toEqual([200, 200]);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await orderCount()).toBe(1);
    expect((await create('web-create-1', orderPayload('priority', { Weight: 3 }))).json().message).toBe(IDEMPOTENCY_KEY_REUSED);
    expect((await create('web-create-2')).headers['idempotent-replayed']).toBeUndefined();
    expect(await orderCount()).toBe(2);

    const [original] = await t.db.selectFrom('orders').select('id').where('user_id', '=', user.userId).execute();
    const duplicate = () =>
      t.app.inject({ method: 'POST', url: `/api/v1/order/duplicate/${original.id}`, headers: { ...user.headers, 'idempotency-key': 'web-duplicate-1' } });
    expect((await duplicate()).statusCode).toBe(200);
    expect((await duplicate()).headers['idempotent-replayed']).toBe('true');
    expect(await orderCount()).toBe(3);

    const file = csvText(usRows(2));
    const total = (await validateCsv(t.app, user.headers, 'priority', file)).json().totalPrice;
    const bulk = () =>
      createFromCsv(t.app, { ...user.headers, 'idempotency-key': 'web-bulk-1' }, { type: 'priority', total_price: total, design: 'evs' }, file);
    expect((await bulk()).json()).toEqual({ message: ORDERS_CREATED });
    expect((await bulk()).headers['idempotent-replayed']).toBe('true');
    expect(await t.db.selectFrom('bulk_orders').select('id').where('user_id', '=', user.userId).execute()).toHaveLength(1);
    expect(
      await t.db.selectFrom('ledger').select('kind').where('user_id', '=', user.userId).where('kind', 'in', ['order_charge', 'bulk_charge']).execute(),
    ).toHaveLength(4);
  });
});

describe('a bulk order given up on its last attempt (EasyPost fake; its job run here)', () => {
  let t: TestApp;
  let fake: FakeEasyPost;
  let close = async () => {};
  let root: string;
  let files: ReturnType<typeof failingStore>;
  let runner: Awaited<ReturnType<typeof buildServices>> | undefined;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'easypost-give-up-'));
    files = failingStore(root);
    // No workers: a queued bulk order waits for this test to run its job.
    ({ t, fake, close } = await startEasyPostApp('embedded', 'easypost-give-up', () => ({ QUEUE_RUN_WORKERS: 'false' }), { files }));
    fake.rates = { ...RATES_UNDER_PRICES }; // these tests are about buying, not about cost
  });
  afterAll(async () => {
    await runner?.close();
    await close();
    await files.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('rows whose labels were bought upstream are completed with them, not refunded', async () => {
    const user = await fundedCustomer(t.app, 50_000, t.db);
    const file = csvText(usRows(4));
    const validated = await validateCsv(t.app, user.headers, 'priority', file);
    expect((await createFromCsv(t.app, user.headers, { type: 'priority', total_price: validated.json().totalPrice, design: 'evs' }, file)).json()).toEqual({
      message: ORDERS_CREATED,
    });
    const bulk = await t.db.selectFrom('bulk_orders').select('id').where('user_id', '=', user.userId).executeTakeFirstOrThrow();
    runner = await buildServices(t.config, pino({ level: 'silent' }), { db: t.db, files });
    // The last attempt buys the four labels, then cannot store them: it gives up.
    files.failPacks = 1;
    await runner.bulk.runJob(bulk.id, { id: `bulk-${bulk.id}`, attempt: MAX_ATTEMPTS, updateProgress: async () => {} });
    expect(files.failPacks).toBe(0);
    const rows = await t.db.selectFrom('orders').select(['id', 'status']).where('bulk_order_id', '=', bulk.id).execute();
    expect(rows.map((r) => fake.purchasesFor.get(r.id))).toEqual([1, 1, 1, 1]);
    expect(rows.map((r) => r.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(await t.db.selectFrom('ledger').select('kind').where('user_id', '=', user.userId).where('kind', '=', 'bulk_refund').execute()).toEqual([]);
  });
});
