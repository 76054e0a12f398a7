import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WAIT } from '../../../test/basics.ts';
import { LABEL_NOT_READY, ORDER_CREATED, labelFailedMessage } from '@portal/contract';
import { INSUFFICIENT_BALANCE, changeBalance, ledgerSumCents } from '../billing/service.ts';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { PoolFull } from '../../lib/http-errors.ts';
import type { LabelProvider } from '../../providers/labels/label-provider.ts';
import { SANDBOX_FAILURE, createSandboxLabelProvider, sandboxQuote } from '../../providers/labels/sandbox.ts';
import { inlineRenderer } from '../../providers/labels/render-pool.ts';
import { balanceOf, orderPayload } from '../../../test/order-fixtures.ts';
import { fundedCustomer } from '../../../test/customers.ts';
import { callApi, labelFields, resellerUser } from '../../../test/reseller-fixtures.ts';

type User = Awaited<ReturnType<typeof fundedCustomer>>;
const ordersOf = async (t: TestApp, user: User) =>
  (await t.app.inject({ method: 'GET', url: '/api/v1/order/read', headers: user.headers })).json().orders as any[];

/** Reads the order list until its newest order leaves 'processing' (the background runner's work). */
const waitUntilSettled = (t: TestApp, user: User) =>
  vi.waitFor(
    async () => {
      const [order] = await ordersOf(t, user);
      if (order.status === 'processing' || order.status === 'pending') throw new Error(`order still ${order.status}`);
      return order;
    },
    { ...WAIT, timeout: 20_000 },
  );

describe('a provider that refuses the label', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ LABEL_SANDBOX_MODE: 'fail' });
  });
  afterAll(() => t.close());

  it('cancels the order, refunds it with a ledger row and tells the user why', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ message: labelFailedMessage(SANDBOX_FAILURE) });

    const [order] = await ordersOf(t, user);
    expect(order).toMatchObject({ status: 'cancelled', note: SANDBOX_FAILURE, tracking: null, pdf: null });
    expect(await balanceOf(t.app, user.headers)).toBe(50);
    const ledger = await t.db.selectFrom('ledger').select(['kind', 'amount_cents']).where('reference', '=', order._id).orderBy('created_at').execute();
    const cents = Math.round(order.price * 100);
    expect(ledger).toEqual([
      { kind: 'order_charge', amount_cents: -cents },
      { kind: 'order_refund', amount_cents: cents },
    ]);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(5_000);

    // Its details carry the provider's message and both ledger rows, charged and refunded.
    const details = (await t.app.inject({ method: 'GET', url: `/api/v1/order/details/${order._id}`, headers: user.headers })).json();
    expect(details.order).toMatchObject({ status: 'cancelled', note: SANDBOX_FAILURE });
    expect(details.ledger.map((l: { kind: string; amount: number }) => [l.kind, l.amount])).toEqual([
      ['order_charge', -order.price],
      ['order_refund', order.price],
    ]);

    // A duplicate of the cancelled order goes the same way.
    const again = await t.app.inject({ method: 'POST', url: `/api/v1/order/duplicate/${order._id}`, headers: user.headers });
    expect(again.statusCode).toBe(502);
    expect(await balanceOf(t.app, user.headers)).toBe(50);
  });
});

describe('a provider that answers later', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ LABEL_SANDBOX_MODE: 'processing', LABEL_SANDBOX_DELAY_MS: '300', ORDER_POLL_INTERVAL_MS: '100' });
  });
  afterAll(() => t.close());

  it('shows the order processing, then the background runner completes it and the list shows it', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('ups_express'), headers: user.headers });
    expect(res.json()).toMatchObject({ message: ORDER_CREATED });
    const [processing] = await ordersOf(t, user);
    expect(processing).toMatchObject({ status: 'processing', tracking: null, pdf: null });
    const early = await t.app.inject({ method: 'GET', url: `/api/v1/order/download/${processing._id}`, headers: user.headers });
    expect(early.statusCode).toBe(409);
    expect(early.json()).toEqual({ message: LABEL_NOT_READY });

    const done = await waitUntilSettled(t, user);
    expect(done).toMatchObject({ _id: processing._id, status: 'completed', pdf: `/api/v1/order/download/${processing._id}` });
    expect(done.tracking).toMatch(/^1Z/);
    const pdf = await t.app.inject({ method: 'GET', url: `/api/v1/order/download/${done._id}`, headers: user.headers });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-disposition']).toBe(`attachment; filename="${done.tracking}.pdf"`);
  });

  it('sends again an order a stopped process left pending, charging it only once', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
    const [order] = await ordersOf(t, user);
    await waitUntilSettled(t, user);
    const balance = await balanceOf(t.app, user.headers);
    // As if the process had stopped between the charge and the provider call: its claim on the order ran out.
    await t.db
      .updateTable('orders')
      .set({ status: 'pending', tracking: null, pdf_key: null, provider_ref: null, claimed_until: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', order._id)
      .execute();
    expect((await ordersOf(t, user))[0].status).toBe('pending');
    expect(await waitUntilSettled(t, user)).toMatchObject({ _id: order._id, status: 'completed' });
    expect(await balanceOf(t.app, user.headers)).toBe(balance);
  });
});

describe('a provider that refuses a label it was making', () => {
  let t: TestApp;
  const refusing: LabelProvider = {
    name: 'refusing',
    quote: async (request) => sandboxQuote(request),
    createLabel: async () => ({ status: 'processing', providerRef: 'upstream-1' }),
    findLabel: async () => null,
    checkLabel: async () => ({ status: 'failed', message: 'the destination address is not deliverable' }),
  };
  beforeAll(async () => {
    t = await startTestApp({ ORDER_POLL_INTERVAL_MS: '100' }, { labels: refusing });
  });
  afterAll(() => t.close());

  it('cancels and refunds it in the background, with the reason on the order', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('fedex_ground'), headers: user.headers });
    expect(res.statusCode).toBe(200);
    expect(await waitUntilSettled(t, user)).toMatchObject({ status: 'cancelled', note: 'the destination address is not deliverable' });
    expect(await balanceOf(t.app, user.headers)).toBe(50);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(5_000);
  });
});

describe('a renderer whose queue is full', () => {
  let t: TestApp;
  const sandbox = createSandboxLabelProvider({ mode: 'instant', delayMs: 0, renderer: inlineRenderer() });
  let full = true;
  const busy: LabelProvider = {
    ...sandbox,
    createLabel: (request) => (full ? Promise.reject(new PoolFull('label renderer', 1)) : sandbox.createLabel(request)),
  };
  beforeAll(async () => {
    t = await startTestApp({}, { labels: busy });
  });
  afterAll(() => t.close());

  it('answers 503 with Retry-After, writing and charging nothing, and the order goes through once it has room', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
    expect([res.statusCode, res.headers['retry-after'], res.json()]).toEqual([503, '1', { message: 'The label renderer is busy; try again in 1 s' }]);
    expect(await ordersOf(t, user)).toEqual([]);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(5_000);
    full = false;
    const again = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
    expect(again.json()).toMatchObject({ message: ORDER_CREATED });
    expect((await ordersOf(t, user)).map((o) => o.status)).toEqual(['completed']);
  });
});

describe('when the label is asked for', () => {
  /** What the provider saw when asked: the customer's balance and how many orders of theirs were written. */
  let asked: { balanceCents: number; orderRows: number }[] = [];
  let t: TestApp;
  let customer = '';
  let spendWhileAsked = false;
  const sandbox = createSandboxLabelProvider({ mode: 'instant', delayMs: 0, renderer: inlineRenderer() });
  const noting = (provider: LabelProvider): LabelProvider => ({
    ...provider,
    async createLabel(request) {
      const { balance_cents } = await t.db.selectFrom('users').select('balance_cents').where('id', '=', customer).executeTakeFirstOrThrow();
      const orders = await t.db.selectFrom('orders').select('id').where('user_id', '=', customer).execute();
      asked.push({ balanceCents: Number(balance_cents), orderRows: orders.length });
      // Another request of the customer's spends it all meanwhile.
      if (spendWhileAsked)
        await changeBalance(t.db, { userId: customer, amountCents: -Number(balance_cents), kind: 'adjustment', reference: null, note: 'spent meanwhile' });
      return provider.createLabel(request);
    },
  });
  const place = async (cents: number) => {
    asked = [];
    const user = await fundedCustomer(t.app, cents, t.db);
    customer = user.userId;
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
    const orders = await t.db.selectFrom('orders').selectAll().where('user_id', '=', customer).execute();
    const ledger = await t.db.selectFrom('ledger').select(['kind', 'amount_cents']).where('user_id', '=', customer).where('kind', '!=', 'adjustment').execute();
    return { res, orders, ledger, headers: user.headers };
  };

  describe('from a provider whose labels cost nothing (the sandbox)', () => {
    beforeAll(async () => {
      t = await startTestApp({}, { labels: noting(sandbox) });
    });
    afterAll(() => t.close());

    it('comes before the charge, and the order is written once, completed, with its charge', async () => {
      const { res, orders, ledger, headers } = await place(5_000);
      expect(res.statusCode).toBe(200);
      expect(asked).toEqual([{ balanceCents: 5_000, orderRows: 0 }]);
      expect(orders).toHaveLength(1);
      const [order] = orders;
      expect(order).toMatchObject({ status: 'completed', claimed_until: null });
      expect(order.tracking).toMatch(/^\d+$/);
      expect(order.pdf_key).toMatch(/#\d+\+\d+$/);
      // Inserted completed, never updated.
      expect(order.updated_at).toBe(order.created_at);
      expect(ledger).toEqual([{ kind: 'order_charge', amount_cents: -Number(order.price_cents) }]);
      const pdf = await t.app.inject({ method: 'GET', url: `/api/v1/order/download/${order.id}`, headers });
      expect(pdf.statusCode).toBe(200);
      expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    });

    it('never comes for a customer whose balance, as read for the request, does not cover the price', async () => {
      const { res, orders, ledger } = await place(100);
      expect(res.statusCode).toBe(402);
      expect(res.json()).toEqual({ message: INSUFFICIENT_BALANCE });
      expect(asked).toEqual([]);
      expect(orders).toEqual([]);
      expect(ledger).toEqual([]);
    });

    it('never comes for a duplicate or a reseller API order the balance does not cover', async () => {
      const { headers } = await place(5_000);
      const [order] = await t.db.selectFrom('orders').select('id').where('user_id', '=', customer).execute();
      await changeBalance(t.db, { userId: customer, amountCents: -(await ledgerSumCents(t.db, customer)), kind: 'adjustment', reference: null, note: 'spent' });
      asked = [];
      const again = await t.app.inject({ method: 'POST', url: `/api/v1/order/duplicate/${order.id}`, headers });
      expect(again.statusCode).toBe(402);
      const reseller = await resellerUser(t.app, t.db, 100);
      customer = reseller.userId;
      const viaApi = await callApi(t.app, reseller.apiKey, 'POST', '/order/create-order', { payload: labelFields() });
      expect(viaApi.statusCode).toBe(402);
      expect(viaApi.json()).toMatchObject({ message: INSUFFICIENT_BALANCE });
      expect(asked).toEqual([]);
    });

    it('leaves no order and no ledger row when the balance is spent while the label is made', async () => {
      spendWhileAsked = true;
      try {
        const { res, orders, ledger } = await place(5_000);
        expect(res.statusCode).toBe(402);
        expect(res.json()).toEqual({ message: INSUFFICIENT_BALANCE });
        expect(asked).toEqual([{ balanceCents: 5_000, orderRows: 0 }]);
        expect(orders).toEqual([]);
        expect(ledger).toEqual([]);
        expect(await ledgerSumCents(t.db, customer)).toBe(0);
      } finally {
        spendWhileAsked = false;
      }
    });
  });

  describe('from a provider that buys postage upstream', () => {
    beforeAll(async () => {
      t = await startTestApp({ ORDER_POLL_INTERVAL_MS: '100' }, { labels: { ...noting(sandbox), freeLabels: false } });
    });
    afterAll(() => t.close());

    it('is bought once, whatever stopped the process between the purchase and its record', async () => {
      const { orders } = await place(5_000);
      const [made] = orders;
      expect(made).toMatchObject({ status: 'completed', claims: 1 });
      // As if the process had stopped once the provider had sold the label, before the order recorded it: its claim ran out.
      await t.db
        .updateTable('orders')
        .set({ status: 'pending', tracking: null, pdf_key: null, claimed_until: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', made.id)
        .execute();
      asked = [];
      const order = async () => t.db.selectFrom('orders').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow();
      await expect.poll(async () => (await order()).status, { ...WAIT, timeout: 20_000, message: 'the order was not taken again' }).not.toBe('pending');
      // Taken again by the background runner, which found the label the provider had sold and bought none.
      expect(await order()).toMatchObject({ status: 'completed', tracking: made.tracking, claims: 2 });
      expect(asked).toEqual([]);
      const ledger = await t.db.selectFrom('ledger').select(['kind']).where('user_id', '=', customer).where('kind', '!=', 'adjustment').execute();
      expect(ledger).toEqual([{ kind: 'order_charge' }]);
    });

    it('comes only once the order is paid', async () => {
      const { res, orders, ledger } = await place(5_000);
      expect(res.statusCode).toBe(200);
      const cents = Number(orders[0].price_cents);
      expect(asked).toEqual([{ balanceCents: 5_000 - cents, orderRows: 1 }]);
      expect(orders[0]).toMatchObject({ status: 'completed' });
      expect(ledger).toEqual([{ kind: 'order_charge', amount_cents: -cents }]);
    });

    it('never comes for a customer who cannot pay', async () => {
      const { res, orders } = await place(0);
      expect(res.statusCode).toBe(402);
      expect(asked).toEqual([]);
      expect(orders).toEqual([]);
    });
  });
});
