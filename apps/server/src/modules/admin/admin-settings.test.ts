import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_TYPE_DISABLED, LABEL_TYPE_NOT_FOUND } from '@portal/contract';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { orderPayload } from '../../../test/order-fixtures.ts';
import { adminCall, auditRowsFor, signUpAdmin, signUpCustomer, type Headers } from '../../../test/admin-fixtures.ts';
import { FAQ_ORDER_INCOMPLETE } from '../content/service.ts';

let t: TestApp;
let admin: Awaited<ReturnType<typeof signUpAdmin>>;
let customer: Awaited<ReturnType<typeof signUpCustomer>>;
beforeAll(async () => {
  t = await startTestApp();
  admin = await signUpAdmin(t);
  customer = await signUpCustomer(t);
});
afterAll(() => t.close());

const get = (url: string, headers: Headers = customer.headers) => t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers });
type Tier = { fromWeight: number; toWeight: number; price: number };
const typeNamed = async (uid: string) =>
  (await adminCall(t.app, admin.headers, 'GET', '/label-types')).json().labelTypes.find((lt: { uid: string }) => lt.uid === uid);
const putType = (ref: string, body: { name: string; maxWeight: number; status: boolean; prices: Tier[] }) =>
  adminCall(t.app, admin.headers, 'PUT', `/label-types/${ref}`, body);

describe('label types and prices', () => {
  const tiers = (...t: [number, number, number][]) => t.map(([fromWeight, toWeight, price]) => ({ fromWeight, toWeight, price }));

  it.each([
    ['a gap', tiers([0, 5, 5], [6, 15.99, 6]), 'Tier 2 (6-15.99): gap after tier 1 (5-6 has no price)'],
    ['an overlap', tiers([0, 8, 5], [4, 15.99, 6]), 'Tier 2 (4-15.99): overlaps tier 1 (0-8)'],
    ['a first tier not at 0', tiers([1, 15.99, 5]), 'Tier 1 (1-15.99): the first tier must start at 0'],
    ['a last tier short of the max weight', tiers([0, 10, 5]), 'Tier 1 (0-10): the last tier must end at the max weight 15.99'],
    ['an empty tier', tiers([0, 0, 5], [0, 15.99, 5]), 'Tier 1 (0-0): the end weight must be above the start weight'],
    ['a negative price', tiers([0, 15.99, -1]), 'Tier 1 (0-15.99): the price cannot be negative'],
    ['a price in fractions of a cent', tiers([0, 4, 2.755], [4, 15.99, 3]), 'Tier 1 (0-4): the price must have at most 2 decimal places'],
    ['no tier', [], 'Add at least one price tier'],
  ])('refuses %s, naming the tier, and changes nothing', async (_, prices, message) => {
    const before = await typeNamed('ground_oz');
    const res = await putType('ground_oz', { name: 'Changed', maxWeight: 15.99, status: true, prices });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(message);
    expect(await typeNamed('ground_oz')).toEqual(before);
  });

  it('answers 404 for an unknown type', async () => {
    const res = await putType('no_such_type', { name: 'X', maxWeight: 10, status: true, prices: tiers([0, 10, 5]) });
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe(LABEL_TYPE_NOT_FOUND);
  });

  it('a price change applies to new orders only: orders already charged keep their price', async () => {
    await adminCall(t.app, admin.headers, 'POST', `/users/${customer.userId}/adjust`, { direction: 'credit', amount: 100, reason: 'test funds' });
    const first = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', headers: customer.headers, payload: orderPayload('priority') });
    expect(first.statusCode).toBe(200);
    const before = await typeNamed('priority');
    expect(before.prices.find((p: Tier) => p.fromWeight === 1).price).toBe(6.75);

    const changed = await putType(before._id, {
      name: 'USPS Priority Mail',
      maxWeight: 70,
      status: true,
      // Sent unsorted: the server sorts the tiers by weight.
      prices: tiers([5, 70, 20], [0, 1, 4.5], [1, 5, 9.99]),
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().labelType.prices).toEqual(tiers([0, 1, 4.5], [1, 5, 9.99], [5, 70, 20]));

    const orders = (await get('/order/read')).json().orders;
    expect(orders).toEqual([expect.objectContaining({ price: 6.75 })]);
    const listed = (await adminCall(t.app, admin.headers, 'GET', `/orders?user=${customer.userId}`)).json().orders;
    expect(listed).toEqual([expect.objectContaining({ price: 6.75 })]);
    const charge = await t.db.selectFrom('ledger').select('amount_cents').where('reference', '=', orders[0]._id).executeTakeFirstOrThrow();
    expect(Number(charge.amount_cents)).toBe(-675);

    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v1/order/price', headers: customer.headers, payload: { labelType: 'priority', weight: 2 } })).json(),
    ).toEqual({ price: 9.99 });
    await t.app.inject({ method: 'POST', url: '/api/v1/order/create', headers: customer.headers, payload: orderPayload('priority') });
    expect((await get('/order/read')).json().orders.map((o: { price: number }) => o.price)).toEqual([9.99, 6.75]);
    expect((await get('/auth/access')).json().balance).toBe(100 - 6.75 - 9.99);

    const [row] = await auditRowsFor(t, before._id);
    expect(row).toMatchObject({ admin_id: admin.userId, action: 'label_type.update', target_type: 'label_type' });
    expect(JSON.parse(row.before_json!).prices).toEqual(before.prices);
    expect(JSON.parse(row.after_json!).prices).toEqual(tiers([0, 1, 4.5], [1, 5, 9.99], [5, 70, 20]));
    // The console's audit log names the type; a user row has no such name.
    const [entry] = (await adminCall(t.app, admin.headers, 'GET', `/audit?target=${before._id}`)).json().entries;
    expect(entry).toMatchObject({ targetType: 'label_type', targetId: before._id, targetName: 'USPS Priority Mail' });
    const adjusted = (await adminCall(t.app, admin.headers, 'GET', `/audit?target=${customer.userId}`)).json().entries;
    expect(adjusted[0]).toMatchObject({ targetType: 'user', targetName: null });
  });

  it('a disabled type is listed in the console but no longer offered or orderable; its name and max weight change', async () => {
    const type = await typeNamed('ups_expedited');
    const res = await putType('ups_expedited', { name: 'UPS Expedited (CA)', maxWeight: 100, status: false, prices: tiers([0, 50, 12.5], [50, 100, 30]) });
    expect(res.json().labelType).toMatchObject({ _id: type._id, name: 'UPS Expedited (CA)', maxWeight: 100, status: false });
    expect((await typeNamed('ups_expedited')).status).toBe(false);
    expect((await get('/labeltype/read')).json().labelTypes.map((lt: { uid: string }) => lt.uid)).not.toContain('ups_expedited');
    const order = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', headers: customer.headers, payload: orderPayload('ups_expedited') });
    expect(order.statusCode).toBe(400);
    expect(order.json().message).toBe(LABEL_TYPE_DISABLED);

    await putType('ups_expedited', { name: 'UPS Expedited (CA)', maxWeight: 100, status: true, prices: tiers([0, 50, 12.5], [50, 100, 30]) });
    expect((await get('/labeltype/read')).json().labelTypes.map((lt: { uid: string }) => lt.uid)).toContain('ups_expedited');
  });
});

describe('FedEx hand-made price', () => {
  it('starts at $35.00, is set by an admin, and is what /fed/read-price answers', async () => {
    expect((await get('/fed/read-price')).json()).toEqual({ price: 35 });
    expect((await adminCall(t.app, admin.headers, 'GET', '/fedex-price')).json()).toEqual({ price: 35 });
    const set = await adminCall(t.app, admin.headers, 'PUT', '/fedex-price', { price: 42.5 });
    expect(set.json()).toEqual({ price: 42.5 });
    expect((await get('/fed/read-price')).json()).toEqual({ price: 42.5 });
    expect((await get('/fed/read-price', {} as Headers)).statusCode).toBe(401);
    const [row] = await auditRowsFor(t, 'fedex_price_cents');
    expect([row.action, JSON.parse(row.before_json!), JSON.parse(row.after_json!)]).toEqual(['fedex_price.update', { price: 35 }, { price: 42.5 }]);
  });

  it.each([[0], [-1], [1.234], ['abc']])('refuses a price of %j', async (price) => {
    const res = await adminCall(t.app, admin.headers, 'PUT', '/fedex-price', { price });
    expect(res.statusCode).toBe(400);
  });
});

describe('content', () => {
  it('the announcement: text and on/off, with an audit row', async () => {
    const res = await adminCall(t.app, admin.headers, 'PUT', '/content/announcement', { announcement: '  Closed on Monday  ', status: false });
    expect(res.statusCode).toBe(200);
    expect((await get('/announcement/read')).json()).toEqual({ announcement: 'Closed on Monday', status: false });
    expect((await adminCall(t.app, admin.headers, 'GET', '/content')).json()).toMatchObject({ announcement: 'Closed on Monday', announcementStatus: false });
    const [row] = await auditRowsFor(t, 'announcement');
    expect([row.action, JSON.parse(row.before_json!).status, JSON.parse(row.after_json!)]).toEqual([
      'content.announcement',
      true,
      { announcement: 'Closed on Monday', status: false },
    ]);
  });

  it('the terms are sanitized on save and again when shown', async () => {
    const unsafe =
      '<h2>Terms</h2><p onclick="steal()">Be nice.<script>alert(1)</script></p><a href="javascript:alert(1)">x</a><a href="https://example.com" target="_blank">ok</a><img src="x" onerror="alert(1)"><iframe src="https://evil.example"></iframe>';
    const res = await adminCall(t.app, admin.headers, 'PUT', '/content/tos', { tos: unsafe });
    expect(res.statusCode).toBe(200);
    const saved = res.json().tos as string;
    expect(saved).toBe('<h2>Terms</h2><p>Be nice.</p><a>x</a><a href="https://example.com" target="_blank" rel="noopener noreferrer">ok</a><img src="x" />');
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/tos/read' })).json().tos).toBe(saved);
    expect((await adminCall(t.app, admin.headers, 'GET', '/content')).json().tos).toBe(saved);

    // Whatever got into the database some other way is sanitized when shown.
    await t.db.updateTable('content').set({ value: '<p>Hi<script>alert(2)</script></p>' }).where('key', '=', 'tos').execute();
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/tos/read' })).json().tos).toBe('<p>Hi</p>');

    const [row] = await auditRowsFor(t, 'tos');
    expect(row.action).toBe('content.tos');
    expect(JSON.parse(row.after_json!).tos).toBe(saved);
  });

  it('FAQs: add at the end, edit, reorder and delete, each with an audit row', async () => {
    const shown = async () => (await get('/faq/read')).json().data.map((f: { question: string }) => f.question);
    const seeded = await shown();
    const added = await adminCall(t.app, admin.headers, 'POST', '/faqs', { question: 'Do you ship on Sundays?', answer: 'No.' });
    expect(added.statusCode).toBe(200);
    const id = added.json()._id as string;
    expect(await shown()).toEqual([...seeded, 'Do you ship on Sundays?']);

    expect((await adminCall(t.app, admin.headers, 'PUT', `/faqs/${id}`, { question: 'Do you ship on Sunday?', answer: 'Never.' })).statusCode).toBe(200);
    expect((await get('/faq/read')).json().data.at(-1)).toEqual({ question: 'Do you ship on Sunday?', answer: 'Never.' });

    const ids = (await adminCall(t.app, admin.headers, 'GET', '/content')).json().faqs.map((f: { _id: string }) => f._id) as string[];
    expect(ids.at(-1)).toBe(id);
    expect((await adminCall(t.app, admin.headers, 'PUT', '/faqs-order', { ids: [...ids].reverse() })).statusCode).toBe(200);
    expect(await shown()).toEqual(['Do you ship on Sunday?', ...[...seeded].reverse()]);

    for (const wrong of [ids.slice(1), [...ids, ids[0]], [...ids.slice(1), 'not-a-faq']]) {
      const res = await adminCall(t.app, admin.headers, 'PUT', '/faqs-order', { ids: wrong });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(FAQ_ORDER_INCOMPLETE);
    }

    expect((await adminCall(t.app, admin.headers, 'DELETE', `/faqs/${id}`)).statusCode).toBe(200);
    expect(await shown()).toEqual([...seeded].reverse());
    expect((await adminCall(t.app, admin.headers, 'DELETE', `/faqs/${id}`)).statusCode).toBe(404);
    expect((await adminCall(t.app, admin.headers, 'PUT', `/faqs/${id}`, { question: 'Q', answer: 'A' })).statusCode).toBe(404);
    expect((await adminCall(t.app, admin.headers, 'POST', '/faqs', { question: '', answer: 'A' })).json().message).toBe('Question is required');

    expect((await auditRowsFor(t, id)).map((r) => r.action)).toEqual(['faq.create', 'faq.update', 'faq.delete']);
    const reorder = await t.db.selectFrom('audit_log').selectAll().where('action', '=', 'faq.reorder').execute();
    expect(reorder).toHaveLength(1);
    expect(JSON.parse(reorder[0].after_json!)).toEqual({ ids: [...ids].reverse() });
  });
});
