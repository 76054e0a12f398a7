// Return labels: a completed order's return is a label of its type with the addresses swapped, charged like any label,
// linked both ways, one an order; EasyPost is asked for it as a return (is_return, the original's addresses).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_NOT_FOUND, SCAN_FORM_REFUSALS, RETURN_CREATED, RETURN_EXISTS, RETURN_OF_RETURN, RETURN_REFUNDED, type Order } from '@portal/contract';
import { engines, type TestApp } from './harness.ts';
import { ledgerSumCents } from '../src/modules/billing/service.ts';
import { orderPayload } from './order-fixtures.ts';
import { fundedCustomer } from './customers.ts';
import type { FakeEasyPost } from './fake-easypost.ts';
import { RATES_UNDER_PRICES, startEasyPostApp } from './easypost-fixtures.ts';
import { createFromCsv, csvText, usRow, validateCsv, waitForCompletion } from './bulk-fixtures.ts';

type User = Awaited<ReturnType<typeof fundedCustomer>>;

describe.each(engines)('return labels through EasyPost (the official client against the strict fake), on the %s queue', (engine) => {
  let t: TestApp;
  let fake: FakeEasyPost;
  let close = async () => {};
  beforeAll(async () => {
    ({ t, fake, close } = await startEasyPostApp(engine, 'return-labels', () => ({ EASYPOST_TIMEOUT_MS: '500', ORDER_POLL_INTERVAL_MS: '100' })));
    fake.rates = { ...RATES_UNDER_PRICES };
  });
  afterAll(() => close());

  const row = (id: string) => t.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const returnOf = (user: User, id: string) => t.app.inject({ method: 'POST', url: `/api/v1/order/return/${id}`, headers: user.headers });
  async function completed(user: User) {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
    expect(res.statusCode).toBe(200);
    const order = await row(res.json().orderId);
    expect(order.status).toBe('completed');
    return order;
  }
  const listed = async (user: User, id: string) =>
    ((await t.app.inject({ method: 'GET', url: '/api/v1/order/read?limit=50', headers: user.headers })).json().orders as Order[]).find((o) => o._id === id)!;

  it('makes a return of the same type with the addresses swapped, charged once, linked both ways, bought at EasyPost as a return', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const original = await completed(user);
    const before = await ledgerSumCents(t.db, user.userId);

    const res = await returnOf(user, original.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ message: RETURN_CREATED });
    const back = await row(res.json().orderId);
    expect(back).toMatchObject({
      status: 'completed',
      label_type_uid: original.label_type_uid,
      weight: original.weight,
      price_cents: original.price_cents,
      return_of: original.id,
      from_name: original.to_name,
      from_street: original.to_street,
      from_zip: original.to_zip,
      to_name: original.from_name,
      to_street: original.from_street,
      to_zip: original.from_zip,
    });
    expect((await row(original.id)).return_order_id).toBe(back.id);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(before - Number(back.price_cents));
    const charges = await t.db.selectFrom('ledger').select('amount_cents').where('kind', '=', 'order_charge').where('reference', '=', back.id).execute();
    expect(charges).toEqual([{ amount_cents: -Number(back.price_cents) }]);

    // Upstream: the original shipment's addresses, is_return set (EasyPost swaps them on the label).
    const shipment = fake.shipments.get(back.upstream_ref!);
    expect(shipment).toMatchObject({ is_return: true, to_address: { street1: original.to_street }, from_address: { street1: original.from_street } });
    expect(fake.shipments.get(original.upstream_ref!).is_return).toBe(false);

    // Both ways in the history.
    expect(await listed(user, back.id)).toMatchObject({ returnOf: original.id, returnId: null });
    expect(await listed(user, original.id)).toMatchObject({ returnOf: null, returnId: back.id });
  });

  it('one return an order (two asks at once make one, charged once); none of a return, a refunded label or another customer’s', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const other = await fundedCustomer(t.app, 1_000, t.db);
    const original = await completed(user);
    const before = await ledgerSumCents(t.db, user.userId);
    const answers = await Promise.all([returnOf(user, original.id), returnOf(user, original.id)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.statusCode === 409)!.json().message).toBe(RETURN_EXISTS);
    const returns = await t.db.selectFrom('orders').select(['id', 'status']).where('return_of', '=', original.id).execute();
    // The loser's order was never written: its charge and its link are one transaction.
    expect(returns.filter((r) => r.status !== 'cancelled')).toHaveLength(1);
    const back = await row(answers.find((a) => a.statusCode === 200)!.json().orderId);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(before - Number(back.price_cents));

    expect((await returnOf(user, original.id)).json().message).toBe(RETURN_EXISTS);
    const ofReturn = await returnOf(user, back.id);
    expect([ofReturn.statusCode, ofReturn.json().message]).toEqual([422, RETURN_OF_RETURN]);
    const stranger = await returnOf(other, (await completed(user)).id);
    expect([stranger.statusCode, stranger.json().message]).toEqual([404, ORDER_NOT_FOUND]);

    // A return label is handed over by its receiver: not on the shipper's SCAN form.
    const form = await t.app.inject({ method: 'POST', url: '/api/v1/scan-form', payload: { orderIds: [back.id] }, headers: user.headers });
    expect(form.statusCode).toBe(422);
    expect(form.json().message).toContain(SCAN_FORM_REFUSALS.returnLabel);

    const refunded = await completed(user);
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/order/refund/${refunded.id}`, headers: user.headers })).statusCode).toBe(200);
    const ofRefunded = await returnOf(user, refunded.id);
    expect([ofRefunded.statusCode, ofRefunded.json().message]).toEqual([422, RETURN_REFUNDED]);
  });

  it('a CSV row or an order with Return yes is the return label of the parcel it describes: its addresses swapped, bought as a return', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const bad = await validateCsv(t.app, user.headers, 'priority', csvText([usRow(1, { Return: 'maybe' })]));
    expect(bad.json().errors).toEqual([{ row: 1, column: 'Return', message: 'Return must be yes or no', value: 'maybe' }]);
    const csv = csvText([usRow(1, { Return: 'yes' }), usRow(2, { Return: 'no' }), usRow(3)]);
    const checked = await validateCsv(t.app, user.headers, 'priority', csv);
    expect(checked.statusCode, checked.body).toBe(200);
    const made = await createFromCsv(t.app, user.headers, { type: 'priority', total_price: checked.json().totalPrice, design: 'normal' }, csv);
    expect(made.statusCode, made.body).toBe(200);
    await waitForCompletion(t.app, user.headers);
    const rows = await t.db.selectFrom('orders').selectAll().where('user_id', '=', user.userId).orderBy('bulk_row').execute();
    expect(rows.map((r) => [r.status, r.is_return, r.return_of])).toEqual([
      ['completed', 1, null],
      ['completed', 0, null],
      ['completed', 0, null],
    ]);
    // Row 1 prints from its To back to its From; EasyPost is sent the outbound parcel's addresses and is_return.
    const sent = usRow(1);
    expect(rows[0]).toMatchObject({ from_name: sent.ToName, from_street: sent.ToStreet, to_name: sent.FromName, to_street: sent.FromStreet });
    expect(fake.shipments.get(rows[0].upstream_ref!)).toMatchObject({
      is_return: true,
      to_address: { street1: sent.ToStreet },
      from_address: { street1: sent.FromStreet },
    });
    expect(fake.shipments.get(rows[1].upstream_ref!).is_return).toBe(false);
    expect(await listed(user, rows[0].id)).toMatchObject({ isReturn: true, returnOf: null });
    // Not on the shipper's SCAN form, and no return of a return.
    const form = await t.app.inject({ method: 'POST', url: '/api/v1/scan-form', payload: { orderIds: [rows[0].id] }, headers: user.headers });
    expect(form.json().message).toContain(SCAN_FORM_REFUSALS.returnLabel);
    expect((await returnOf(user, rows[0].id)).json().message).toBe(RETURN_OF_RETURN);

    // The same through the API's create body, and a duplicate of it is a return again.
    const single = await t.app.inject({
      method: 'POST',
      url: '/api/v1/order/create',
      payload: orderPayload('priority', { Return: true }),
      headers: user.headers,
    });
    const one = await row(single.json().orderId);
    expect(one).toMatchObject({ status: 'completed', is_return: 1, from_name: orderPayload('priority').ToName });
    const again = await t.app.inject({ method: 'POST', url: `/api/v1/order/duplicate/${one.id}`, headers: user.headers });
    expect(again.statusCode, again.body).toBe(200);
    expect(await row(again.json().orderId)).toMatchObject({ is_return: 1, from_name: one.from_name, to_name: one.to_name });
  });
});
