import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LABEL_NOT_READY,
  ORDER_CANCELLED_NO_LABEL,
  ORDER_CREATED,
  ORDER_DUPLICATED,
  ORDER_NOT_FOUND,
  TEMPLATE_REQUIRED,
  USPS_V9_DIMENSIONS_MESSAGE,
} from '@portal/contract';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { INSUFFICIENT_BALANCE, changeBalance, ledgerSumCents } from '../billing/service.ts';
import { balanceOf, orderPayload } from '../../../test/order-fixtures.ts';
import { fundedCustomer } from '../../../test/customers.ts';
import { createFromCsv, csvText, usRows, validateCsv } from '../../../test/bulk-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type User = Awaited<ReturnType<typeof fundedCustomer>>;
const create = (user: User, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload, headers: user.headers });
const list = (user: User, query = '') => t.app.inject({ method: 'GET', url: `/api/v1/order/read${query}`, headers: user.headers });
const download = (user: User, id: string) => t.app.inject({ method: 'GET', url: `/api/v1/order/download/${id}`, headers: user.headers });
const details = (user: User, id: string) => t.app.inject({ method: 'GET', url: `/api/v1/order/details/${id}`, headers: user.headers });
const duplicate = (user: User, id: string) => t.app.inject({ method: 'POST', url: `/api/v1/order/duplicate/${id}`, headers: user.headers });
const quote = async (user: User, labelType: string, weight: number) =>
  (await t.app.inject({ method: 'POST', url: '/api/v1/order/price', payload: { labelType, weight }, headers: user.headers })).json().price as number;
/** Bytes of every label pack file stored so far. */
const packedBytes = () => {
  const root = path.join(t.config.dataDir, 'files', 'labels', 'packs');
  if (!fs.existsSync(root)) return 0;
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .map((f) => fs.statSync(path.join(root, f)))
    .filter((st) => st.isFile())
    .reduce((sum, st) => sum + st.size, 0);
};
const ordersOf = async (user: User) => (await list(user, '?limit=100')).json().orders as any[];

describe('POST /order/create', () => {
  // Signing up costs a password hash; calls that write nothing share one account.
  let shared: User;
  beforeAll(async () => {
    shared = await fundedCustomer(t.app, 100_000, t.db);
  });

  it('charges the server price in one transaction with its ledger row and renders the label', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const price = await quote(user, 'priority', 2);
    const res = await create(user, { ...orderPayload('priority'), price: 0.01 }); // a client price is ignored
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ message: ORDER_CREATED });
    expect(await balanceOf(t.app, user.headers)).toBe(Math.round((100 - price) * 100) / 100);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000 - Math.round(price * 100));

    const [order] = await ordersOf(user);
    expect(order).toMatchObject({
      labelType: { uid: 'priority', name: 'USPS Priority Mail' },
      design: 'normal',
      fromName: 'Jane Sender',
      toName: 'John Receiver',
      price,
      status: 'completed',
      user: user.userId,
      uuid: order._id,
      OrderId: order._id.slice(0, 8).toUpperCase(),
      pdf: `/api/v1/order/download/${order._id}`,
      note: null,
    });
    expect(order.tracking).toMatch(/^94\d{20}$/);
    const charge = await t.db.selectFrom('ledger').selectAll().where('reference', '=', order._id).execute();
    expect(charge).toMatchObject([{ kind: 'order_charge', amount_cents: -Math.round(price * 100) }]);

    const pdf = await download(user, order._id);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe(`attachment; filename="${order.tracking}.pdf"`);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it.each(['uspsv9', 'ground_oz', 'fedex_ground', 'ups_standard', 'ups_express', 'ups_express_saver', 'ups_express_early', 'ups_expedited'])(
    'creates a %s order',
    async (uid) => {
      const res = await create(shared, orderPayload(uid));
      expect(res.json()).toMatchObject({ message: ORDER_CREATED });
      const [order] = await ordersOf(shared);
      expect(order).toMatchObject({ labelType: { uid }, status: 'completed', design: null });
    },
  );

  it('stores 15 x 15 x 15 for uspsv9, the country of the type, and the phone only for fedex_ground', async () => {
    const user = await fundedCustomer(t.app, 20_000, t.db);
    await create(user, orderPayload('uspsv9', { FromCountry: '', ToCountry: undefined, FromPhone: '212 555 0100' }));
    await create(user, orderPayload('fedex_ground', { FromPhone: '212 555 0100' }));
    await create(user, orderPayload('ups_standard', { FromCountry: 'CA', FromState: 'Quebec', FromZip: 'h2x 1y4' }));
    const rows = await t.db.selectFrom('orders').selectAll().where('user_id', '=', user.userId).execute();
    expect(rows[0]).toMatchObject({ length: 15, width: 15, height: 15, from_country: 'United States', to_country: 'United States', from_phone: '' });
    // Kept in one form, E.164.
    expect(rows[1]).toMatchObject({ length: null, from_phone: '+12125550100' });
    expect(rows[2]).toMatchObject({ from_country: 'Canada', from_state: 'QC', from_zip: 'H2X 1Y4' });
  });

  it.each([
    ['priority', { design: undefined }, TEMPLATE_REQUIRED],
    ['priority', { design: 'fancy' }, 'Template must be Pitney Bowes, Normal or EVS'],
    ['priority', { Weight: 0 }, 'Weight must be greater than 0'],
    ['priority', { Weight: 71 }, 'Weight must be at most 70 lb for USPS Priority Mail'],
    ['priority', { Weight: undefined }, 'Weight is required'],
    ['priority', { labelType: 'nope' }, 'Label type not found'],
    ['priority', { FromName: '  ' }, 'From Name is required'],
    ['priority', { ToStreet: undefined }, 'To Street is required'],
    ['priority', { ToCity: '' }, 'To City is required'],
    ['priority', { FromStreet: 'x'.repeat(36) }, 'From Street must be at most 35 characters'],
    ['priority', { ToStreet2: 'y'.repeat(36) }, 'To Street 2 must be at most 35 characters'],
    ['priority', { FromState: 'ON' }, 'From State must be a US state, DC or PR'],
    ['priority', { ToState: 'ZZ' }, 'To State must be a US state, DC or PR'],
    ['priority', { ToZip: '9021' }, 'To ZIP must be a US ZIP code like 12345 or 12345-6789'],
    ['priority', { FromZip: 'K1A 0B1' }, 'From ZIP must be a US ZIP code like 12345 or 12345-6789'],
    ['priority', { ToCountry: 'Canada' }, 'To Country must be United States for this label type'],
    ['priority', { ToName: 'A\u0000B' }, 'To Name holds characters that cannot be printed'],
    // Half a character (a lone UTF-16 surrogate) passed, was charged, and failed at the label provider with a 502.
    ['priority', { ToName: 'Bob \ud800 Smith' }, 'To Name holds characters that cannot be printed'],
    ['priority', { FromName: 'Bob \udfff' }, 'From Name holds characters that cannot be printed'],
    ['priority', { FromStreet: '1 Main \u202e St' }, 'From Street holds characters that cannot be printed'],
    ['priority', { ToCompany: 'Shop \uffff' }, 'To Company holds characters that cannot be printed'],
    ['priority', { ToCity: 'Dallas\u0085' }, 'To City holds characters that cannot be printed'],
    // A weight is a finite decimal with at most 2 decimals, above 0, in plain notation when written as text.
    ['priority', { Weight: 1e-300 }, 'Weight must have at most 2 decimal places'],
    ['priority', { Weight: '1e-300' }, 'Weight must be a number'],
    ['priority', { Weight: '0x2' }, 'Weight must be a number'],
    ['priority', { Weight: 1.234 }, 'Weight must have at most 2 decimal places'],
    ['priority', { Weight: 'Infinity' }, 'Weight must be a number'],
    ['priority', { Weight: -1 }, 'Weight must be greater than 0'],
    ['priority', { Weight: '0' }, 'Weight must be greater than 0'],
    ['priority', { Length: '0x10' }, 'Length must be a number'],
    ['priority', { Width: 10.005 }, 'Width must have at most 2 decimal places'],
    ['ups_standard', { ToState: 'NY' }, 'To State must be a Canadian province or territory'],
    ['ups_standard', { FromZip: '10001' }, 'From ZIP must be a Canadian postal code like K1A 0B1'],
    ['ups_express', { FromCountry: 'United States' }, 'From Country must be Canada for UPS labels'],
    ['fedex_ground', { ToPhone: 'call me' }, 'To Phone must be a valid phone number'],
    ['uspsv9', { Length: 10, Width: 15, Height: 15 }, USPS_V9_DIMENSIONS_MESSAGE],
    ['ground_oz', { Weight: 20 }, 'Weight must be at most 15.99 oz for USPS Ground Advantage (oz)'],
  ])('rejects a %s order with %j: 400 and nothing written', async (uid, change, message) => {
    const before = { orders: (await list(shared)).json().total, balance: await balanceOf(t.app, shared.headers) };
    const res = await create(shared, orderPayload(uid, change));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(message);
    expect({ orders: (await list(shared)).json().total, balance: await balanceOf(t.app, shared.headers) }).toEqual(before);
  });

  it('takes weights written plainly: 2, 2.5 and "2.50"', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    for (const Weight of [2, 2.5, '2.50', 0.01]) expect((await create(user, orderPayload('priority', { Weight }))).statusCode).toBe(200);
    const rows = await t.db.selectFrom('orders').select('weight').where('user_id', '=', user.userId).execute();
    expect(rows.map((r) => Number(r.weight)).sort()).toEqual([0.01, 2, 2.5, 2.5]);
  });

  it('answers 400 naming every bad field at once: the fields, the rules of the type and the weight', async () => {
    // 'Dallas, Texas' is read as TX; the too-long street, the bad ZIP and the bad state are all named.
    const res = await create(
      shared,
      orderPayload('priority', { design: '', ToStreet: 'x'.repeat(55), ToCity: 'Dallas', ToState: 'Texas', ToZip: 'ABCDE', FromState: 'Tejas' }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'design', message: TEMPLATE_REQUIRED },
      { field: 'FromState', message: 'From State must be a US state, DC or PR' },
      { field: 'ToStreet', message: 'To Street must be at most 35 characters' },
      { field: 'ToZip', message: 'To ZIP must be a US ZIP code like 12345 or 12345-6789' },
    ]);
    expect(res.json().message).toBe(
      `4 fields are not valid: ${TEMPLATE_REQUIRED}; From State must be a US state, DC or PR; To Street must be at most 35 characters; ...`,
    );
    // Rules only (the schema passes) and a weight outside the tiers: every one too.
    const rules = await create(shared, orderPayload('priority', { ToState: 'Texas', ToZip: 'ABCDE', Weight: 71 }));
    expect(rules.statusCode).toBe(400);
    expect(rules.json().errors).toEqual([
      { field: 'ToZip', message: 'To ZIP must be a US ZIP code like 12345 or 12345-6789' },
      { field: 'Weight', message: 'Weight must be at most 70 lb for USPS Priority Mail' },
    ]);
    const unknownType = await create(shared, orderPayload('priority', { labelType: 'nope', ToStreet: 'x'.repeat(55) }));
    expect(unknownType.json().errors).toEqual([
      { field: 'labelType', message: 'Label type not found' },
      { field: 'ToStreet', message: 'To Street must be at most 35 characters' },
    ]);
  });

  it.each(['(214) 555-0100', '214.555.0100', '+1 214 555 0100', '214-555-0100'])('takes the phone %s and stores it as +12145550100', async (phone) => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    expect((await create(user, orderPayload('fedex_ground', { FromPhone: phone, ToPhone: phone }))).statusCode).toBe(200);
    const row = await t.db.selectFrom('orders').select(['from_phone', 'to_phone']).where('user_id', '=', user.userId).executeTakeFirstOrThrow();
    expect(row).toEqual({ from_phone: '+12145550100', to_phone: '+12145550100' });
  });

  it('takes a full state or province name as its code', async () => {
    const user = await fundedCustomer(t.app, 20_000, t.db);
    expect((await create(user, orderPayload('priority', { FromState: 'texas', ToState: 'New York' }))).statusCode).toBe(200);
    expect((await create(user, orderPayload('ups_standard', { FromState: 'ontario', ToState: 'British Columbia' }))).statusCode).toBe(200);
    const rows = await t.db.selectFrom('orders').select(['from_state', 'to_state']).where('user_id', '=', user.userId).execute();
    expect(rows).toEqual([
      { from_state: 'TX', to_state: 'NY' },
      { from_state: 'ON', to_state: 'BC' },
    ]);
  });

  it('answers 402 Insufficient balance and writes nothing when the balance is short by a cent, without making its label', async () => {
    const user = await fundedCustomer(t.app, 0, t.db);
    const price = await quote(user, 'priority', 2);
    await t.db
      .transaction()
      .execute((trx) => changeBalance(trx, { userId: user.userId, amountCents: Math.round(price * 100) - 1, kind: 'adjustment', reference: null }));
    const stored = packedBytes();
    const res = await create(user, orderPayload('priority'));
    expect(res.statusCode).toBe(402);
    // Refused before the sandbox rendered its label: no label bytes were stored.
    expect(packedBytes()).toBe(stored);
    expect(res.json()).toEqual({ message: INSUFFICIENT_BALANCE });
    expect(await ordersOf(user)).toHaveLength(0);
    expect(await t.db.selectFrom('orders').select('id').where('user_id', '=', user.userId).execute()).toHaveLength(0);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(Math.round(price * 100) - 1);
  });

  it('needs a signed-in user', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority') });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /order/read', () => {
  let user: User;
  let other: User;
  beforeAll(async () => {
    user = await fundedCustomer(t.app, 100_000, t.db);
    other = await fundedCustomer(t.app, 10_000, t.db);
    for (let i = 1; i <= 12; i++) expect((await create(user, orderPayload('priority', { ToName: `Receiver ${i}` }))).statusCode).toBe(200);
    await create(user, orderPayload('fedex_ground', { ToName: 'Fedex 100% Person' }));
    await create(other, orderPayload('priority', { ToName: 'Receiver 1' }));
  });

  it('pages the user own orders newest first, 10 by default, with empty parameters', async () => {
    const res = await list(user, '?search=&status=&sort=&page=&limit=');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.total).toBe(13);
    expect(body.totalPages).toBe(2);
    expect(body.orders).toHaveLength(10);
    expect(body.orders[0].toName).toBe('Fedex 100% Person');
    expect(body.orders[1].toName).toBe('Receiver 12');
    expect(body.orders.every((o: any) => o.user === user.userId)).toBe(true);
    const page2 = (await list(user, '?page=2')).json();
    expect(page2.orders.map((o: any) => o.toName)).toEqual(['Receiver 3', 'Receiver 2', 'Receiver 1']);
    expect((await list(user, '?page=5')).json()).toMatchObject({ orders: [], total: 13, totalPages: 2 });
  });

  it('sorts oldest first with sort=asc', async () => {
    const body = (await list(user, '?sort=asc&limit=2')).json();
    expect(body.orders.map((o: any) => o.toName)).toEqual(['Receiver 1', 'Receiver 2']);
    expect(body.totalPages).toBe(7);
  });

  it('caps the page size at 100', async () => {
    const body = (await list(user, '?limit=1000')).json();
    expect(body.orders).toHaveLength(13);
    expect(body.totalPages).toBe(1);
  });

  it('searches names, tracking and order id, case-insensitive, wildcards taken literally', async () => {
    const all = await ordersOf(user);
    expect((await list(user, '?search=receiver%2012')).json().orders.map((o: any) => o.toName)).toEqual(['Receiver 12']);
    expect((await list(user, '?search=JANE')).json().total).toBe(13);
    expect((await list(user, '?search=100%25')).json().orders.map((o: any) => o.toName)).toEqual(['Fedex 100% Person']);
    expect((await list(user, '?search=_')).json().total).toBe(0);
    const target = all[5];
    expect((await list(user, `?search=${target.tracking.slice(-10)}`)).json().orders.map((o: any) => o._id)).toEqual([target._id]);
    expect((await list(user, `?search=${target.OrderId}`)).json().orders.map((o: any) => o._id)).toEqual([target._id]);
    expect((await list(user, `?search=${target._id}`)).json().orders.map((o: any) => o._id)).toEqual([target._id]);
    // Another user's matching order never shows.
    expect((await list(user, '?search=Receiver%201&limit=100')).json().orders.every((o: any) => o.user === user.userId)).toBe(true);
  });

  it('filters by status', async () => {
    expect((await list(user, '?status=completed')).json().total).toBe(13);
    expect((await list(user, '?status=All')).json().total).toBe(13);
    expect((await list(user, '?status=cancelled')).json()).toMatchObject({ orders: [], total: 0 });
  });

  it.each([
    ['?status=lost', 'Status must be all or one of pending, processing, completed, cancelled'],
    ['?sort=sideways', 'Sort must be desc or asc'],
    ['?page=0', 'Page must be at least 1'],
    ['?page=abc', 'Page must be a number'],
    ['?limit=-1', 'Limit must be at least 1'],
    [`?search=${'x'.repeat(101)}`, 'Search must be at most 100 characters'],
  ])('rejects %s with a clear 400', async (query, message) => {
    const res = await list(user, query);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(message);
  });
});

describe('download and duplicate', () => {
  it('duplicates an order with the same details, priced and charged again', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    await create(user, orderPayload('fedex_ground', { ToPhone: '+1 (310) 555-0199', Weight: 7 }));
    const [original] = await ordersOf(user);
    const res = await duplicate(user, original._id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ message: ORDER_DUPLICATED });
    const [copy] = await ordersOf(user);
    expect(copy._id).not.toBe(original._id);
    expect(copy).toMatchObject({
      labelType: original.labelType,
      fromName: original.fromName,
      toName: original.toName,
      weight: 7,
      price: original.price,
      status: 'completed',
    });
    expect(copy.tracking).not.toBe(original.tracking);
    const rows = await t.db.selectFrom('orders').selectAll().where('id', 'in', [original._id, copy._id]).execute();
    // Each label its own tracking page.
    const strip = ({ id, created_at, updated_at, tracking, pdf_key, claimed_until, tracking_token, ...rest }: any) => rest;
    expect(strip(rows[0])).toEqual(strip(rows[1]));
    expect(await balanceOf(t.app, user.headers)).toBe(Math.round((50 - 2 * original.price) * 100) / 100);
  });

  it('takes an empty body even when it is labelled JSON', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    await create(user, orderPayload('priority'));
    const [order] = await ordersOf(user);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/order/duplicate/${order._id}`,
      headers: { ...user.headers, 'content-type': 'application/json' },
    });
    expect(res.json()).toMatchObject({ message: ORDER_DUPLICATED });
    expect(await ordersOf(user)).toHaveLength(2);
    const broken = await t.app.inject({
      method: 'POST',
      url: `/api/v1/order/duplicate/${order._id}`,
      headers: { ...user.headers, 'content-type': 'application/json' },
      payload: '{"x":',
    });
    expect(broken.statusCode).toBe(400);
    expect(await ordersOf(user)).toHaveLength(2);
  });

  it('refuses a duplicate the balance cannot pay: 402 and nothing written', async () => {
    const user = await fundedCustomer(t.app, 0, t.db);
    const price = await quote(user, 'priority', 2);
    await t.db
      .transaction()
      .execute((trx) => changeBalance(trx, { userId: user.userId, amountCents: Math.round(price * 100), kind: 'adjustment', reference: null }));
    await create(user, orderPayload('priority'));
    const [order] = await ordersOf(user);
    const res = await duplicate(user, order._id);
    expect(res.statusCode).toBe(402);
    expect(await ordersOf(user)).toHaveLength(1);
  });

  it('answers 404 for another user order id, and for an unknown id, on every call that takes one', async () => {
    const owner = await fundedCustomer(t.app, 5_000, t.db);
    const stranger = await fundedCustomer(t.app, 5_000, t.db);
    await create(owner, orderPayload('priority'));
    const [order] = await ordersOf(owner);
    for (const id of [order._id, '00000000-0000-4000-8000-000000000000']) {
      for (const res of [await download(stranger, id), await duplicate(stranger, id), await details(stranger, id)]) {
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ message: ORDER_NOT_FOUND });
      }
    }
    expect(await ordersOf(stranger)).toHaveLength(0);
    expect(await balanceOf(t.app, stranger.headers)).toBe(50);
  });

  it('answers 409 for the label of an order that is not completed', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    await create(user, orderPayload('priority'));
    const [order] = await ordersOf(user);
    await t.db.updateTable('orders').set({ status: 'processing' }).where('id', '=', order._id).execute();
    expect((await download(user, order._id)).json()).toEqual({ message: LABEL_NOT_READY });
    await t.db.updateTable('orders').set({ status: 'cancelled' }).where('id', '=', order._id).execute();
    const res = await download(user, order._id);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ message: ORDER_CANCELLED_NO_LABEL });
  });

  it('needs a signed-in user', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/order/download/${id}` })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/order/duplicate/${id}` })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/order/read' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/order/details/${id}` })).statusCode).toBe(401);
  });
});

describe('GET /order/details/:id', () => {
  it('opens the owner order whole: both addresses, weight and dimensions, type and template, tracking, price and its charge', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    await create(user, orderPayload('uspsv9', { FromCompany: 'Acme', FromStreet2: 'Suite 4', ToPhone: '' }));
    const [listed] = await ordersOf(user);
    const res = await details(user, listed._id);
    expect(res.statusCode).toBe(200);
    const { order, ledger } = res.json();
    expect(order).toMatchObject({ ...listed, length: 15, width: 15, height: 15, bulkOrderId: null, bulkRow: null, printedAs: {} });
    expect(order.from).toMatchObject({ name: 'Jane Sender', company: 'Acme', street2: 'Suite 4', state: 'NY', zip: '10001', country: 'United States' });
    expect(order.to).toMatchObject({ name: 'John Receiver', state: 'CA', zip: '90210', country: 'United States' });
    expect(ledger).toEqual([expect.objectContaining({ kind: 'order_charge', amount: -listed.price, reference: listed._id })]);
  });

  it('takes names in any script and says what the label prints otherwise than typed', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    expect(
      (await create(user, orderPayload('priority', { ToName: '李小龙 👍', ToCompany: 'O’Brien – €', FromName: 'Nguyễn Văn Đức', FromCity: 'Zürich' })))
        .statusCode,
    ).toBe(200);
    const [listed] = await ordersOf(user);
    const { order } = (await details(user, listed._id)).json();
    expect(order.to).toMatchObject({ name: '李小龙 👍', company: 'O’Brien – €' });
    expect(order.printedAs).toEqual({ ToName: 'Li Xiao Long', FromName: 'Nguyen Van Duc' });
  });

  it('names the bulk order and row an order came from; the charge is the bulk order own', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const csv = csvText(usRows(2));
    const { totalPrice } = (await validateCsv(t.app, user.headers, 'priority', csv)).json();
    const bulk = await createFromCsv(t.app, user.headers, { type: 'priority', total_price: totalPrice, design: 'normal' }, csv);
    expect(bulk.statusCode).toBe(200);
    const orders = await ordersOf(user);
    const rows = await Promise.all(orders.map(async (o) => (await details(user, o._id)).json()));
    const bulkId = rows[0].order.bulkOrderId;
    expect(bulkId).toEqual(expect.any(String));
    expect(rows.map((r) => [r.order.bulkOrderId, r.order.bulkRow]).sort()).toEqual([
      [bulkId, 1],
      [bulkId, 2],
    ]);
    expect(rows.map((r) => r.ledger)).toEqual([[], []]);
  });
});
