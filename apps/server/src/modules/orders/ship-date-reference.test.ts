import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { ORDER_CREATED, shopDay } from '@portal/contract';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { orderPayload } from '../../../test/order-fixtures.ts';
import { fundedCustomer } from '../../../test/customers.ts';
import { createFromCsv, csvText, usRow, validateCsv, waitForCompletion } from '../../../test/bulk-fixtures.ts';
import { callApi, labelFields, resellerUser } from '../../../test/reseller-fixtures.ts';
import { RATES_UNDER_PRICES, startEasyPostApp, settledOrder } from '../../../test/easypost-fixtures.ts';
import { SAMPLE_MARK } from '../../providers/labels/label-provider.ts';

// Issue 47: an order's ship date (today to 7 days ahead, UTC) and its two reference lines, through every way an order
// is made, on the label (PDF and ZPL), upstream (EasyPost's options), in the order history and its search.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

type User = Awaited<ReturnType<typeof fundedCustomer>>;
const create = (user: User, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload, headers: user.headers });
const get = (user: User, url: string) => t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: user.headers });
const newest = (userId: string) =>
  t.db.selectFrom('orders').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirstOrThrow();

/** The text of a label PDF's first page, read back with pdf.js. */
async function pdfText(pdf: Uint8Array): Promise<string> {
  const doc = await getDocument({ data: new Uint8Array(pdf), verbosity: 0 }).promise;
  const content = await (await doc.getPage(1)).getTextContent();
  await doc.destroy();
  return content.items.map((item) => ('str' in item ? item.str : '')).join(' ');
}

describe('ship date', () => {
  it('takes today and 7 days ahead, refuses yesterday, 8 days ahead and a day that does not exist with a 400 naming Ship Date', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    for (const day of [shopDay(0), shopDay(7)]) {
      const res = await create(user, orderPayload('priority', { ShipDate: day }));
      expect(res.json()).toMatchObject({ message: ORDER_CREATED });
      expect(await newest(user.userId)).toMatchObject({ ship_date: day, status: 'completed' });
    }
    const range = `Ship Date must be from today to 7 days ahead (${shopDay(0)} to ${shopDay(7)}, UTC)`;
    for (const day of [shopDay(-1), shopDay(8)]) {
      const res = await create(user, orderPayload('priority', { ShipDate: day }));
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(range);
    }
    const bad = await create(user, orderPayload('priority', { ShipDate: '2026-02-30' }));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('Ship Date must be a date like 2026-12-01');
  });

  it('is today when left out, and a duplicate of an order whose ship date has passed ships today', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    expect((await create(user, orderPayload('ground_oz', { Reference: 'Kept' }))).statusCode).toBe(200);
    const first = await newest(user.userId);
    expect(first.ship_date).toBe(shopDay(0));
    // As if it was made days ago.
    await t.db
      .updateTable('orders')
      .set({ ship_date: shopDay(-3) })
      .where('id', '=', first.id)
      .execute();
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/order/duplicate/${first.id}`, headers: user.headers })).statusCode).toBe(200);
    expect(await newest(user.userId)).toMatchObject({ ship_date: shopDay(0), reference1: 'Kept' });

    expect((await create(user, orderPayload('ground_oz', { ShipDate: shopDay(5), Reference: 'A', Reference2: 'B' }))).statusCode).toBe(200);
    const later = await newest(user.userId);
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/order/duplicate/${later.id}`, headers: user.headers })).statusCode).toBe(200);
    const copy = await newest(user.userId);
    expect(copy.id).not.toBe(later.id);
    expect(copy).toMatchObject({ ship_date: shopDay(5), reference1: 'A', reference2: 'B' });
  });
});

describe('reference lines', () => {
  it.each([
    ['priority', 25, 'USPS'],
    ['uspsv9', 25, 'USPS'],
    ['ground_oz', 25, 'USPS'],
    ['fedex_ground', 30, 'FedEx'],
    ['ups_standard', 35, 'UPS'],
  ])('%s: a line of %i characters is taken, one more is refused', async (uid, limit, carrier) => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const atLimit = 'R'.repeat(limit - 1) + '1';
    const res = await create(user, orderPayload(uid, { Reference: atLimit, Reference2: 'Z'.repeat(limit) }));
    expect(res.json()).toMatchObject({ message: ORDER_CREATED });
    expect(await newest(user.userId)).toMatchObject({ reference1: atLimit, reference2: 'Z'.repeat(limit) });

    const over = await create(user, orderPayload(uid, { Reference: 'R'.repeat(limit + 1) }));
    expect(over.statusCode).toBe(400);
    expect(over.json().message).toBe(
      limit === 35 ? 'Reference must be at most 35 characters' : `Reference must be at most ${limit} characters for ${carrier} labels`,
    );
    const over2 = await create(user, orderPayload(uid, { Reference2: 'Z'.repeat(limit + 1) }));
    expect(over2.statusCode).toBe(400);
    expect(over2.json().message).toContain('Reference 2 must be at most');
  });

  it('refuses a line that cannot be printed', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const res = await create(user, orderPayload('priority', { Reference: 'line\nbreak' }));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Reference holds characters that cannot be printed');
  });

  it('prints the ship date and both lines on the sandbox label, as PDF and as ZPL, and shows them in the history and details', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const day = shopDay(2);
    const res = await create(user, orderPayload('fedex_ground', { ShipDate: day, Reference: 'PO 4471-Núñez', Reference2: 'Dock 7' }));
    expect(res.json()).toMatchObject({ message: ORDER_CREATED });
    const order = await newest(user.userId);

    const pdf = await get(user, `/order/download/${order.id}`);
    expect(pdf.statusCode).toBe(200);
    const text = await pdfText(pdf.rawPayload);
    expect(text).toContain(SAMPLE_MARK);
    expect(text).toContain(`Ship date ${day}`);
    expect(text).toContain('REF1: PO 4471-Núñez');
    expect(text).toContain('REF2: Dock 7');

    const zpl = await get(user, `/order/download/${order.id}?format=zpl`);
    expect(zpl.statusCode).toBe(200);
    expect(zpl.body).toContain(SAMPLE_MARK);
    expect(zpl.body).toContain(`^FDShip date ${day}^FS`);
    expect(zpl.body).toContain('^FDREF1: PO 4471-Núñez^FS');
    expect(zpl.body).toContain('^FDREF2: Dock 7^FS');

    const [listed] = (await get(user, '/order/read?limit=1')).json().orders;
    expect(listed).toMatchObject({ _id: order.id, shipDate: day, reference: 'PO 4471-Núñez', reference2: 'Dock 7' });
    const details = (await get(user, `/order/details/${order.id}`)).json().order;
    expect(details).toMatchObject({ shipDate: day, reference: 'PO 4471-Núñez', reference2: 'Dock 7' });
  });

  it('a label without references prints none, and one made before ship dates is dated the day it was made', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    expect((await create(user, orderPayload('priority'))).statusCode).toBe(200);
    const order = await newest(user.userId);
    await t.db.updateTable('orders').set({ ship_date: null }).where('id', '=', order.id).execute();
    const zpl = await get(user, `/order/download/${order.id}?format=zpl`);
    expect(zpl.body).not.toContain('REF1:');
    expect(zpl.body).not.toContain('Ship date');
    expect(zpl.body).toContain(`^FDDATE: ${order.created_at.slice(0, 10)}^FS`);
  });

  it('the order search finds an order by either reference line, whatever its accents and case', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const other = await fundedCustomer(t.app, 10_000, t.db);
    expect((await create(user, orderPayload('priority', { Reference: 'Invoice Zürich-8841' }))).statusCode).toBe(200);
    const found = await newest(user.userId);
    expect((await create(user, orderPayload('priority', { Reference2: 'Pallet QX-17' }))).statusCode).toBe(200);
    const second = await newest(user.userId);
    expect((await create(user, orderPayload('priority'))).statusCode).toBe(200);
    expect((await create(other, orderPayload('priority', { Reference: 'Invoice Zürich-8841' }))).statusCode).toBe(200);
    const search = async (term: string) =>
      ((await get(user, `/order/read?limit=100&search=${encodeURIComponent(term)}`)).json().orders as { _id: string }[]).map((o) => o._id);
    expect(await search('zurich-8841')).toEqual([found.id]);
    expect(await search('INVOICE ZÜRICH')).toEqual([found.id]);
    expect(await search('qx-17')).toEqual([second.id]);
    // Once the index has taken them in too (SQLite indexes a batch at a time; the search finds noted orders meanwhile).
    const { indexPendingOrders } = await import('./order-search.ts');
    await indexPendingOrders(t.db);
    expect(await search('zurich-8841')).toEqual([found.id]);
    expect(await search('qx-17')).toEqual([second.id]);
  });
});

describe('bulk CSV and reseller API', () => {
  it('a CSV row gives ShipDate, Reference and Reference2; a row past the carrier limit or out of range is named', async () => {
    const user = await fundedCustomer(t.app, 100_000, t.db);
    const priority = (await t.db.selectFrom('label_types').select('id').where('uid', '=', 'priority').executeTakeFirstOrThrow()).id;
    const bad = await validateCsv(
      t.app,
      user.headers,
      priority,
      csvText([usRow(1, { Reference: 'x'.repeat(26) }), usRow(2, { ShipDate: shopDay(8) }), usRow(3, { Reference2: 'ok' })]),
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([
      { row: 1, column: 'Reference', message: 'Reference must be at most 25 characters for USPS labels', value: 'x'.repeat(26) },
      { row: 2, column: 'ShipDate', message: `Ship Date must be from today to 7 days ahead (${shopDay(0)} to ${shopDay(7)}, UTC)`, value: shopDay(8) },
    ]);

    const rows = [usRow(1, { ShipDate: shopDay(3), Reference: 'CSV-A', Reference2: 'Shelf 2' }), usRow(2, { Reference: '' })];
    const valid = await validateCsv(t.app, user.headers, priority, csvText(rows));
    expect(valid.statusCode, valid.body).toBe(200);
    const made = await createFromCsv(t.app, user.headers, { type: priority, total_price: valid.json().totalPrice, design: 'normal' }, csvText(rows));
    expect(made.statusCode, made.body).toBe(200);
    const { order: bulk } = await waitForCompletion(t.app, user.headers);
    const orders = await t.db
      .selectFrom('orders')
      .select(['bulk_row', 'ship_date', 'reference1', 'reference2', 'status'])
      .where('bulk_order_id', '=', bulk._id)
      .orderBy('bulk_row')
      .execute();
    expect(orders).toEqual([
      { bulk_row: 1, ship_date: shopDay(3), reference1: 'CSV-A', reference2: 'Shelf 2', status: 'completed' },
      { bulk_row: 2, ship_date: shopDay(0), reference1: '', reference2: '', status: 'completed' },
    ]);
  });

  it('the reseller API takes ShipDate, Reference and Reference2 and answers them; a line past the limit is a 400 naming it', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    const made = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', {
      payload: labelFields({ ShipDate: shopDay(1), Reference: 'API-REF-1', Reference2: 'second' }),
    });
    expect(made.statusCode, made.body).toBe(200);
    expect(made.json().order).toMatchObject({ status: 'completed', shipDate: shopDay(1), reference: 'API-REF-1', reference2: 'second' });
    const pdf = await callApi(t.app, user.apiKey, 'GET', `/order/download/${made.json().order.id}`);
    expect(await pdfText(pdf.rawPayload)).toContain('REF1: API-REF-1');

    const over = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields({ Reference: 'x'.repeat(26) }) });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({
      type: 'error',
      errors: [{ field: 'Reference', message: 'Reference must be at most 25 characters for USPS labels' }],
    });
    const late = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields({ ShipDate: shopDay(-1) }) });
    expect(late.statusCode).toBe(400);
    expect(late.json().errors).toEqual([{ field: 'ShipDate', message: expect.stringContaining('Ship Date must be from today to 7 days ahead') }]);

    const bulk = await callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', {
      payload: { labelType: 'uspsv9', data: [{ ...labelFields(), labelType: undefined, design: undefined, Reference: 'x'.repeat(26) }] },
    });
    expect(bulk.statusCode).toBe(400);
    expect(bulk.json().errors).toEqual([
      expect.objectContaining({ row: 1, field: 'Reference', message: 'Reference must be at most 25 characters for USPS labels' }),
    ]);
  });
});

describe('sent upstream to EasyPost', () => {
  it("a domestic order's Shipment carries label_date (noon UTC of the ship date) and print_custom_1 and _2", async () => {
    const { t: shop, fake, close } = await startEasyPostApp('embedded', 'ship-date-reference');
    fake.rates = { ...RATES_UNDER_PRICES };
    try {
      const user = await fundedCustomer(shop.app, 10_000, shop.db);
      const day = shopDay(4);
      const payload = orderPayload('priority', { ShipDate: day, Reference: 'EP-REF-25-CHARACTERS-XYZ', Reference2: 'Line two' });
      expect((await shop.app.inject({ method: 'POST', url: '/api/v1/order/create', payload, headers: user.headers })).json()).toMatchObject({
        message: ORDER_CREATED,
      });
      const order = await settledOrder(shop.db, user.userId);
      expect(order.status).toBe('completed');
      expect(fake.shipments.get(order.upstream_ref!).options).toMatchObject({
        label_date: `${day}T12:00:00Z`,
        print_custom_1: 'EP-REF-25-CHARACTERS-XYZ',
        print_custom_2: 'Line two',
      });

      // Without them, none of the three is sent.
      const plain = await fundedCustomer(shop.app, 10_000, shop.db);
      expect(
        (await shop.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('fedex_ground'), headers: plain.headers })).statusCode,
      ).toBe(200);
      const options = fake.shipments.get((await settledOrder(shop.db, plain.userId)).upstream_ref!).options;
      expect(options).toMatchObject({ label_date: `${shopDay(0)}T12:00:00Z` });
      expect(options).not.toHaveProperty('print_custom_1');
      expect(options).not.toHaveProperty('print_custom_2');
    } finally {
      await close();
    }
  });
});
