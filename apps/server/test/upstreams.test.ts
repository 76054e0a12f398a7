import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { WAIT } from './basics.ts';
import { ORDER_CREATED } from '@portal/contract';
import { adminCall, signUpAdmin } from './admin-fixtures.ts';
import { engines, type TestApp } from './harness.ts';
import { ledgerSumCents } from '../src/modules/billing/service.ts';
import { orderPayload } from './order-fixtures.ts';
import { fundedCustomer } from './customers.ts';
import { easyPostSignature, type FakeEasyPost } from './fake-easypost.ts';
import type { FakeShippo } from './fake-shippo.ts';
import { RATES_UNDER_PRICES, newestOrder, settledOrder } from './easypost-fixtures.ts';
import { SHIPPO_RATES_UNDER_PRICES, startUpstreamsApp } from './upstream-fixtures.ts';
import { orderParties } from './sample-addresses.ts';

type User = Awaited<ReturnType<typeof fundedCustomer>>;

describe.each(engines)('labels at two upstreams (EasyPost and Shippo fakes), on the %s queue', (engine) => {
  let t: TestApp;
  let easypost: FakeEasyPost;
  let shippo: FakeShippo;
  let close = async () => {};
  let origin = '';

  beforeAll(async () => {
    ({ t, easypost, shippo, close } = await startUpstreamsApp(engine, 'upstreams', {
      EASYPOST_TIMEOUT_MS: '800',
      SHIPPO_TIMEOUT_MS: '800',
      ORDER_POLL_INTERVAL_MS: '100',
      REFUND_POLL_INTERVAL_MS: '100',
      // One fault makes an upstream unhealthy for a second: the tests see a breaker open and close within themselves.
      UPSTREAM_BREAKER_FAULTS: '1',
      UPSTREAM_BREAKER_OPEN_MS: '1000',
    }));
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => close());
  afterEach(async () => {
    easypost.faults = [];
    shippo.faults = [];
    easypost.rates = { ...RATES_UNDER_PRICES };
    shippo.rates = { ...SHIPPO_RATES_UNDER_PRICES };
    await shippo.listen(true);
    // Each test starts with both upstreams healthy again (a fault's window is a second).
    await vi.waitFor(async () => {
      const health = (await adminCall(t.app, (await admin()).headers, 'GET', '/upstream-services')).json().upstreams;
      if (health.some((u: { state: string }) => u.state === 'open')) throw new Error('an upstream is still open');
    }, WAIT);
  });

  let adminUser: Awaited<ReturnType<typeof signUpAdmin>> | undefined;
  const admin = async () => (adminUser ??= await signUpAdmin(t));
  const place = (user: User, type = 'priority') =>
    t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload(type), headers: user.headers });
  const counts = () => ({ easypost: easypost.purchases, shippo: shippo.purchases });
  const bought = (before: { easypost: number; shippo: number }) => ({
    easypost: easypost.purchases - before.easypost,
    shippo: shippo.purchases - before.shippo,
  });

  it('a label is bought where it costs least, the order naming its upstream and cost; the other upstream sells nothing', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    let before = counts();
    expect((await place(user)).json()).toMatchObject({ message: ORDER_CREATED });
    expect(await newestOrder(t.db, user.userId)).toMatchObject({
      status: 'completed',
      provider: 'shippo',
      upstream_cost_cents: 395,
      upstream_service: 'usps_priority',
    });
    expect(bought(before)).toEqual({ easypost: 0, shippo: 1 });

    // EasyPost cheaper now: bought there.
    easypost.rates.Priority = '3.50';
    before = counts();
    await place(user);
    expect(await newestOrder(t.db, user.userId)).toMatchObject({
      status: 'completed',
      provider: 'easypost',
      upstream_cost_cents: 350,
      upstream_service: 'Priority',
    });
    expect(bought(before)).toEqual({ easypost: 1, shippo: 0 });
  });

  it('an insured label is bought at EasyPost, which buys the insurance with it, though Shippo is cheaper', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const before = counts();
    const insured = await t.app.inject({
      method: 'POST',
      url: '/api/v1/order/create',
      payload: { ...orderPayload('priority'), Insurance: 300 },
      headers: user.headers,
    });
    expect(insured.json()).toMatchObject({ message: ORDER_CREATED });
    const order = await newestOrder(t.db, user.userId);
    expect(order).toMatchObject({ status: 'completed', provider: 'easypost', insured_cents: 30_000, insurance_cost_cents: 300 });
    expect(easypost.shipments.get(order.upstream_ref!).insurance).toBe('300.00');
    expect(bought(before)).toEqual({ easypost: 1, shippo: 0 });
  });

  it.each([
    ['answers 500', (s: FakeShippo) => s.faults.push({ kind: '500', count: 100 })],
    ['does not answer (a timeout)', (s: FakeShippo) => s.faults.push({ kind: 'hang', count: 100 })],
    ['refuses connections', (s: FakeShippo) => s.listen(false)],
  ] as const)('when the cheaper upstream %s, the label is bought at the other, once', async (_name, breakShippo) => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    await breakShippo(shippo);
    const before = counts();
    expect((await place(user)).json()).toMatchObject({ message: ORDER_CREATED });
    const order = await settledOrder(t.db, user.userId);
    expect(order).toMatchObject({ status: 'completed', provider: 'easypost' });
    expect(bought(before)).toEqual({ easypost: 1, shippo: 0 });
    expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000 - Number(order.price_cents));
    // The console shows Shippo unhealthy, with its last error.
    const health = (await adminCall(t.app, (await admin()).headers, 'GET', '/upstream-services')).json().upstreams;
    expect(health.find((u: { name: string }) => u.name === 'shippo')).toMatchObject({ state: 'open', lastError: expect.any(String) });
  });

  it('a purchase whose answer is lost at the chosen upstream is never bought at the other: the chosen one is asked until it answers', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    // Shippo (cheaper) is chosen; its purchase goes through and the answer is lost; then it answers 500 for a while.
    shippo.faults.push({ kind: 'lose', call: 'buy', count: 1 }, { kind: '500', call: 'transactions', count: 3 });
    const before = counts();
    await place(user);
    expect((await newestOrder(t.db, user.userId)).status).toBe('processing');
    const order = await settledOrder(t.db, user.userId);
    expect(order).toMatchObject({ status: 'completed', provider: 'shippo' });
    expect(bought(before)).toEqual({ easypost: 0, shippo: 1 });
    expect(shippo.purchasesFor.get(order.id)).toBe(1);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000 - Number(order.price_cents));
  });

  it('a purchase refused before it reached the chosen upstream (connection refused) is bought at the other at once', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    // EasyPost's quote is held until Shippo has rated the package and stopped listening: Shippo (cheaper) is chosen and
    // its purchase meets a refused connection, so nothing can have been bought there.
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    easypost.faults.push({ kind: 'slow', on: 'create', count: 1, until: gate });
    const shipmentsBefore = shippo.shipments.size;
    const before = counts();
    const placing = place(user);
    await vi.waitFor(() => {
      if (shippo.shipments.size === shipmentsBefore) throw new Error('Shippo has not rated it yet');
    }, WAIT);
    await shippo.listen(false);
    release();
    expect((await placing).json()).toMatchObject({ message: ORDER_CREATED });
    const order = await settledOrder(t.db, user.userId);
    expect(order).toMatchObject({ status: 'completed', provider: 'easypost' });
    expect(bought(before)).toEqual({ easypost: 1, shippo: 0 });
  });

  it('a quote spans both upstreams: each type priced where it is cheapest, and an order on the quote buys that rate there, rated nowhere again', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const FAR = orderParties(); // New York 10001 to Beverly Hills 90210, the whole addresses
    // Priority is cheaper at Shippo, FedEx Ground at EasyPost.
    easypost.rates.FEDEX_GROUND = '4.00';
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/rates', payload: { Weight: 2, ...FAR }, headers: user.headers });
    expect(res.statusCode).toBe(200);
    const byUid = Object.fromEntries(res.json().rates.map((r: { labelType: { uid: string } }) => [r.labelType.uid, r]));
    expect(byUid.priority).toMatchObject({ available: true, carrier: 'USPS', service: 'usps_priority' });
    expect(byUid.fedex_ground).toMatchObject({ available: true, carrier: 'FedEx', service: 'FEDEX_GROUND' });
    const before = counts();
    const shipments = { easypost: easypost.shipments.size, shippo: shippo.shipments.size };
    const order = await t.app.inject({
      method: 'POST',
      url: '/api/v1/order/create',
      payload: { ...FAR, Weight: 2, quoteId: res.json().quoteId, labelType: 'priority', design: 'normal' },
      headers: user.headers,
    });
    expect(order.statusCode).toBe(200);
    expect(await newestOrder(t.db, user.userId)).toMatchObject({ status: 'completed', provider: 'shippo', upstream_cost_cents: 395 });
    expect(bought(before)).toEqual({ easypost: 0, shippo: 1 });
    expect({ easypost: easypost.shipments.size, shippo: shippo.shipments.size }).toEqual(shipments);
  });

  it('refunds and tracking go to the upstream each order was bought at', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    await place(user);
    const atShippo = await newestOrder(t.db, user.userId);
    easypost.rates.Priority = '3.50';
    await place(user);
    const atEasyPost = await newestOrder(t.db, user.userId);
    expect([atShippo.provider, atEasyPost.provider]).toEqual(['shippo', 'easypost']);

    const refunds = { easypost: easypost.refunds, shippo: shippo.refunds };
    for (const order of [atShippo, atEasyPost])
      expect((await t.app.inject({ method: 'POST', url: `/api/v1/order/refund/${order.id}`, headers: user.headers })).json()).toMatchObject({ ok: true });
    for (const order of [atShippo, atEasyPost])
      await vi.waitFor(async () => {
        const now = await t.db.selectFrom('orders').select('refund_status').where('id', '=', order.id).executeTakeFirstOrThrow();
        if (now.refund_status !== 'refunded') throw new Error(`refund ${now.refund_status}`);
      }, WAIT);
    expect({ easypost: easypost.refunds - refunds.easypost, shippo: shippo.refunds - refunds.shippo }).toEqual({ easypost: 1, shippo: 1 });
    expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000);

    // Tracking: Shippo's track_updated by tracking number (its URL carries our token), EasyPost's signed tracker event.
    const shippoEvent = shippo.trackEvent(atShippo.tracking!, 'TRANSIT');
    expect((await shippo.deliver(`${origin}/api/v1/labels/webhook/shippo?token=${shippo.webhookSecret}`, shippoEvent)).status).toBe(200);
    expect((await shippo.deliver(`${origin}/api/v1/labels/webhook/shippo?token=wrong`, shippoEvent)).status).toBe(401);
    const payload = JSON.stringify(easypost.trackerEvent(atEasyPost.upstream_ref!, 'delivered'));
    const easyPostAnswer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/labels/webhook/easypost',
      headers: { 'content-type': 'application/json', 'x-hmac-signature': easyPostSignature(payload, easypost.webhookSecret) },
      payload,
    });
    expect(easyPostAnswer.statusCode).toBe(200);
    const statuses = await t.db.selectFrom('orders').select(['id', 'tracking_status']).where('id', 'in', [atShippo.id, atEasyPost.id]).execute();
    expect(Object.fromEntries(statuses.map((s) => [s.id, s.tracking_status]))).toEqual({ [atShippo.id]: 'in_transit', [atEasyPost.id]: 'delivered' });
  });
});
