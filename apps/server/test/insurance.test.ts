// Insurance sold with a label: priced by the shop (INSURANCE_RATE_PERCENT of the declared value, at least INSURANCE_MIN,
// up to INSURANCE_MAX), charged with the label in one ledger row, bought with it at EasyPost (insurance on buy), shown on
// the order and the console, refunded with the label; a value the upstream refuses buys nothing and costs nothing.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { INSURANCE_NOT_SOLD, insuranceAboveMaxMessage, type Order } from '@portal/contract';
import { WAIT } from './basics.ts';
import { engines, type TestApp } from './harness.ts';
import { ledgerSumCents } from '../src/modules/billing/service.ts';
import { orderPayload } from './order-fixtures.ts';
import { fundedCustomer } from './customers.ts';
import { signUpAdmin } from './admin-fixtures.ts';
import type { FakeEasyPost } from './fake-easypost.ts';
import { RATES_UNDER_PRICES, startEasyPostApp } from './easypost-fixtures.ts';
import { createFromCsv, csvText, usRow, validateCsv, waitForCompletion } from './bulk-fixtures.ts';
import { insurancePriceFor } from '../src/modules/catalog/service.ts';

type User = Awaited<ReturnType<typeof fundedCustomer>>;

it('prices insurance by the rule: its percent of the value, at least the minimum, none above the limit or when none is sold', () => {
  const rule = { ratePercent: 1.5, minCents: 150, maxCents: 500_000 };
  expect(insurancePriceFor(rule, 25_000)).toEqual({ ok: true, priceCents: 375 });
  expect(insurancePriceFor(rule, 5_000)).toEqual({ ok: true, priceCents: 150 });
  expect(insurancePriceFor(rule, 500_000)).toEqual({ ok: true, priceCents: 7_500 });
  expect(insurancePriceFor(rule, 500_001)).toEqual({ ok: false, message: insuranceAboveMaxMessage(5000) });
  expect(insurancePriceFor({ ...rule, maxCents: 0 }, 100)).toEqual({ ok: false, message: INSURANCE_NOT_SOLD });
});

describe.each(engines)('insurance bought with the label at EasyPost (the official client against the strict fake), on the %s queue', (engine) => {
  let t: TestApp;
  let fake: FakeEasyPost;
  let close = async () => {};
  beforeAll(async () => {
    ({ t, fake, close } = await startEasyPostApp(engine, 'insurance', () => ({
      EASYPOST_TIMEOUT_MS: '500',
      ORDER_POLL_INTERVAL_MS: '100',
      REFUND_POLL_INTERVAL_MS: '100',
      INSURANCE_RATE_PERCENT: '1.5',
      INSURANCE_MIN: '1.5',
      INSURANCE_MAX: '5000',
    })));
    fake.rates = { ...RATES_UNDER_PRICES };
  });
  afterAll(() => close());

  const row = (id: string) => t.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const create = (user: User, Insurance: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: { ...orderPayload('priority'), Insurance }, headers: user.headers });
  const listed = async (user: User, id: string) =>
    ((await t.app.inject({ method: 'GET', url: '/api/v1/order/read?limit=50', headers: user.headers })).json().orders as Order[]).find((o) => o._id === id)!;

  it('charges label and insurance in one ledger row, buys the insurance with the label, shows it, and refunds both with the void', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const before = await ledgerSumCents(t.db, user.userId);
    const priced = await t.app.inject({
      method: 'POST',
      url: '/api/v1/order/price',
      payload: { labelType: 'priority', weight: 2, insurance: 250 },
      headers: user.headers,
    });
    expect(priced.json()).toMatchObject({ insurance: 3.75 });
    const labelPrice = priced.json().price;

    const res = await create(user, '250');
    expect(res.statusCode, res.body).toBe(200);
    const order = await row(res.json().orderId);
    expect(order).toMatchObject({ status: 'completed', insured_cents: 25_000, insurance_cents: 375, insurance_cost_cents: 250 });
    expect(Number(order.price_cents)).toBe(Math.round(labelPrice * 100) + 375);
    const charges = await t.db
      .selectFrom('ledger')
      .select(['amount_cents', 'note'])
      .where('kind', '=', 'order_charge')
      .where('reference', '=', order.id)
      .execute();
    expect(charges).toEqual([{ amount_cents: -Number(order.price_cents), note: expect.stringContaining('insurance of $3.75') }]);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(before - Number(order.price_cents));
    // Bought once, insured on the buy: EasyPost's fee is 1 % of the value.
    const shipment = fake.shipments.get(order.upstream_ref!);
    expect(shipment.insurance).toBe('250.00');
    expect(shipment.fees.find((fee: { type: string }) => fee.type === 'InsuranceFee').amount).toBe('2.50000');
    expect(fake.purchasesFor.get(order.id)).toBe(1);
    expect(await listed(user, order.id)).toMatchObject({ insurance: { value: 250, price: 3.75 }, price: Number(order.price_cents) / 100 });

    // The console: sold and cost, and the order's cost with its insurance.
    const admin = await signUpAdmin(t);
    const overview = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/overview', headers: admin.headers })).json();
    expect(overview.upstream).toMatchObject({ insured30d: 1, insurance30d: 3.75, insuranceCost30d: 2.5 });
    const detail = (await t.app.inject({ method: 'GET', url: `/api/v1/admin/orders/${order.id}`, headers: admin.headers })).json();
    expect(detail.order.upstream.cost).toBe((Number(order.upstream_cost_cents) + 250) / 100);

    // Voided: the whole price back, once.
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/order/refund/${order.id}`, headers: user.headers })).statusCode).toBe(200);
    await vi.waitFor(async () => {
      if ((await row(order.id)).refund_status !== 'refunded') throw new Error('not refunded yet');
    }, WAIT);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(before);
    const credits = await t.db.selectFrom('ledger').select('amount_cents').where('kind', '=', 'label_refund').where('reference', '=', order.id).execute();
    expect(credits).toEqual([{ amount_cents: Number(order.price_cents) }]);
  });

  it('takes no insurance as none, and refuses a value above the shop’s limit or not a dollar amount before charging anything', async () => {
    const user = await fundedCustomer(t.app, 50_000, t.db);
    for (const none of ['', '0', 0, null]) {
      const res = await create(user, none);
      expect(res.statusCode, `${JSON.stringify(none)}: ${res.body}`).toBe(200);
      expect(await row(res.json().orderId)).toMatchObject({ insured_cents: null, insurance_cents: 0, insurance_cost_cents: null });
    }
    const before = await ledgerSumCents(t.db, user.userId);
    const purchases = fake.purchases;
    for (const [value, message] of [
      [5000.01, insuranceAboveMaxMessage(5000)],
      ['12.345', 'Insurance must have at most 2 decimal places'],
      ['lots', 'Insurance must be a number'],
      [-5, 'Insurance must be greater than 0'],
    ] as const) {
      const res = await create(user, value);
      expect([res.statusCode, res.json().errors]).toEqual([400, [{ field: 'Insurance', message }]]);
    }
    const price = await t.app.inject({
      method: 'POST',
      url: '/api/v1/order/price',
      payload: { labelType: 'priority', weight: 2, insurance: 9000 },
      headers: user.headers,
    });
    expect([price.statusCode, price.json().message]).toEqual([400, insuranceAboveMaxMessage(5000)]);
    // The limit itself is sold.
    expect((await create(user, 5000)).statusCode).toBe(200);
    expect(fake.purchases).toBe(purchases + 1);
    expect(await ledgerSumCents(t.db, user.userId)).toBeLessThan(before);
  });

  it('an insurance the upstream refuses buys nothing: the order is cancelled with its reason and its whole price given back', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const before = await ledgerSumCents(t.db, user.userId);
    const purchases = fake.purchases;
    fake.insuranceCap = 100;
    try {
      const res = await create(user, 200);
      // A label refused after payment is answered 502 with the upstream's reason (as every refused label is).
      expect([res.statusCode, res.json().message]).toEqual([502, expect.stringContaining('Insurance of $200.00 is above the maximum of $100.00')]);
      const orders = await t.db.selectFrom('orders').select(['status', 'insured_cents', 'note']).where('user_id', '=', user.userId).execute();
      expect(orders).toEqual([{ status: 'cancelled', insured_cents: 20_000, note: expect.stringContaining('above the maximum') }]);
    } finally {
      fake.insuranceCap = 5000;
    }
    expect(fake.purchases).toBe(purchases);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(before);
  });

  it('prices the CSV’s Insurance column with each row, charges it in the file’s total, and buys each row insured', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const csv = csvText([usRow(1, { Insurance: '100' }), usRow(2), usRow(3, { Insurance: '1000' })]);
    const checked = await validateCsv(t.app, user.headers, 'priority', csv);
    expect(checked.statusCode, checked.body).toBe(200);
    const label = Math.round(
      (await t.app.inject({ method: 'POST', url: '/api/v1/order/price', payload: { labelType: 'priority', weight: 2 }, headers: user.headers })).json().price *
        100,
    );
    // 1.5 % of $100 is under the $1.50 minimum; of $1,000 it is $15.
    expect(Math.round(checked.json().totalPrice * 100)).toBe(3 * label + 150 + 1500);
    const bad = await validateCsv(t.app, user.headers, 'priority', csvText([usRow(1, { Insurance: '6000' })]));
    expect(bad.json().errors).toEqual([{ row: 1, column: 'Insurance', message: insuranceAboveMaxMessage(5000), value: '6000' }]);

    const made = await createFromCsv(t.app, user.headers, { type: 'priority', total_price: checked.json().totalPrice, design: 'normal' }, csv);
    expect(made.statusCode, made.body).toBe(200);
    await waitForCompletion(t.app, user.headers);
    const rows = await t.db
      .selectFrom('orders')
      .select(['status', 'bulk_row', 'insured_cents', 'insurance_cents', 'upstream_ref'])
      .where('user_id', '=', user.userId)
      .orderBy('bulk_row')
      .execute();
    expect(rows.map((r) => [r.status, r.insured_cents, r.insurance_cents])).toEqual([
      ['completed', 10_000, 150],
      ['completed', null, 0],
      ['completed', 100_000, 1500],
    ]);
    expect(rows.map((r) => fake.shipments.get(r.upstream_ref!).insurance)).toEqual(['100.00', null, '1000.00']);
  });
});
