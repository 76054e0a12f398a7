import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADJUSTMENT_BELOW_ZERO, IDEMPOTENCY_KEY_INVALID, IDEMPOTENCY_KEY_REUSED, ledgerKindLabel, paymentMethodLabel } from '@portal/contract';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { signBody } from '../../providers/payments/payment-provider.ts';
import { ledgerSumCents } from '../billing/service.ts';
import { INVOICE_NOT_FOUND, UNKNOWN_PROVIDER } from '../billing/service.ts';
import { adminCall, auditRowsFor, signUpAdmin, signUpCustomer, type Headers } from '../../../test/admin-fixtures.ts';
import { uniqueId } from '../../../test/basics.ts';

const SECRET = 'sandbox-webhook-secret-for-admin-tests';

let t: TestApp;
let admin: Awaited<ReturnType<typeof signUpAdmin>>;
beforeAll(async () => {
  t = await startTestApp({ SANDBOX_WEBHOOK_SECRET: SECRET });
  admin = await signUpAdmin(t);
});
afterAll(() => t.close());

const adjust = (userId: string, payload: Record<string, unknown>) => adminCall(t.app, admin.headers, 'POST', `/users/${userId}/adjust`, payload);
const balanceOf = async (headers: Headers) => (await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers })).json().balance as number;
const balanceCents = async (userId: string) =>
  Number((await t.db.selectFrom('users').select('balance_cents').where('id', '=', userId).executeTakeFirstOrThrow()).balance_cents);
const ledgerCount = async (userId: string) =>
  Number(
    (
      await t.db
        .selectFrom('ledger')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('balance adjustments', () => {
  it('a credit is one adjustment ledger row and a paid Manual invoice the customer sees', async () => {
    const user = await signUpCustomer(t);
    const res = await adjust(user.userId, { direction: 'credit', amount: 12.34, reason: 'Paid by bank transfer' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Balance credited', balance: 12.34 });
    expect(await balanceOf(user.headers)).toBe(12.34);

    const ledger = await t.db.selectFrom('ledger').selectAll().where('user_id', '=', user.userId).execute();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ kind: 'adjustment', amount_cents: 1234, balance_after_cents: 1234, note: 'Paid by bank transfer' });

    const invoices = (await t.app.inject({ method: 'GET', url: '/api/v1/invoices/readAll', headers: user.headers })).json();
    expect(invoices.invoices).toEqual([
      expect.objectContaining({ _id: ledger[0].reference, amount: 12.34, bonus: 0, payment_method: 'manual', status: 'paid', hosted_url: null }),
    ]);
    expect(paymentMethodLabel(invoices.invoices[0].payment_method)).toBe('Manual');

    const statement = (await t.app.inject({ method: 'GET', url: '/api/v1/account/statement', headers: user.headers })).json();
    expect(statement.entries).toEqual([expect.objectContaining({ kind: 'adjustment', amount: 12.34, balance: 12.34, note: 'Paid by bank transfer' })]);
    expect(ledgerKindLabel(statement.entries[0].kind)).toBe('Adjustment');
  });

  it('a debit is one adjustment ledger row and no invoice; a debit below zero is refused and writes nothing', async () => {
    const user = await signUpCustomer(t);
    await adjust(user.userId, { direction: 'credit', amount: 10, reason: 'opening' });
    const debit = await adjust(user.userId, { direction: 'debit', amount: 2.5, reason: 'Chargeback of a deposit' });
    expect(debit.json()).toEqual({ message: 'Balance debited', balance: 7.5 });

    const rowsBefore = await ledgerCount(user.userId);
    const auditBefore = (await auditRowsFor(t, user.userId)).length;
    const tooMuch = await adjust(user.userId, { direction: 'debit', amount: 7.51, reason: 'too much' });
    expect(tooMuch.statusCode).toBe(400);
    expect(tooMuch.json().message).toBe(ADJUSTMENT_BELOW_ZERO);
    expect(await balanceOf(user.headers)).toBe(7.5);
    expect(await ledgerCount(user.userId)).toBe(rowsBefore);
    expect((await auditRowsFor(t, user.userId)).length).toBe(auditBefore);

    expect((await adjust(user.userId, { direction: 'debit', amount: 7.5, reason: 'to zero' })).json().balance).toBe(0);
    const invoices = (await adminCall(t.app, admin.headers, 'GET', `/users/${user.userId}/invoices`)).json();
    expect(invoices.total).toBe(1);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(await balanceCents(user.userId));
  });

  it('a credit sent again with its Idempotency-Key, one after the other or at once, credits once and answers the same', async () => {
    const user = await signUpCustomer(t);
    const key = uniqueId('adjust');
    const credit = { direction: 'credit', amount: 25.5, reason: 'Goodwill for a late parcel' };
    const send = (payload: Record<string, unknown>, headers: Record<string, string> = { 'idempotency-key': key }) =>
      t.app.inject({ method: 'POST', url: `/api/v1/admin/users/${user.userId}/adjust`, headers: { ...admin.headers, ...headers }, payload });
    const first = await send(credit);
    expect(first.json()).toEqual({ message: 'Balance credited', balance: 25.5 });
    const again = await Promise.all([send(credit), send(credit), send(credit)]);
    expect(again.map((r) => [r.statusCode, r.json()])).toEqual(Array(3).fill([200, { message: 'Balance credited', balance: 25.5 }]));
    expect(await balanceCents(user.userId)).toBe(2550);
    expect(await ledgerCount(user.userId)).toBe(1);
    expect((await adminCall(t.app, admin.headers, 'GET', `/users/${user.userId}/invoices`)).json().total).toBe(1);
    expect(await auditRowsFor(t, user.userId)).toHaveLength(1);

    // The same key with another request is refused; another key is another credit; a key that is no key is a 400.
    for (const other of [
      { ...credit, amount: 30 },
      { ...credit, reason: 'Something else' },
      { ...credit, direction: 'debit' },
    ]) {
      const res = await send(other);
      expect([res.statusCode, res.json().message]).toEqual([422, IDEMPOTENCY_KEY_REUSED]);
    }
    expect((await send(credit, { 'idempotency-key': `${key}-2` })).json().balance).toBe(51);
    expect((await send(credit, { 'idempotency-key': 'has spaces' })).json()).toEqual({ message: IDEMPOTENCY_KEY_INVALID });
    // Another operator's same key is theirs.
    const other = await signUpAdmin(t);
    const theirs = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/users/${user.userId}/adjust`,
      headers: { ...other.headers, 'idempotency-key': key },
      payload: credit,
    });
    expect(theirs.json().balance).toBe(76.5);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(await balanceCents(user.userId));
  });

  it('a debit sent again with its Idempotency-Key takes the money once', async () => {
    const user = await signUpCustomer(t);
    await adjust(user.userId, { direction: 'credit', amount: 10, reason: 'opening' });
    const debit = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/admin/users/${user.userId}/adjust`,
        headers: { ...admin.headers, 'idempotency-key': 'debit-once' },
        payload: { direction: 'debit', amount: 4, reason: 'Chargeback' },
      });
    const answers = await Promise.all([debit(), debit()]);
    expect(answers.map((r) => r.json())).toEqual([
      { message: 'Balance debited', balance: 6 },
      { message: 'Balance debited', balance: 6 },
    ]);
    expect((await debit()).json().balance).toBe(6);
    expect(await balanceCents(user.userId)).toBe(600);
    expect(await ledgerCount(user.userId)).toBe(2);
  });

  it('concurrent debits never take the balance below zero, and the ledger sums to the balance', async () => {
    const user = await signUpCustomer(t);
    await adjust(user.userId, { direction: 'credit', amount: 10, reason: 'opening' });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => adjust(user.userId, { direction: 'debit', amount: 3, reason: `debit ${i}` })));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(3);
    expect(results.filter((r) => r.statusCode === 400)).toHaveLength(3);
    expect(await balanceCents(user.userId)).toBe(100);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(100);
  });

  it('writes an audit row per adjustment with the balance before and after', async () => {
    const user = await signUpCustomer(t);
    await adjust(user.userId, { direction: 'credit', amount: 5, reason: 'goodwill' });
    await adjust(user.userId, { direction: 'debit', amount: 1.25, reason: 'correction' });
    const rows = await auditRowsFor(t, user.userId);
    expect(rows.map((r) => [r.admin_id, r.action, r.target_type, JSON.parse(r.before_json!), JSON.parse(r.after_json!)])).toEqual([
      [admin.userId, 'user.adjust', 'user', { balance: 0 }, expect.objectContaining({ balance: 5, direction: 'credit', amount: 5, reason: 'goodwill' })],
      [admin.userId, 'user.adjust', 'user', { balance: 5 }, expect.objectContaining({ balance: 3.75, direction: 'debit', amount: 1.25, reason: 'correction' })],
    ]);
  });

  it.each([
    [{ direction: 'credit', amount: 0, reason: 'x' }, 'Amount must be greater than 0'],
    [{ direction: 'credit', amount: -5, reason: 'x' }, 'Amount must be greater than 0'],
    [{ direction: 'credit', amount: 1.234, reason: 'x' }, 'Amount must have at most 2 decimal places'],
    [{ direction: 'credit', amount: 100_001, reason: 'x' }, 'Amount must be at most $100,000'],
    [{ direction: 'credit', amount: 5 }, 'Reason is required'],
    [{ direction: 'credit', amount: 5, reason: '   ' }, 'Reason is required'],
    [{ direction: 'sideways', amount: 5, reason: 'x' }, 'Choose credit or debit'],
  ])('refuses %j with a clear 400', async (payload, message) => {
    const user = await signUpCustomer(t);
    const res = await adjust(user.userId, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(message);
    expect(await ledgerCount(user.userId)).toBe(0);
  });

  it('answers 404 for an unknown user', async () => {
    expect((await adjust('no-such-user', { direction: 'credit', amount: 5, reason: 'x' })).statusCode).toBe(404);
  });

  it('no webhook can touch a manual invoice', async () => {
    const user = await signUpCustomer(t);
    await adjust(user.userId, { direction: 'credit', amount: 5, reason: 'manual' });
    const invoice = await t.db.selectFrom('invoices').selectAll().where('user_id', '=', user.userId).executeTakeFirstOrThrow();
    const body = JSON.stringify({
      deliveryId: 'd-1',
      type: 'InvoiceSettled',
      timestamp: 1_800_000_000,
      storeId: 'sandbox',
      invoiceId: invoice.provider_invoice_id,
    });
    const post = (provider: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/invoices/webhook/${provider}`,
        headers: { 'content-type': 'application/json', 'sandbox-sig': signBody(SECRET, body) },
        payload: body,
      });
    const manual = await post('manual');
    expect(manual.statusCode).toBe(404);
    expect(manual.json().message).toBe(UNKNOWN_PROVIDER);
    const sandbox = await post('sandbox');
    expect(sandbox.statusCode).toBe(404);
    expect(sandbox.json().message).toBe(INVOICE_NOT_FOUND);
    expect(await balanceOf(user.headers)).toBe(5);
    expect(await ledgerCount(user.userId)).toBe(1);
  });
});

describe('users', () => {
  it('searches by name, Telegram username or email, newest first, and pages through', async () => {
    const marker = `zq${Date.now() % 100000}`;
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await signUpCustomer(t));
    await t.db
      .updateTable('users')
      .set({ username: `Ann ${marker}` })
      .where('id', '=', made[0].userId)
      .execute();
    await t.db
      .updateTable('users')
      .set({ email: `${marker}@example.com` })
      .where('id', '=', made[1].userId)
      .execute();
    const byName = (await adminCall(t.app, admin.headers, 'GET', `/users?search=${marker.toUpperCase()}`)).json();
    expect(byName.users.map((u: { _id: string }) => u._id).sort()).toEqual([made[0].userId, made[1].userId].sort());
    const byTg = (await adminCall(t.app, admin.headers, 'GET', `/users?search=@${made[2].tgId}`)).json();
    expect(byTg.users).toEqual([
      expect.objectContaining({ _id: made[2].userId, tgId: made[2].tgId, role: 'customer', disabled: false, balance: 0, email: null }),
    ]);
    const literal = (await adminCall(t.app, admin.headers, 'GET', '/users?search=%25')).json();
    expect(literal.total).toBe(0);

    const page1 = (await adminCall(t.app, admin.headers, 'GET', '/users?limit=2&page=1')).json();
    const page2 = (await adminCall(t.app, admin.headers, 'GET', '/users?limit=2&page=2')).json();
    expect(page1.users).toHaveLength(2);
    expect(page1.totalPages).toBe(Math.ceil(page1.total / 2));
    expect(page1.users[0].createdAt >= page1.users[1].createdAt).toBe(true);
    expect(page1.users.map((u: { _id: string }) => u._id)).not.toContain(page2.users[0]._id);
    expect((await adminCall(t.app, admin.headers, 'GET', '/users?page=0')).statusCode).toBe(400);
  });

  it("shows a user's balance, role, statement and invoices; 404 for an unknown id", async () => {
    const user = await signUpCustomer(t);
    await adjust(user.userId, { direction: 'credit', amount: 20, reason: 'first' });
    await adjust(user.userId, { direction: 'debit', amount: 5, reason: 'second' });
    const shown = (await adminCall(t.app, admin.headers, 'GET', `/users/${user.userId}`)).json().user;
    expect(shown).toMatchObject({ _id: user.userId, tgId: user.tgId, balance: 15, role: 'customer', disabled: false, emailVerified: false });
    const statement = (await adminCall(t.app, admin.headers, 'GET', `/users/${user.userId}/statement?limit=1`)).json();
    expect(statement).toMatchObject({ total: 2, totalPages: 2, balance: 15 });
    expect(statement.entries).toEqual([expect.objectContaining({ kind: 'adjustment', amount: -5, balance: 15, note: 'second' })]);
    for (const path of ['', '/statement', '/invoices'])
      expect((await adminCall(t.app, admin.headers, 'GET', `/users/no-such-user${path}`)).statusCode).toBe(404);
  });
});
