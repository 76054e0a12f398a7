import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { WAIT } from './basics.ts';
import { LABEL_TYPE_DISABLED, ORDER_CREATED, ORDERS_CREATED, labelFailedMessage } from '@portal/contract';
import { adminCall, auditRowsFor, signUpAdmin } from './admin-fixtures.ts';
import { engines, type TestApp } from './harness.ts';
import { ledgerSumCents } from '../src/modules/billing/service.ts';
import { processingLimitMessage } from '../src/providers/labels/upstream-call.ts';
import { COST_ABOVE_PRICE } from '../src/modules/orders/upstreams.ts';
import { balanceOf, orderPayload } from './order-fixtures.ts';
import { fundedCustomer } from './customers.ts';
import { createFromCsv, csvText, download, pdfPageCount, usRows, validateCsv, waitForCompletion } from './bulk-fixtures.ts';
import './reseller-fixtures.ts';
import { startReceiver } from './webhook-receiver.ts';
import { easyPostSignature, fakeRate, type FakeEasyPost } from './fake-easypost.ts';
import { RATES_UNDER_PRICES, newestOrder, settledOrder, startEasyPostApp } from './easypost-fixtures.ts';
import { CA_RECIPIENT, CA_SENDER, RECIPIENT, SENDER } from './sample-addresses.ts';

type User = Awaited<ReturnType<typeof fundedCustomer>>;

describe.each(engines)('labels bought through EasyPost (the official client against a fake), on the %s queue', (engine) => {
  let t: TestApp;
  let fake: FakeEasyPost;
  let close = async () => {};

  beforeAll(async () => {
    ({ t, fake, close } = await startEasyPostApp(engine, 'easypost', (fake) => ({
      // Short enough that the 'hang' faults below end soon, long enough that a busy machine's ordinary call (the
      // first one also loads the client) is not taken for one: at 500 ms the first order was left Processing.
      EASYPOST_TIMEOUT_MS: '3000',
      EASYPOST_WEBHOOK_SECRET: fake.webhookSecret,
      ORDER_POLL_INTERVAL_MS: '100',
      EASYPOST_MAX_PER_SECOND: '5',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    })));
    fake.rates = { ...RATES_UNDER_PRICES };
  });
  afterAll(() => close());
  afterEach(() => {
    fake.faults = [];
    fake.rates = { ...RATES_UNDER_PRICES };
    fake.latencyMs = 0;
  });

  const place = (user: User, payload = orderPayload('priority')) =>
    t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload, headers: user.headers });
  const refundsOf = (orderId: string) =>
    t.db.selectFrom('ledger').select(['kind', 'amount_cents']).where('reference', '=', orderId).orderBy('created_at').execute();

  it('buys one label: Shipment with our order id as reference, the mapped rate bought, its file stored, cost and carrier kept', async () => {
    const before = fake.purchases;
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const res = await place(user, orderPayload('ups_express'));
    expect(res.json()).toMatchObject({ message: ORDER_CREATED });
    const order = await newestOrder(t.db, user.userId);
    expect(order).toMatchObject({
      status: 'completed',
      provider: 'easypost',
      upstream_cost_cents: Math.round(Number(RATES_UNDER_PRICES.Express) * 100),
      upstream_carrier: 'UPS',
      upstream_service: 'Express',
    });
    expect(fake.purchases - before).toBe(1);
    const shipment = fake.shipments.get(order.upstream_ref!);
    expect(shipment).toMatchObject({ reference: order.id, tracking_code: order.tracking, selected_rate: { carrier: 'UPS', service: 'Express' } });
    expect(shipment.to_address).toMatchObject({ country: 'CA', zip: 'M5V 3L9' });
    // The weight goes upstream in ounces.
    expect(shipment.parcel.weight).toBe(Math.round(order.weight * 16 * 10) / 10);

    const pdf = await download(t.app, user.headers, `/api/v1/order/download/${order.id}`);
    expect(pdf.statusCode).toBe(200);
    expect(Buffer.compare(pdf.rawPayload, fake.pdf)).toBe(0);
    expect(await balanceOf(t.app, user.headers)).toBe(50 - Number(order.price_cents) / 100);
  });

  it('a ZPL download converts the bought label through GET shipments/:id/label?file_format=ZPL once; Letter lays out the bought PDF', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    expect((await place(user)).statusCode).toBe(200);
    const order = await settledOrder(t.db, user.userId);
    const conversions = fake.conversions;
    const zpl = await download(t.app, user.headers, `/api/v1/order/download/${order.id}?format=zpl`);
    expect(zpl.statusCode).toBe(200);
    expect(zpl.headers['content-disposition']).toBe(`attachment; filename="${order.tracking}.zpl"`);
    expect(zpl.body).toContain(`^FD>:${order.tracking}^FS`);
    expect(fake.requests).toContain(`GET /v2/shipments/${order.upstream_ref}/label`);
    // Kept: the second download asks nothing upstream.
    expect((await download(t.app, user.headers, `/api/v1/order/download/${order.id}?format=zpl`)).body).toBe(zpl.body);
    expect(fake.conversions).toBe(conversions + 1);
    const letter = await download(t.app, user.headers, `/api/v1/order/download/${order.id}?format=pdf-letter`);
    expect(letter.body.slice(0, 200)).toMatch(/^%PDF/);
    expect(await pdfPageCount(letter.rawPayload)).toBe(1);
  });

  it('an address the upstream refuses: cancelled and refunded, its words shown, nothing bought', async () => {
    const before = fake.purchases;
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const res = await place(user, orderPayload('priority', { ToStreet: fake.unverifiableStreet }));
    expect(res.statusCode).toBe(502);
    const message = 'the carrier refused the label: Unable to verify address.; to_address.street1: Address not found';
    expect(res.json()).toEqual({ message: labelFailedMessage(message) });
    const order = await newestOrder(t.db, user.userId);
    expect(order).toMatchObject({ status: 'cancelled', note: message, upstream_ref: null });
    expect((await refundsOf(order.id)).map((l) => l.kind)).toEqual(['order_charge', 'order_refund']);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(5_000);
    expect(fake.purchases - before).toBe(0);
  });

  it('a rate above the price is refused before buying, with a message for the customer', async () => {
    const before = fake.purchases;
    // The fake's own rate of 2 lb Priority from New York to Beverly Hills, as a carrier's is: above priority's seed price.
    delete fake.rates.Priority;
    const upstreamCost = Number(fakeRate('USPS', 'Priority', 32, SENDER.zip, RECIPIENT.zip));
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const res = await place(user);
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ message: labelFailedMessage(COST_ABOVE_PRICE) });
    const order = await newestOrder(t.db, user.userId);
    expect(order).toMatchObject({ status: 'cancelled', note: COST_ABOVE_PRICE });
    expect(order.upstream_ref).toBeNull(); // rated and refused before it was chosen: never bought
    expect(await ledgerSumCents(t.db, user.userId)).toBe(5_000);
    expect(fake.purchases - before).toBe(0);
    const audit = (await auditRowsFor(t, order.id)).find((row) => row.action === 'order.cost_refused');
    expect(audit).toMatchObject({ admin_id: null, target_type: 'order' });
    expect(JSON.parse(audit!.after_json!)).toMatchObject({
      labelType: 'priority',
      upstream: 'easypost',
      price: Number(order.price_cents) / 100,
      upstreamCost,
      maxCostRatio: 1,
    });
    expect(upstreamCost).toBeGreaterThan(Number(order.price_cents) / 100);
  });

  it('a purchase whose answer is lost stays Processing, then the recorded Shipment gives its label: one purchase', async () => {
    const before = fake.purchases;
    fake.faults.push({ kind: 'lose', on: 'buy', count: 1 });
    const user = await fundedCustomer(t.app, 5_000, t.db);
    expect((await place(user)).json()).toMatchObject({ message: ORDER_CREATED });
    expect((await newestOrder(t.db, user.userId)).status).toBe('processing');
    const order = await settledOrder(t.db, user.userId);
    expect(order).toMatchObject({ status: 'completed', tracking: fake.shipments.get(order.upstream_ref!).tracking_code });
    expect(fake.purchases - before).toBe(1);
    expect((await refundsOf(order.id)).map((l) => l.kind)).toEqual(['order_charge']);
  });

  it.each([
    ['500s', { kind: '500', count: 2 }],
    ['a timeout', { kind: 'hang', on: 'create', count: 1 }],
    ['a timeout of the purchase', { kind: 'hang', on: 'buy', count: 1 }],
  ] as const)('%s: the order stays Processing and is completed by a later try, bought once', async (_name, fault) => {
    const before = fake.purchases;
    fake.faults.push({ ...fault });
    const user = await fundedCustomer(t.app, 5_000, t.db);
    expect((await place(user)).json()).toMatchObject({ message: ORDER_CREATED });
    expect(await settledOrder(t.db, user.userId)).toMatchObject({ status: 'completed' });
    expect(fake.purchases - before).toBe(1);
  });

  it('a 429 is waited out as its Retry-After asks, in the same request', async () => {
    const before = fake.purchases;
    fake.faults.push({ kind: '429', on: 'buy', count: 1, retryAfterSeconds: 2 });
    const buysBefore = fake.buysArrived.length;
    const user = await fundedCustomer(t.app, 5_000, t.db);
    expect((await place(user)).json()).toMatchObject({ message: ORDER_CREATED });
    expect((await newestOrder(t.db, user.userId)).status).toBe('completed');
    const [refused, bought] = fake.buysArrived.slice(buysBefore);
    // The 2 s it asked, not the 1 s the client waits when it hears no Retry-After (timers never fire early).
    expect(bought - refused).toBeGreaterThanOrEqual(1990);
    expect(fake.purchases - before).toBe(1);
  });

  it('past LABEL_PROCESSING_LIMIT_MINUTES an order is refunded, unless the upstream has its label', async () => {
    const before = fake.purchases;
    const user = await fundedCustomer(t.app, 5_000, t.db);
    // Never answering: the order waits, Processing.
    fake.faults.push({ kind: '500', count: 1_000_000 });
    await place(user);
    const stuck = await newestOrder(t.db, user.userId);
    // Processing (no upstream could price it), asked again with a back-off counted in its reference (1 s, 2 s, 4 s...).
    expect(stuck).toMatchObject({ status: 'processing', provider_ref: 'upstreams:retry:1' });
    expect(Date.parse(stuck.claimed_until!) - Date.parse(stuck.updated_at)).toBeGreaterThanOrEqual(1000);
    await t.db
      .updateTable('orders')
      .set({ created_at: new Date(Date.now() - 2 * 3_600_000).toISOString() })
      .where('id', '=', stuck.id)
      .execute();
    fake.faults = [];
    // It was never bought (no Shipment recorded): cancelled and refunded.
    expect(await settledOrder(t.db, user.userId)).toMatchObject({ id: stuck.id, status: 'cancelled', note: processingLimitMessage(60) });
    expect(await ledgerSumCents(t.db, user.userId)).toBe(5_000);

    // One whose purchase went through upstream (answer lost, then the upstream unreachable) gets its label.
    const other = await fundedCustomer(t.app, 5_000, t.db);
    fake.faults.push({ kind: 'lose', on: 'buy', count: 1 }, { kind: '500', on: 'retrieve', count: 1_000_000 });
    await place(other);
    const bought = await newestOrder(t.db, other.userId);
    expect(bought.status).toBe('processing');
    await t.db
      .updateTable('orders')
      .set({ created_at: new Date(Date.now() - 2 * 3_600_000).toISOString() })
      .where('id', '=', bought.id)
      .execute();
    fake.faults = [];
    expect(await settledOrder(t.db, other.userId)).toMatchObject({ id: bought.id, status: 'completed' });
    expect(fake.purchases - before).toBe(1);
  });

  it('a bulk order buys exactly one label per row, through 500s and lost answers, and none for the refused rows', async () => {
    const before = fake.purchases;
    const buysBefore = fake.buysArrived.length;
    const user = await fundedCustomer(t.app, 50_000, t.db);
    const rows = usRows(12);
    rows[3].ToStreet = fake.unverifiableStreet;
    const file = csvText(rows);
    const validated = await validateCsv(t.app, user.headers, 'priority', file);
    fake.faults.push({ kind: 'lose', on: 'buy', count: 2 }, { kind: '500', on: 'create', count: 2 });
    const startedAt = performance.now();
    const res = await createFromCsv(t.app, user.headers, { type: 'priority', total_price: validated.json().totalPrice, design: 'evs' }, file);
    expect(res.json()).toEqual({ message: ORDERS_CREATED });
    const { order } = await waitForCompletion(t.app, user.headers);
    expect(order).toMatchObject({ totalOrders: 12, failedOrders: 1 });
    const stored = await t.db
      .selectFrom('orders')
      .select(['status', 'upstream_ref', 'upstream_cost_cents'])
      .where('bulk_order_id', '=', order._id)
      .orderBy('bulk_row')
      .execute();
    expect(stored.filter((r) => r.status === 'completed')).toHaveLength(11);
    expect(stored[3].status).toBe('cancelled');
    expect(fake.purchases - before).toBe(11);
    expect(await pdfPageCount((await download(t.app, user.headers, order.pdf!)).rawPayload)).toBe(11);
    // EASYPOST_MAX_PER_SECOND=5 gives purchases slots 200 ms apart: the 11th buy (two of them with their answers lost,
    // found again by retrieving) reached the upstream 10 slots after the first at the earliest (8 lanes with no limit
    // buy them all within a few ms).
    const buys = fake.buysArrived.slice(buysBefore);
    expect(buys).toHaveLength(11);
    expect(buys[10] - startedAt).toBeGreaterThanOrEqual(10 * 200);
  });

  it('the console shows cost, price and margin of an order and of the last 30 days', async () => {
    const admin = await signUpAdmin(t);
    const user = await fundedCustomer(t.app, 5_000, t.db);
    fake.rates.Priority = '2.05';
    await place(user);
    const order = await newestOrder(t.db, user.userId);
    const detail = (await adminCall(t.app, admin.headers, 'GET', `/orders/${order.id}`)).json();
    const price = Number(order.price_cents) / 100;
    expect(detail.order.upstream).toEqual({
      shipmentId: order.upstream_ref,
      carrier: 'USPS',
      service: 'Priority',
      cost: 2.05,
      margin: Math.round((price - 2.05) * 100) / 100,
    });
    const upstreamNow = async () => (await adminCall(t.app, admin.headers, 'GET', '/overview')).json().upstream;
    const expected = async () => {
      const totals = (
        await t.db.selectFrom('orders').select(['price_cents', 'upstream_cost_cents', 'refund_status']).where('status', '=', 'completed').execute()
      ).filter((o) => o.refund_status !== 'refunded');
      const cost = totals.reduce((sum, o) => sum + Number(o.upstream_cost_cents), 0);
      const sold = totals.reduce((sum, o) => sum + Number(o.price_cents), 0);
      // No insured label here (insurance.test.ts has them).
      return {
        labels30d: totals.length,
        cost30d: cost / 100,
        price30d: sold / 100,
        margin30d: (sold - cost) / 100,
        insured30d: 0,
        insurance30d: 0,
        insuranceCost30d: 0,
      };
    };
    const before = await upstreamNow();
    expect(before).toEqual(await expected());
    // A voided label leaves the margin: the customer has its price back, the shop its cost. One only requested stays.
    await t.db.updateTable('orders').set({ refund_status: 'requested' }).where('id', '=', order.id).execute();
    expect(await upstreamNow()).toEqual(before);
    await t.db.updateTable('orders').set({ refund_status: 'refunded' }).where('id', '=', order.id).execute();
    const after = await upstreamNow();
    expect(after).toEqual(await expected());
    expect(after.labels30d).toBe(before.labels30d - 1);
    expect(Math.round((before.cost30d - after.cost30d) * 100)).toBe(205);
  });

  it('the operator maps each label type to its upstream service (audited); an unmapped type is not offered', async () => {
    const admin = await signUpAdmin(t);
    const listed = (await adminCall(t.app, admin.headers, 'GET', '/upstream-services')).json();
    expect(listed.upstreams.map((u: { name: string }) => u.name)).toEqual(['easypost']);
    const atEasyPost = (s: { mappings: { upstream: string; mapping: unknown }[] }) => s.mappings.find((m) => m.upstream === 'easypost')!.mapping;
    const byUid = Object.fromEntries(listed.services.map((s: { uid: string; mappings: { upstream: string; mapping: unknown }[] }) => [s.uid, atEasyPost(s)]));
    expect(byUid).toMatchObject({
      priority: { carrier: 'USPS', service: 'Priority', carrierAccount: null },
      ground_oz: { carrier: 'USPS', service: 'GroundAdvantage' },
      fedex_ground: { carrier: 'FedEx', service: 'FEDEX_GROUND' },
      ups_standard: { carrier: 'UPS', service: 'UPSStandard' },
      ups_express: { carrier: 'UPS', service: 'Express' },
      ups_express_saver: { carrier: 'UPS', service: 'UPSSaver' },
      ups_express_early: { carrier: 'UPS', service: 'ExpressPlus' },
      ups_expedited: { carrier: 'UPS', service: 'Expedited' },
    });
    const priority = listed.services.find((s: { uid: string }) => s.uid === 'priority');
    const put = (body: unknown) => adminCall(t.app, admin.headers, 'PUT', `/label-types/${priority._id}/upstream/easypost`, body);

    // Bought as another service from the next order on.
    expect((await put({ carrier: 'USPS', service: 'Express', carrierAccount: 'ca_usps' })).json().upstream).toEqual({
      carrier: 'USPS',
      service: 'Express',
      carrierAccount: 'ca_usps',
    });
    const user = await fundedCustomer(t.app, 5_000, t.db);
    fake.rates.Express = '5.15'; // USPS Express for priority's 2 lb, under its price
    await place(user);
    const order = await newestOrder(t.db, user.userId);
    expect(order).toMatchObject({ status: 'completed', upstream_service: 'Express', upstream_carrier: 'USPS' });
    expect((await put({ carrier: 'USPS', service: '' })).statusCode).toBe(400);

    // Unmapped: neither listed nor orderable.
    expect((await put({ carrier: '', service: '' })).json().upstream).toBeNull();
    const offered = (await t.app.inject({ method: 'GET', url: '/api/v1/labeltype/read', headers: user.headers }))
      .json()
      .labelTypes.map((lt: { uid: string }) => lt.uid);
    expect(offered).not.toContain('priority');
    expect(offered).toContain('ground_oz');
    const refused = await place(user);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toContain(LABEL_TYPE_DISABLED);

    await put({ carrier: 'USPS', service: 'Priority' });
    const audit = (await auditRowsFor(t, priority._id)).filter((row) => row.action === 'label_type.upstream');
    expect(audit.map((row) => JSON.parse(row.after_json!).mapping)).toEqual([
      { carrier: 'USPS', service: 'Express', carrierAccount: 'ca_usps' },
      null,
      { carrier: 'USPS', service: 'Priority', carrierAccount: null },
    ]);
    expect(audit.every((row) => row.admin_id === admin.userId)).toBe(true);
  });

  it("a UPS (Canada) order is bought as EasyPost's Canadian UPS service; the US service it was mapped to before gets no rate inside Canada", async () => {
    const admin = await signUpAdmin(t);
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const before = fake.purchases;
    expect((await place(user, orderPayload('ups_standard'))).json()).toMatchObject({ message: ORDER_CREATED });
    const order = await newestOrder(t.db, user.userId);
    expect(order).toMatchObject({ status: 'completed', upstream_carrier: 'UPS', upstream_service: 'UPSStandard', upstream_cost_cents: 735 });
    const shipment = fake.shipments.get(order.upstream_ref!);
    expect(shipment.selected_rate).toMatchObject({ carrier: 'UPS', service: 'UPSStandard', rate: '7.35' });
    expect([shipment.from_address.country, shipment.to_address.country]).toEqual(['CA', 'CA']);
    // Inside Canada the fake rates UPS's Canadian services only, whatever fake.rates says of the US ones.
    expect(shipment.rates.map((r: { carrier: string; service: string }) => `${r.carrier} ${r.service}`).sort()).toEqual([
      'UPS Expedited',
      'UPS Express',
      'UPS ExpressPlus',
      'UPS UPSSaver',
      'UPS UPSStandard',
    ]);
    expect(fakeRate('UPS', 'Ground', 32, CA_SENDER.zip, CA_RECIPIENT.zip)).toBeNull();
    expect(fake.purchases - before).toBe(1);

    // Mapped back to the US service (the old default): no rate for it, so the order is refused and refunded, nothing bought.
    const listed = (await adminCall(t.app, admin.headers, 'GET', '/upstream-services')).json();
    const type = listed.services.find((s: { uid: string }) => s.uid === 'ups_standard');
    const put = (service: string) => adminCall(t.app, admin.headers, 'PUT', `/label-types/${type._id}/upstream/easypost`, { carrier: 'UPS', service });
    expect((await put('Ground')).statusCode).toBe(200);
    onTestFinished(async () => void (await put('UPSStandard')));
    fake.rates.Ground = '1.00';
    const refused = await place(user, orderPayload('ups_standard'));
    expect(refused.statusCode).toBe(502);
    const message = 'UPS Ground is not available for this shipment';
    expect(refused.json()).toEqual({ message: labelFailedMessage(message) });
    expect(await newestOrder(t.db, user.userId)).toMatchObject({ status: 'cancelled', note: message });
    expect(fake.purchases - before).toBe(1);
  });

  it('tracking webhooks: a signed tracker.updated sets the status; forged and replayed events change nothing', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const receiver = await startReceiver();
    onTestFinished(() => receiver.close());
    await t.app.inject({ method: 'PUT', url: '/api/v1/account/webhook', headers: user.headers, payload: { url: receiver.url } });
    await place(user);
    const order = await newestOrder(t.db, user.userId);
    // As EasyPost posts it: the JSON body and its signature.
    const deliver = async (event: Record<string, unknown>, options: { secret?: string } = {}) => {
      const payload = JSON.stringify(event);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/labels/webhook/easypost',
        headers: { 'content-type': 'application/json', 'x-hmac-signature': easyPostSignature(payload, options.secret ?? fake.webhookSecret) },
        payload,
      });
      return { status: res.statusCode, body: res.body };
    };
    const statusOf = async () =>
      (await t.db.selectFrom('orders').select('tracking_status').where('id', '=', order.id).executeTakeFirstOrThrow()).tracking_status;

    const transit = fake.trackerEvent(order.upstream_ref!, 'in_transit');
    expect(await deliver(transit)).toMatchObject({ status: 200 });
    expect(await statusOf()).toBe('in_transit');

    const forged = fake.trackerEvent(order.upstream_ref!, 'delivered');
    expect((await deliver(forged, { secret: 'not-the-secret' })).status).toBe(401);
    expect(await statusOf()).toBe('in_transit');

    const delivered = fake.trackerEvent(order.upstream_ref!, 'delivered');
    expect((await deliver(delivered)).status).toBe(200);
    expect(await statusOf()).toBe('delivered');
    // The earlier event again (a replay) does not take the status back.
    expect(await deliver(transit)).toMatchObject({ status: 200, body: expect.stringContaining('Already received') });
    expect(await statusOf()).toBe('delivered');

    // The order history shows it, and the reseller webhook heard each status once (the replay and the forgery made nothing).
    const history = (await t.app.inject({ method: 'GET', url: '/api/v1/order/read?page=1&limit=10', headers: user.headers })).json();
    expect(history.orders[0]).toMatchObject({ _id: order.id, trackingStatus: 'delivered' });
    const tracked = () => receiver.received.map((r) => JSON.parse(r.body) as { id: string; type: string }).filter((e) => e.type === 'order.tracking');
    // Each once, in any order: webhook deliveries are jobs of their own, which BullMQ may run side by side.
    await vi.waitFor(
      async () =>
        expect(
          tracked()
            .map((e) => e.id)
            .sort(),
        ).toEqual([`order.tracking-${order.id}-delivered`, `order.tracking-${order.id}-in_transit`]),
      WAIT,
    );
  });
});
