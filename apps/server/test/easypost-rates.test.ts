import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NOT_AVAILABLE_RIGHT_NOW, labelFailedMessage, type Rate } from '@portal/contract';
import { adminCall, signUpAdmin } from './admin-fixtures.ts';
import type { TestApp } from './harness.ts';
import { fundedCustomer } from './customers.ts';
import { ledgerSumCents } from '../src/modules/billing/service.ts';
import { fakeDeliveryDays, type FakeEasyPost } from './fake-easypost.ts';
import { RATES_UNDER_PRICES, newestOrder, startEasyPostApp } from './easypost-fixtures.ts';
import { orderParties } from './sample-addresses.ts';

type User = Awaited<ReturnType<typeof fundedCustomer>>;
const FAR = orderParties(); // New York 10001 to Beverly Hills 90210

// Rating and quoting answer no queue job: one engine is enough here (the bulk Service column runs on both in rates.test.ts's way).
describe('rates and quotes through EasyPost (the official client against the strict fake)', () => {
  let t: TestApp;
  let fake: FakeEasyPost;
  let close = async () => {};

  beforeAll(async () => {
    ({ t, fake, close } = await startEasyPostApp('embedded', 'easypost-rates', () => ({ EASYPOST_TIMEOUT_MS: '3000' })));
    fake.rates = { ...RATES_UNDER_PRICES };
  });
  afterAll(() => close());
  afterEach(() => {
    fake.faults = [];
    fake.rates = { ...RATES_UNDER_PRICES };
    fake.rateErrors.clear();
  });

  const rates = (user: User, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/v1/order/rates', payload, headers: user.headers });
  const create = (user: User, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload, headers: user.headers });
  const byUid = (list: Rate[]) => Object.fromEntries(list.map((r) => [r.labelType.uid, r]));
  const shipmentsMade = () => fake.requests.filter((r) => r === 'POST /v2/shipments').length;

  it('prices every type in one Shipment, with its delivery days; a service EasyPost does not rate on the route is not offered for it', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const before = shipmentsMade();
    const res = await rates(user, { Weight: 2, ...FAR });
    expect(res.statusCode).toBe(200);
    expect(shipmentsMade()).toBe(before + 1);
    const body = res.json();
    expect(body.sandbox).toBe(false);
    const all = byUid(body.rates);
    expect(all.priority).toMatchObject({
      available: true,
      price: 6.75,
      carrier: 'USPS',
      service: 'Priority',
      days: fakeDeliveryDays('USPS', 'Priority', '10001', '90210'),
    });
    expect(all.fedex_ground).toMatchObject({ available: true, days: fakeDeliveryDays('FedEx', 'FEDEX_GROUND', '10001', '90210') });
    expect(all.ups_standard).toMatchObject({ available: false, reason: 'route' });
    // The quote keeps its Shipment: the one EasyPost made for it, referenced by the quote's id.
    const quote = await t.db.selectFrom('quotes').selectAll().where('id', '=', body.quoteId).executeTakeFirstOrThrow();
    expect(fake.shipments.get(quote.shipment_ref!)).toMatchObject({ reference: body.quoteId });
  });

  it('buys a matching order on the quote’s Shipment and rate: no second Shipment, no rating or retrieving again', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const quote = (await rates(user, { Weight: 2, ...FAR, Reference: 'PO 1234' })).json();
    const shipment = (await t.db.selectFrom('quotes').select('shipment_ref').where('id', '=', quote.quoteId).executeTakeFirstOrThrow()).shipment_ref!;
    const asked = fake.requests.length;
    const res = await create(user, { quoteId: quote.quoteId, labelType: 'priority', design: 'normal', Weight: 2, ...FAR, Reference: 'PO 1234' });
    expect(res.statusCode).toBe(200);
    expect(fake.requests.slice(asked).filter((r) => r.startsWith('POST') || r.startsWith('GET /v2'))).toEqual([`POST /v2/shipments/${shipment}/buy`]);
    const order = await newestOrder(t.db, user.userId);
    expect(order).toMatchObject({ status: 'completed', upstream_ref: shipment, price_cents: 675, upstream_cost_cents: 410 });
    expect(fake.shipments.get(shipment).options).toMatchObject({ print_custom_1: 'PO 1234' });
    expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000 - 675);
  });

  it('buys an insured order or a return on a Shipment of its own (the quote’s is neither), at the quoted price', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    for (const [extra, expected] of [
      [{ Insurance: 100 }, { insurance: '100.00', is_return: false }],
      [{ Return: true }, { insurance: null, is_return: true }],
    ] as const) {
      const quote = (await rates(user, { Weight: 2, ...FAR })).json();
      const quoted = (await t.db.selectFrom('quotes').select('shipment_ref').where('id', '=', quote.quoteId).executeTakeFirstOrThrow()).shipment_ref!;
      const res = await create(user, { quoteId: quote.quoteId, labelType: 'priority', design: 'normal', Weight: 2, ...FAR, ...extra });
      expect(res.statusCode, res.body).toBe(200);
      const order = await newestOrder(t.db, user.userId);
      expect(order.upstream_ref).not.toBe(quoted);
      expect(fake.shipments.get(order.upstream_ref!)).toMatchObject(expected);
      // The quote's price, with the insurance's when insured (1.5 % of $100 is under the $1.50 minimum).
      expect(Number(order.price_cents)).toBe(675 + ('Insurance' in extra ? 150 : 0));
    }
  });

  it('buys an order whose addresses differ from its quote’s on a Shipment of its own, at the quoted price', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const quote = (await rates(user, { Weight: 2, FromZip: '10001', ToZip: '90210' })).json();
    const before = shipmentsMade();
    const res = await create(user, { quoteId: quote.quoteId, labelType: 'fedex_ground', Weight: 2, ...FAR });
    expect(res.statusCode).toBe(200);
    expect(shipmentsMade()).toBe(before + 1);
    const order = await newestOrder(t.db, user.userId);
    expect(order).toMatchObject({ status: 'completed', price_cents: 650, quote_id: quote.quoteId });
    expect(fake.shipments.get(order.upstream_ref!)).toMatchObject({ reference: order.id });
  });

  it('says "not available right now" for a type whose rate is above its price or whose carrier answered an error, and for every type when EasyPost is down', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    fake.rates = { ...RATES_UNDER_PRICES, FEDEX_GROUND: '7.20' };
    fake.rateErrors.add('USPS');
    const all = byUid((await rates(user, { Weight: 2, ...FAR })).json().rates);
    expect(all.fedex_ground).toMatchObject({ available: false, reason: 'unavailable', message: NOT_AVAILABLE_RIGHT_NOW, price: null });
    expect(all.priority).toMatchObject({ available: false, reason: 'unavailable' });
    // Nothing about costs reaches the customer.
    expect(JSON.stringify(all)).not.toMatch(/7\.2|cost/i);
    fake.rateErrors.clear();
    fake.faults = [{ kind: '500', on: 'create', count: 1 }];
    const down = (await rates(user, { Weight: 2, ...FAR })).json();
    expect(down.rates.every((r: Rate) => !r.available)).toBe(true);
    expect(byUid(down.rates).priority).toMatchObject({ reason: 'unavailable', message: NOT_AVAILABLE_RIGHT_NOW });
  });

  it('refuses an order whose rate is above its price in the customer’s words, with an audit row of the system naming the cost', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    fake.rates = { ...RATES_UNDER_PRICES, FEDEX_GROUND: '7.20' };
    const res = await create(user, { labelType: 'fedex_ground', Weight: 2, ...FAR });
    expect(res.statusCode).toBe(502);
    expect(res.json().message).toBe(labelFailedMessage(NOT_AVAILABLE_RIGHT_NOW));
    const order = await newestOrder(t.db, user.userId);
    expect(order.status).toBe('cancelled');
    const audit = await t.db.selectFrom('audit_log').selectAll().where('target_id', '=', order.id).executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ action: 'order.cost_refused', admin_id: null, actor: 'system' });
    expect(JSON.parse(audit.after_json!)).toMatchObject({ labelType: 'fedex_ground', price: 6.5, upstreamCost: 7.2 });
    const admin = await signUpAdmin(t);
    const entries = (await adminCall(t.app, admin.headers, 'GET', `/audit?target=${order.id}`)).json().entries;
    expect(entries[0].admin.username).toBe('System');
  });
});
