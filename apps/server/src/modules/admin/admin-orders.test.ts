import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_NOT_READY, ORDER_CANCELLED_NO_LABEL, ORDER_NOT_FOUND, type AdminOrder } from '@portal/contract';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { changeBalance, ledgerSumCents } from '../billing/service.ts';
import { createFromCsv, csvText, usRows } from '../../../test/bulk-fixtures.ts';
import { orderPayload } from '../../../test/order-fixtures.ts';
import { ORDER_NOT_WAITING } from '../orders/label-pipeline.ts';
import { adminCall, auditRowsFor, signUpAdmin, signUpCustomer, type Headers } from '../../../test/admin-fixtures.ts';
import { BAD_DAY } from './service.ts';

// Two shops: labels made at once (completed orders, labels to download, the overview), and labels
// the provider is still making for an hour (orders waiting, to cancel), with mail kept in the outbox.
/** Each test makes many calls and the first renders the first label: room for a busy machine. */
const SLOW_MACHINE_MS = 120_000;
let instant: TestApp;
let slow: TestApp;
beforeAll(async () => {
  [instant, slow] = await Promise.all([
    startTestApp({ LABEL_RENDER_THREADS: '0' }),
    startTestApp({ LABEL_SANDBOX_MODE: 'processing', LABEL_SANDBOX_DELAY_MS: '3600000', SMTP_URL: '' }),
  ]);
});
afterAll(() => Promise.all([instant?.close(), slow?.close()]));

/** An admin and a funded customer of this shop. */
async function people(t: TestApp, dollars = 100) {
  const admin = await signUpAdmin(t);
  const customer = await signUpCustomer(t);
  await adminCall(t.app, admin.headers, 'POST', `/users/${customer.userId}/adjust`, { direction: 'credit', amount: dollars, reason: 'test funds' });
  return { admin, customer };
}

const placeOrder = async (t: TestApp, headers: Headers, payload = orderPayload('priority')) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', headers, payload });
  expect(res.statusCode, res.body).toBe(200);
  return (await t.app.inject({ method: 'GET', url: '/api/v1/order/read?limit=1', headers })).json().orders[0] as AdminOrder;
};
const list = async (t: TestApp, headers: Headers, query: string) => {
  const res = await adminCall(t.app, headers, 'GET', `/orders${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { orders: AdminOrder[]; total: number; totalPages: number };
};
const balanceCents = async (t: TestApp, userId: string) =>
  Number((await t.db.selectFrom('users').select('balance_cents').where('id', '=', userId).executeTakeFirstOrThrow()).balance_cents);

describe('orders', { timeout: SLOW_MACHINE_MS }, () => {
  it("lists every customer's orders with their owner, and filters by status, type, user, search and date", async () => {
    const { admin, customer } = await people(instant);
    const other = await signUpCustomer(instant);
    await adminCall(instant.app, admin.headers, 'POST', `/users/${other.userId}/adjust`, { direction: 'credit', amount: 50, reason: 'funds' });
    const a = await placeOrder(instant, customer.headers, orderPayload('priority', { ToName: 'Zelda Unique' }));
    const b = await placeOrder(instant, customer.headers, orderPayload('fedex_ground'));
    const c = await placeOrder(instant, other.headers, orderPayload('ups_standard'));

    const all = await list(instant, admin.headers, '');
    expect(all.orders.slice(0, 3).map((o) => o._id)).toEqual([c._id, b._id, a._id]);
    expect(all.orders[0]).toMatchObject({
      owner: { _id: other.userId, tgId: other.tgId, username: 'Test User' },
      status: 'completed',
      pdf: `/api/v1/admin/orders/${c._id}/label`,
    });

    expect((await list(instant, admin.headers, `?user=${customer.userId}`)).orders.map((o) => o._id)).toEqual([b._id, a._id]);
    expect((await list(instant, admin.headers, `?user=@${other.tgId.toUpperCase()}`)).orders.map((o) => o._id)).toEqual([c._id]);
    expect((await list(instant, admin.headers, '?user=nobody_at_all')).total).toBe(0);
    expect((await list(instant, admin.headers, `?type=fedex_ground&user=${customer.userId}`)).orders.map((o) => o._id)).toEqual([b._id]);
    expect((await list(instant, admin.headers, '?status=cancelled')).total).toBe(0);
    expect((await list(instant, admin.headers, '?status=completed')).total).toBe(all.total);
    expect((await list(instant, admin.headers, '?search=zelda unique')).orders.map((o) => o._id)).toEqual([a._id]);
    expect((await list(instant, admin.headers, `?search=${a.OrderId}`)).orders.map((o) => o._id)).toEqual([a._id]);
    expect((await list(instant, admin.headers, `?search=${b.tracking}`)).orders.map((o) => o._id)).toEqual([b._id]);

    const today = new Date().toISOString().slice(0, 10);
    expect((await list(instant, admin.headers, `?from=${today}&to=${today}`)).total).toBe(all.total);
    expect((await list(instant, admin.headers, '?to=2000-01-01')).total).toBe(0);
    expect((await list(instant, admin.headers, '?from=2999-01-01')).total).toBe(0);
    for (const bad of ['?from=2026-02-30', '?to=yesterday', '?status=lost'])
      expect((await adminCall(instant.app, admin.headers, 'GET', `/orders${bad}`)).statusCode).toBe(400);
    expect((await adminCall(instant.app, admin.headers, 'GET', '/orders?from=2026-02-30')).json().message).toBe(BAD_DAY);

    const paged = await list(instant, admin.headers, '?limit=2&page=2');
    expect(paged.totalPages).toBe(Math.ceil(all.total / 2));
    expect(paged.orders.map((o) => o._id)).toEqual(all.orders.slice(2, 4).map((o) => o._id));
  });

  it('opens any order with its addresses and ledger rows, and downloads its label', async () => {
    const { admin, customer } = await people(instant);
    const order = await placeOrder(instant, customer.headers);
    const detail = await adminCall(instant.app, admin.headers, 'GET', `/orders/${order._id}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.json().order).toMatchObject({
      _id: order._id,
      owner: { _id: customer.userId },
      from: { name: 'Jane Sender', zip: '10001' },
      to: { name: 'John Receiver', company: 'Receiver Co' },
      bulkOrderId: null,
      price: 6.75,
    });
    expect(detail.json().ledger).toEqual([expect.objectContaining({ kind: 'order_charge', amount: -6.75, reference: order._id })]);

    const label = await adminCall(instant.app, admin.headers, 'GET', `/orders/${order._id}/label`);
    expect(label.statusCode).toBe(200);
    expect(label.headers['content-type']).toBe('application/pdf');
    expect(label.headers['content-disposition']).toBe(`attachment; filename="${order.tracking}.pdf"`);
    expect(label.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

    for (const path of ['', '/label']) {
      const missing = await adminCall(instant.app, admin.headers, 'GET', `/orders/no-such-order${path}`);
      expect(missing.statusCode).toBe(404);
      expect(missing.json().message).toBe(ORDER_NOT_FOUND);
    }
  });

  it('cancels a waiting order and refunds it once, with an audit row; 409 once it is no longer waiting', async () => {
    const { admin, customer } = await people(slow);
    const order = await placeOrder(slow, customer.headers);
    expect(order.status).toBe('processing');
    expect((await adminCall(slow.app, admin.headers, 'GET', `/orders/${order._id}/label`)).json().message).toBe(LABEL_NOT_READY);

    const cancels = await Promise.all(
      [1, 2, 3].map(() => adminCall(slow.app, admin.headers, 'POST', `/orders/${order._id}/cancel`, { reason: 'Customer asked' })),
    );
    expect(cancels.map((r) => r.statusCode).sort()).toEqual([200, 409, 409]);
    expect(cancels.find((r) => r.statusCode === 409)!.json().message).toBe(ORDER_NOT_WAITING);
    expect(await balanceCents(slow, customer.userId)).toBe(10_000);
    expect(await ledgerSumCents(slow.db, customer.userId)).toBe(10_000);

    const detail = (await adminCall(slow.app, admin.headers, 'GET', `/orders/${order._id}`)).json();
    expect(detail.order).toMatchObject({ status: 'cancelled', note: 'Customer asked' });
    expect(detail.ledger.map((l: { kind: string; amount: number }) => [l.kind, l.amount])).toEqual([
      ['order_charge', -6.75],
      ['order_refund', 6.75],
    ]);
    expect((await adminCall(slow.app, admin.headers, 'GET', `/orders/${order._id}/label`)).json().message).toBe(ORDER_CANCELLED_NO_LABEL);

    const rows = await auditRowsFor(slow, order._id);
    expect(rows.map((r) => [r.admin_id, r.action, r.target_type, JSON.parse(r.before_json!), JSON.parse(r.after_json!)])).toEqual([
      [admin.userId, 'order.cancel', 'order', { status: 'processing' }, { status: 'cancelled', reason: 'Customer asked', refunded: 6.75, balance: 100 }],
    ]);

    expect((await adminCall(slow.app, admin.headers, 'POST', '/orders/no-such-order/cancel', { reason: 'x' })).statusCode).toBe(404);
    expect((await adminCall(slow.app, admin.headers, 'POST', `/orders/${order._id}/cancel`, {})).json().message).toBe('Reason is required');

    const done = await placeOrder(instant, (await people(instant)).customer.headers);
    const instantAdmin = await signUpAdmin(instant);
    expect((await adminCall(instant.app, instantAdmin.headers, 'POST', `/orders/${done._id}/cancel`, { reason: 'too late' })).statusCode).toBe(409);
  });

  it('changing the prices of a type with orders in flight is safe: a cancel refunds what was charged', async () => {
    const { admin, customer } = await people(slow);
    const order = await placeOrder(slow, customer.headers);
    const type = (await adminCall(slow.app, admin.headers, 'GET', '/label-types')).json().labelTypes.find((lt: { uid: string }) => lt.uid === 'priority');
    const changed = await adminCall(slow.app, admin.headers, 'PUT', `/label-types/${type._id}`, {
      name: type.name,
      maxWeight: 70,
      status: true,
      prices: [{ fromWeight: 0, toWeight: 70, price: 1 }],
    });
    expect(changed.statusCode).toBe(200);
    expect((await adminCall(slow.app, admin.headers, 'GET', `/orders/${order._id}`)).json().order.price).toBe(6.75);
    await adminCall(slow.app, admin.headers, 'POST', `/orders/${order._id}/cancel`, { reason: 'price test' });
    expect(await balanceCents(slow, customer.userId)).toBe(10_000);
    expect(await ledgerSumCents(slow.db, customer.userId)).toBe(10_000);
    await adminCall(slow.app, admin.headers, 'PUT', `/label-types/${type._id}`, {
      name: type.name,
      maxWeight: type.maxWeight,
      status: true,
      prices: type.prices,
    });
  });
});

describe('bulk orders and invoices', { timeout: SLOW_MACHINE_MS }, () => {
  it("lists every customer's bulk orders with their owner, filtered by status and user", async () => {
    const { admin, customer } = await people(instant);
    const res = await createFromCsv(instant.app, customer.headers, { type: 'priority', total_price: 13.5, design: 'normal' }, csvText(usRows(2)));
    expect(res.statusCode, res.body).toBe(200);
    const listed = (await adminCall(instant.app, admin.headers, 'GET', `/bulk-orders?user=${customer.tgId}`)).json();
    expect(listed.total).toBe(1);
    expect(listed.bulkOrders[0]).toMatchObject({ owner: { _id: customer.userId, tgId: customer.tgId }, totalOrders: 2, status: 'completed', total: 13.5 });
    expect(listed.bulkOrders[0].orders).toHaveLength(2);
    expect((await adminCall(instant.app, admin.headers, 'GET', `/bulk-orders?user=${customer.tgId}&status=processing`)).json().total).toBe(0);
  });

  it("lists every customer's invoices with their owner, filtered by status and user", async () => {
    const { admin, customer } = await people(instant, 10);
    const created = await instant.app.inject({
      method: 'POST',
      url: '/api/v1/invoices/create-invoice',
      headers: customer.headers,
      payload: { amount: 25, type: 'crypto' },
    });
    expect(created.statusCode).toBe(200);
    const mine = (await adminCall(instant.app, admin.headers, 'GET', `/invoices?user=${customer.userId}`)).json();
    expect(mine.invoices.map((i: { payment_method: string; status: string; amount: number }) => [i.payment_method, i.status, i.amount])).toEqual([
      ['crypto', 'pending', 25],
      ['manual', 'paid', 10],
    ]);
    expect(mine.invoices[0].owner).toEqual({ _id: customer.userId, tgId: customer.tgId, username: 'Test User' });
    expect((await adminCall(instant.app, admin.headers, 'GET', `/invoices?user=${customer.userId}&status=paid`)).json().invoices).toHaveLength(1);

    await instant.db
      .updateTable('invoices')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', created.json().data._id)
      .execute();
    const expired = (await adminCall(instant.app, admin.headers, 'GET', `/invoices?user=${customer.userId}&status=expired`)).json().invoices;
    expect(expired.map((i: { _id: string; status: string; hosted_url: string | null }) => [i._id, i.status, i.hosted_url])).toEqual([
      [created.json().data._id, 'expired', null],
    ]);
    expect((await adminCall(instant.app, admin.headers, 'GET', `/invoices?user=${customer.userId}&status=pending`)).json().total).toBe(0);
  });
});

describe('outbox', { timeout: SLOW_MACHINE_MS }, () => {
  it('shows the mails kept without SMTP_URL, newest first, body readable', async () => {
    const { admin, customer } = await people(slow);
    for (const email of ['first@example.com', 'second@example.com']) {
      expect((await slow.app.inject({ method: 'POST', url: '/api/v1/account/email', headers: customer.headers, payload: { email } })).statusCode).toBe(200);
    }
    const res = (await adminCall(slow.app, admin.headers, 'GET', '/outbox?limit=2')).json();
    expect(res.mails.map((m: { to: string }) => m.to)).toEqual(['second@example.com', 'first@example.com']);
    expect(res.mails[0]).toMatchObject({ subject: 'Your email verification code' });
    expect(res.mails[0].body).toMatch(/Your code to verify your email is \d{6}\./);
  });
});

describe('audit log', { timeout: SLOW_MACHINE_MS }, () => {
  it('filters by admin, target and date, newest first', async () => {
    const { admin, customer } = await people(slow);
    const second = await signUpAdmin(slow);
    await adminCall(slow.app, second.headers, 'POST', `/users/${customer.userId}/adjust`, { direction: 'debit', amount: 1, reason: 'by the second admin' });
    const forCustomer = (await adminCall(slow.app, admin.headers, 'GET', `/audit?target=${customer.userId}`)).json();
    expect(forCustomer.entries.map((e: { admin: { _id: string }; action: string }) => [e.admin._id, e.action])).toEqual([
      [second.userId, 'user.adjust'],
      [admin.userId, 'user.adjust'],
    ]);
    expect(forCustomer.entries[0]).toMatchObject({
      admin: { tgId: second.tgId },
      targetType: 'user',
      targetId: customer.userId,
      targetUser: { _id: customer.userId, tgId: customer.tgId },
      before: { balance: 100 },
      after: { balance: 99, reason: 'by the second admin' },
    });

    const bySecond = (await adminCall(slow.app, admin.headers, 'GET', `/audit?admin=${second.tgId}`)).json();
    expect(bySecond.total).toBe(1);
    const byType = (await adminCall(slow.app, admin.headers, 'GET', `/audit?target=user&admin=${admin.userId}`)).json();
    expect(byType.entries.every((e: { targetType: string; admin: { _id: string } }) => e.targetType === 'user' && e.admin._id === admin.userId)).toBe(true);
    const today = new Date().toISOString().slice(0, 10);
    expect((await adminCall(slow.app, admin.headers, 'GET', `/audit?target=${customer.userId}&from=${today}&to=${today}`)).json().total).toBe(2);
    expect((await adminCall(slow.app, admin.headers, 'GET', `/audit?target=${customer.userId}&to=2000-01-01`)).json().total).toBe(0);
  });
});

describe('overview', { timeout: SLOW_MACHINE_MS }, () => {
  it('counts users, balances, deposits and sales today and over 30 days, orders by status, the queue, and 30 daily figures', async () => {
    const admin = await signUpAdmin(instant);
    const overview = async () => {
      const res = await adminCall(instant.app, admin.headers, 'GET', '/overview');
      expect(res.statusCode).toBe(200);
      return res.json();
    };
    // History first: closed days are read once per process, and ledger rows are never written into the past.
    const historyUser = await signUpCustomer(instant);
    for (const [days, cents] of [
      [10, 700],
      [40, 900],
    ] as const) {
      const reference = `history-${days}-${historyUser.userId}`;
      await instant.db.transaction().execute((trx) => changeBalance(trx, { userId: historyUser.userId, amountCents: cents, kind: 'deposit', reference }));
      await instant.db
        .updateTable('ledger')
        .set({ created_at: new Date(Date.now() - days * 86_400_000).toISOString() })
        .where('reference', '=', reference)
        .execute();
    }
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    const dayOf = (o: { daily: { date: string; deposits: number }[] }, date: string) => o.daily.find((d) => d.date === date)!;

    const before = await overview();
    expect(dayOf(before, tenDaysAgo).deposits).toBe(7);
    expect(before.daily).toHaveLength(30);
    expect(before.daily.at(-1).date).toBe(new Date().toISOString().slice(0, 10));
    expect(before.fedexWaiting).toBe(0);
    expect(Object.keys(before.queue).sort()).toEqual(['active', 'completed', 'delayed', 'failed', 'total', 'waiting']);

    // A deposit paid through the sandbox page, a manual credit (not a deposit), two orders, one refunded.
    const customer = await signUpCustomer(instant);
    const invoice = (
      await instant.app.inject({ method: 'POST', url: '/api/v1/invoices/create-invoice', headers: customer.headers, payload: { amount: 40, type: 'crypto' } })
    ).json().data;
    const sandboxId = new URL(invoice.hosted_url).pathname.split('/').pop();
    const paid = await instant.app.inject({
      method: 'POST',
      url: `/pay/${sandboxId}/simulate`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'action=pay',
    });
    expect(paid.statusCode).toBeLessThan(400);
    await adminCall(instant.app, admin.headers, 'POST', `/users/${customer.userId}/adjust`, { direction: 'credit', amount: 5, reason: 'goodwill' });
    await placeOrder(instant, customer.headers);
    const refunded = await placeOrder(instant, customer.headers);
    await instant.db.updateTable('orders').set({ status: 'processing' }).where('id', '=', refunded._id).execute();
    await adminCall(instant.app, admin.headers, 'POST', `/orders/${refunded._id}/cancel`, { reason: 'refund test' });

    const [after, ...same] = await Promise.all([overview(), overview(), overview()]);
    for (const other of same) expect(other).toEqual(after);
    expect(after.users - before.users).toBe(1);
    expect(after.activeUsers30d - before.activeUsers30d).toBe(1);
    expect(Math.round((after.balancesTotal - before.balancesTotal) * 100)).toBe(4000 + 500 - 675);
    expect(Math.round((after.deposits.today - before.deposits.today) * 100)).toBe(4000);
    expect(Math.round((after.deposits.last30d - before.deposits.last30d) * 100)).toBe(4000);
    expect(Math.round((after.sales.today - before.sales.today) * 100)).toBe(675);
    expect(Math.round((after.sales.last30d - before.sales.last30d) * 100)).toBe(675);
    expect(after.ordersByStatus.completed - before.ordersByStatus.completed).toBe(1);
    expect(after.ordersByStatus.cancelled - before.ordersByStatus.cancelled).toBe(1);
    // The deposit of 10 days ago is in the window; the one of 40 days ago is not.
    expect(dayOf(after, tenDaysAgo).deposits).toBe(7);
    expect(Math.round(after.deposits.last30d * 100) - Math.round(after.deposits.today * 100)).toBe(700);
    expect(after.daily.at(-1)).toEqual({ date: after.daily.at(-1).date, sales: after.sales.today, deposits: after.deposits.today });
    const sum = (key: 'sales' | 'deposits') => Math.round(after.daily.reduce((s: number, d: Record<string, number>) => s + d[key] * 100, 0));
    expect(sum('sales')).toBe(Math.round(after.sales.last30d * 100));
    expect(sum('deposits')).toBe(Math.round(after.deposits.last30d * 100));
  });
});
