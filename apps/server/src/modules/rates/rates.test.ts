import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_TYPE_TAKES_PACKAGE, QUOTE_EXPIRED, QUOTE_NOT_FOUND, QUOTE_PACKAGE_CHANGED, QUOTE_USED, deliveryDate, shopDay, type Rate } from '@portal/contract';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { fundedCustomer } from '../../../test/customers.ts';
import { ledgerSumCents } from '../billing/service.ts';
import { orderParties, SENDER } from '../../../test/sample-addresses.ts';
import { createFromCsv, csvText, usRow, validateCsv, waitForCompletion } from '../../../test/bulk-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type User = Awaited<ReturnType<typeof fundedCustomer>>;
const NEAR = { ...orderParties(), ToZip: '10019', ToCity: 'New York', ToState: 'NY' };
const FAR = orderParties(); // New York to Beverly Hills
const rates = (user: User, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/v1/order/rates', payload, headers: user.headers });
const create = (user: User, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload, headers: user.headers });
const byUid = (list: Rate[]) => Object.fromEntries(list.map((r) => [r.labelType.uid, r]));
const orderRow = (id: string) => t.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
/** Runs `work` with every tier of a type at one price, then puts the tiers back (the catalog's version moves with each write). */
async function atPrice(uid: string, cents: number, work: () => Promise<void>) {
  const ofType = t.db.selectFrom('label_types').select('id').where('uid', '=', uid);
  const tiers = await t.db.selectFrom('label_type_prices').selectAll().where('label_type_id', 'in', ofType).execute();
  await t.db.updateTable('label_type_prices').set({ price_cents: cents }).where('label_type_id', 'in', ofType).execute();
  try {
    await work();
  } finally {
    for (const tier of tiers) await t.db.updateTable('label_type_prices').set({ price_cents: tier.price_cents }).where('id', '=', tier.id).execute();
  }
}

describe('POST /order/rates', () => {
  let user: User;
  beforeAll(async () => {
    user = await fundedCustomer(t.app, 100_000, t.db);
  });

  it('lists every enabled type with its price and sandbox days, and why each other type cannot take the package', async () => {
    const res = await rates(user, { Weight: 2, Length: 10, Width: 8, Height: 4, FromZip: SENDER.zip, ToZip: FAR.ToZip });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ sandbox: true, shipDate: shopDay(), cheapest: 'fedex_ground', fastest: 'priority' });
    const all = byUid(body.rates);
    expect(Object.keys(all).sort()).toEqual(
      ['fedex_ground', 'ground_oz', 'priority', 'ups_expedited', 'ups_express', 'ups_express_early', 'ups_express_saver', 'ups_standard', 'uspsv9'].sort(),
    );
    // New York to Beverly Hills is zone 7 of the sandbox: Priority 3 days, FedEx Ground 4.
    expect(all.priority).toMatchObject({ available: true, price: 6.75, days: 3, deliveryDate: deliveryDate(shopDay(), 3), reason: null });
    expect(all.fedex_ground).toMatchObject({ available: true, price: 6.5, days: 4 });
    expect(all.ground_oz).toMatchObject({ available: false, price: null, reason: 'weight' });
    expect(all.ground_oz.message).toMatch(/at most 15.99 oz/);
    expect(all.ups_standard).toMatchObject({ available: false, reason: 'route', message: 'UPS Standard (Canada) ships only inside Canada' });
  });

  it('says which types are over their size, and days shrink with the distance', async () => {
    const big = byUid((await rates(user, { Weight: 10, Length: 60, Width: 30, Height: 20, FromZip: SENDER.zip, ToZip: NEAR.ToZip })).json().rates);
    // 60 + 2 x (30 + 20) = 160 in: over USPS Priority's 108 and v9's box, within FedEx's 165.
    expect(big.priority).toMatchObject({ available: false, reason: 'size' });
    expect(big.uspsv9).toMatchObject({ available: false, reason: 'size' });
    expect(big.fedex_ground).toMatchObject({ available: true, days: 1 });
    const near = byUid((await rates(user, { Weight: 2, FromZip: SENDER.zip, ToZip: NEAR.ToZip })).json().rates);
    expect(near.priority.days).toBe(1);
  });

  it('counts delivery dates from the ship date, in business days', async () => {
    const ship = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const body = (await rates(user, { Weight: 2, FromZip: SENDER.zip, ToZip: FAR.ToZip, ShipDate: ship })).json();
    expect(body.shipDate).toBe(ship);
    expect(byUid(body.rates).priority.deliveryDate).toBe(deliveryDate(ship, 3));
    expect(deliveryDate('2026-11-27', 1)).toBe('2026-11-30'); // a Friday's next business day is Monday
  });

  it('answers 400 for a ZIP of no country it ships in, and for a missing weight', async () => {
    expect((await rates(user, { Weight: 2, FromZip: 'ABC', ToZip: '90210' })).statusCode).toBe(400);
    expect((await rates(user, { FromZip: '10001', ToZip: '90210' })).statusCode).toBe(400);
  });

  it('prices a Canadian package for the UPS types only', async () => {
    const all = byUid((await rates(user, { Weight: 3, FromZip: 'K1A 0B1', ToZip: 'M5V 3L9' })).json().rates);
    expect(all.ups_standard).toMatchObject({ available: true, price: 9.5 });
    expect(all.priority).toMatchObject({ available: false, reason: 'route' });
  });
});

describe('create-order with a quote or a strategy', () => {
  it('buys at exactly the quoted price, even after the price changed, and only once', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const quote = (await rates(user, { Weight: 2, FromZip: SENDER.zip, ToZip: FAR.ToZip })).json();
    await atPrice('fedex_ground', 999, async () => {
      const res = await create(user, { quoteId: quote.quoteId, labelType: 'fedex_ground', Weight: 2, ...FAR });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ labelType: 'fedex_ground' });
      const order = await orderRow(res.json().orderId);
      expect(order).toMatchObject({ price_cents: 650, label_type_uid: 'fedex_ground', quote_id: quote.quoteId, status: 'completed' });
      expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000 - 650);
      const again = await create(user, { quoteId: quote.quoteId, labelType: 'fedex_ground', Weight: 2, ...FAR });
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toBe(QUOTE_USED);
      expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000 - 650);
    });
  });

  it('refuses an expired quote (409), another customer’s (404), a changed package (400) and a type the quote cannot take (400)', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const other = await fundedCustomer(t.app, 10_000, t.db);
    const quote = (await rates(user, { Weight: 2, FromZip: SENDER.zip, ToZip: FAR.ToZip })).json();
    const order = { quoteId: quote.quoteId, labelType: 'priority', Weight: 2, ...FAR };
    expect((await create(other, order)).json()).toMatchObject({ message: QUOTE_NOT_FOUND });
    expect((await create(user, { ...order, Weight: 3 })).json()).toMatchObject({ message: QUOTE_PACKAGE_CHANGED });
    expect((await create(user, { ...order, labelType: 'ground_oz' })).statusCode).toBe(400);
    await t.db
      .updateTable('quotes')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', quote.quoteId)
      .execute();
    const expired = await create(user, order);
    expect(expired.statusCode).toBe(409);
    expect(expired.json().message).toBe(QUOTE_EXPIRED);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000);
  });

  it('strategy cheapest and fastest choose among the types that can take the package, ties to fewer days then the uid', async () => {
    const user = await fundedCustomer(t.app, 100_000, t.db);
    const cheapest = await create(user, { strategy: 'cheapest', Weight: 2, ...FAR });
    expect(cheapest.json()).toMatchObject({ labelType: 'fedex_ground' });
    expect(await orderRow(cheapest.json().orderId)).toMatchObject({ price_cents: 650, weight: 2 });
    // Far: Priority and v9 both 3 days, FedEx 4: the tie goes to the uid.
    expect((await create(user, { strategy: 'fastest', Weight: 2, ...FAR })).json()).toMatchObject({ labelType: 'priority' });
    // Near, every type takes 1 day: fedex_ground is the first uid.
    expect((await create(user, { strategy: 'fastest', Weight: 2, ...NEAR })).json()).toMatchObject({ labelType: 'fedex_ground' });
    // Priority at FedEx's price: the tie goes to fewer days (far: Priority 3, FedEx 4).
    await atPrice('priority', 650, async () => {
      expect((await create(user, { strategy: 'cheapest', Weight: 2, ...FAR })).json()).toMatchObject({ labelType: 'priority' });
    });
    // In ounces: 8 oz goes to Ground Advantage, priced in ounces.
    const light = await create(user, { strategy: 'cheapest', Weight: 8, WeightUnit: 'oz', ...FAR });
    expect(light.json()).toMatchObject({ labelType: 'ground_oz' });
    expect(await orderRow(light.json().orderId)).toMatchObject({ weight: 8, price_cents: 325 });
    const none = await create(user, { strategy: 'cheapest', Weight: 400, ...FAR });
    expect(none.statusCode).toBe(400);
    expect(none.json().message).toBe(NO_TYPE_TAKES_PACKAGE);
  });
});

describe('a bulk CSV file with a Service column', () => {
  it('prices each row as its Service says: a uid, cheapest or fastest, else the file’s type', async () => {
    const user = await fundedCustomer(t.app, 100_000, t.db);
    const rows = [
      usRow(1),
      usRow(2, { Service: 'fedex_ground' }),
      usRow(3, { Service: 'cheapest' }),
      usRow(4, { Service: 'Fastest' }),
      usRow(5, { Service: 'cheapest', Weight: '0.5' }), // 8 oz: Ground Advantage, priced in ounces
    ];
    const data = csvText(rows);
    const validated = await validateCsv(t.app, user.headers, 'priority', data);
    expect(validated.statusCode).toBe(200);
    // Priority $6.75, FedEx $6.50, cheapest FedEx $6.50, fastest (3 days far) Priority $6.75, 8 oz Ground Advantage $3.25.
    expect(validated.json()).toMatchObject({ totalOrders: 5, totalPrice: 29.75 });
    const created = await createFromCsv(t.app, user.headers, { type: 'priority', design: 'normal', total_price: 29.75 }, data);
    expect(created.statusCode).toBe(200);
    const { order: bulk } = await waitForCompletion(t.app, user.headers);
    const made = await t.db
      .selectFrom('orders')
      .select(['bulk_row', 'label_type_uid', 'price_cents', 'weight', 'design', 'status'])
      .where('bulk_order_id', '=', bulk._id)
      .orderBy('bulk_row')
      .execute();
    expect(made.map((o) => [o.label_type_uid, Number(o.price_cents), o.weight])).toEqual([
      ['priority', 675, 2],
      ['fedex_ground', 650, 2],
      ['fedex_ground', 650, 2],
      ['priority', 675, 2],
      ['ground_oz', 325, 8],
    ]);
    expect(made.every((o) => o.status === 'completed')).toBe(true);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(100_000 - 2975);
  });

  it('names a row whose Service is unknown and a row no type can take', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const unknown = await validateCsv(t.app, user.headers, 'priority', csvText([usRow(1, { Service: 'teleport' }), usRow(2)]));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors).toEqual([expect.objectContaining({ row: 1, column: 'Service', value: 'teleport' })]);
    // The rows a strategy chooses for are priced once the file's other rows are right.
    const heavy = await validateCsv(t.app, user.headers, 'priority', csvText([usRow(1), usRow(2, { Service: 'cheapest', Weight: '400' })]));
    expect(heavy.statusCode).toBe(400);
    expect(heavy.json().errors).toEqual([expect.objectContaining({ row: 2, column: 'Service', message: NO_TYPE_TAKES_PACKAGE })]);
  });
});

describe('a saved package named in rates and create-order', () => {
  it('fills the weight (converted to the type’s unit) and dimensions; an unknown name is a 400', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const saved = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages',
      headers: user.headers,
      payload: { name: 'Mailer', weight: 8, weightUnit: 'oz', length: 10, width: 8, height: 1 },
    });
    expect(saved.statusCode).toBe(200);
    const quoted = byUid((await rates(user, { package: 'mailer', FromZip: SENDER.zip, ToZip: FAR.ToZip })).json().rates);
    expect(quoted.ground_oz).toMatchObject({ available: true, price: 3.25 });
    const res = await create(user, { labelType: 'priority', design: 'normal', package: 'Mailer', ...FAR });
    expect(res.statusCode).toBe(200);
    // 8 oz is 0.5 lb for Priority, with the package's dimensions.
    expect(await orderRow(res.json().orderId)).toMatchObject({ weight: 0.5, length: 10, width: 8, height: 1, price_cents: 450 });
    const unknown = await rates(user, { package: 'Crate', FromZip: SENDER.zip, ToZip: FAR.ToZip });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().message).toBe('No saved package is named "Crate"');
  });
});
