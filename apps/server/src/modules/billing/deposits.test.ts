import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bonusCents, bonusPercent } from '@portal/contract';
import { fundUser, signUp, startTestApp, testDbKind, userIdOf, type TestApp } from '../../../test/harness.ts';
import { signBody } from '../../providers/payments/payment-provider.ts';
import { INVALID_SIGNATURE, INVOICE_NOT_FOUND } from './service.ts';
import { uniqueId } from '../../../test/basics.ts';

const SECRET = 'sandbox-webhook-secret-for-tests-0123456789';

let t: TestApp;
beforeAll(async () => {
  // Behind a proxy on this machine: X-Forwarded-Proto says the shop is served over https.
  t = await startTestApp({ SANDBOX_WEBHOOK_SECRET: SECRET, TRUST_PROXY: '127.0.0.1', ALLOWED_HOSTS: 'shop.example:8443' });
});
afterAll(() => t.close());

type Headers = { authorization: string };

const createInvoice = (headers: Headers, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/invoices/create-invoice', headers, payload });

/** Creates an invoice and returns our id and the sandbox's id (the last segment of the hosted URL). */
async function newInvoice(headers: Headers, amount: number) {
  const res = await createInvoice(headers, { amount, type: 'crypto' });
  expect(res.statusCode).toBe(200);
  const { _id, hosted_url } = res.json().data;
  return { id: _id as string, sandboxId: new URL(hosted_url).pathname.split('/').pop()!, hostedUrl: hosted_url as string };
}

const event = (sandboxId: string, type = 'InvoiceSettled') =>
  JSON.stringify({ deliveryId: uniqueId('d'), type, timestamp: 1_800_000_000, storeId: 'sandbox', invoiceId: sandboxId });

const deliver = (body: string, signature: string | null = signBody(SECRET, body)) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/invoices/webhook/sandbox',
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'sandbox-sig': signature }) },
    payload: body,
  });

/** What the sandbox provider itself says about the invoice (as if paid or expired on its side). */
const setSandboxStatus = (sandboxId: string, status: 'new' | 'settled' | 'expired') =>
  t.db.updateTable('sandbox_invoices').set({ status }).where('id', '=', sandboxId).execute();

const simulate = (sandboxId: string, action: string) =>
  t.app.inject({
    method: 'POST',
    url: `/pay/${sandboxId}/simulate`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `action=${action}`,
  });

const balanceOf = async (headers: Headers) => (await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers })).json().balance as number;
const invoices = async (headers: Headers, query = '') => (await t.app.inject({ method: 'GET', url: `/api/v1/invoices/readAll${query}`, headers })).json();
const statement = async (headers: Headers, query = '') => (await t.app.inject({ method: 'GET', url: `/api/v1/account/statement${query}`, headers })).json();
const invoiceStatus = async (id: string) => (await t.db.selectFrom('invoices').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
const ledgerRowsFor = (reference: string) => t.db.selectFrom('ledger').selectAll().where('reference', '=', reference).orderBy('created_at').execute();

describe('bonus tiers', () => {
  it.each([
    [1, 0],
    [200, 0],
    [200.01, 2],
    [500, 2],
    [500.01, 4],
    [1000, 4],
    [1000.01, 7],
    [100_000, 7],
  ])('a deposit of $%s earns %s%%', (amount, percent) => {
    expect(bonusPercent(amount)).toBe(percent);
  });

  it('rounds bonus cents down to a whole cent', () => {
    expect(bonusCents(20_001, 2)).toBe(400); // 2% of $200.01 is $4.0002
    expect(bonusCents(25_000, 2)).toBe(500);
    expect(bonusCents(50_001, 4)).toBe(2000); // $20.0004
    expect(bonusCents(100_001, 7)).toBe(7000); // $70.0007
  });

  it('fixes the bonus percent on each invoice when it is created, at every boundary', async () => {
    const user = await signUp(t.app);
    const amounts = [1, 200, 200.01, 500, 500.01, 1000, 1000.01];
    for (const amount of amounts) await newInvoice(user.headers, amount);
    const list = await invoices(user.headers, '?limit=100');
    const byAmount = Object.fromEntries(list.invoices.map((i: { amount: number; bonus: number }) => [i.amount, i.bonus]));
    expect(byAmount).toEqual({ 1: 0, 200: 0, 200.01: 2, 500: 2, 500.01: 4, 1000: 4, 1000.01: 7 });
    const rows = await t.db
      .selectFrom('invoices')
      .select(['amount_cents', 'bonus_cents'])
      .where('user_id', '=', await userIdOf(t.app, user.headers))
      .execute();
    expect(Object.fromEntries(rows.map((r) => [r.amount_cents, r.bonus_cents]))).toMatchObject({ 100: 0, 20000: 0, 20001: 400, 50001: 2000, 100001: 7000 });
  });
});

describe('create-invoice', () => {
  let user: Awaited<ReturnType<typeof signUp>>;
  beforeAll(async () => {
    user = await signUp(t.app);
  });

  it.each([
    [0, 'Minimum deposit is $1'],
    [-5, 'Minimum deposit is $1'],
    ['abc', 'Amount must be a number'],
    [100_001, 'Maximum deposit is $100,000'],
    [10.555, 'Amount must have at most 2 decimal places'],
    [null, 'Amount is required'],
  ])('refuses amount %j with 400 %j and creates nothing', async (amount, message) => {
    const res = await createInvoice(user.headers, { amount, type: 'crypto' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(message);
    expect((await invoices(user.headers)).total).toBe(0);
  });

  it('refuses any method but crypto', async () => {
    const res = await createInvoice(user.headers, { amount: 50, type: 'stripe' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Payment method must be crypto');
  });

  it('accepts an amount typed as text in a form field', async () => {
    const other = await signUp(t.app);
    const res = await createInvoice(other.headers, { amount: '25.50', type: 'crypto' });
    expect(res.statusCode).toBe(200);
    expect((await invoices(other.headers)).invoices[0]).toMatchObject({ amount: 25.5, bonus: 0, status: 'pending' });
  });

  it('needs a signed-in user for every deposit call', async () => {
    for (const [method, url] of [
      ['POST', '/api/v1/invoices/create-invoice'],
      ['GET', '/api/v1/invoices/readAll'],
      ['GET', '/api/v1/account/statement'],
    ] as const) {
      expect((await t.app.inject({ method, url, payload: method === 'POST' ? { amount: 10, type: 'crypto' } : undefined })).statusCode).toBe(401);
    }
  });

  it('builds the hosted URL from the origin the request came to, its host allowed (test/link-hosts.test.ts: a forged one is not)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/invoices/create-invoice',
      headers: { ...user.headers, host: 'shop.example:8443', 'x-forwarded-proto': 'https' },
      payload: { amount: 10, type: 'crypto' },
    });
    expect(res.json().data.hosted_url).toMatch(/^https:\/\/shop\.example:8443\/pay\/[0-9a-f-]{36}$/);
  });
});

describe('sandbox hosted page', () => {
  it('pays $250 and returns to /deposits with balance 255.00, the invoice paid and two statement rows', async () => {
    const user = await signUp(t.app);
    const invoice = await newInvoice(user.headers, 250);

    const page = await t.app.inject({ method: 'GET', url: new URL(invoice.hostedUrl).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toBeTruthy();
    expect(page.body).toContain('SANDBOX');
    expect(page.body).toContain('no real payment');
    expect(page.body).toContain('$250.00');
    // The bonus before paying.
    expect(page.body).toContain('<p data-bonus>+ 2% deposit bonus: $5.00, so $255.00 is credited to your balance</p>');
    expect(page.body).toMatch(/<svg[\s\S]*<\/svg>/);
    expect(page.body).toContain('Simulate payment');
    expect(page.body).toContain('Simulate expiry');
    // No inline script (the CSP allows none): only the same-origin one that shows the expiry as a local date-time and counts down.
    expect(page.body.match(/<script[^>]*>/g)).toEqual(['<script src="/pay/countdown.js">']);
    expect(page.body).toMatch(/Expires <time datetime="[^"]+" data-expires>\w{3} \d{1,2}, \d{4}, \d{1,2}:\d\d [AP]M UTC<\/time>/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const script = await t.app.inject({ method: 'GET', url: '/pay/countdown.js' });
    expect([script.statusCode, script.headers['content-type']]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect(script.body).toContain('data-countdown');

    const paid = await simulate(invoice.sandboxId, 'pay');
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toBe('http://localhost:80/deposits');

    expect(await balanceOf(user.headers)).toBe(255);
    expect((await invoices(user.headers)).invoices[0]).toMatchObject({
      _id: invoice.id,
      amount: 250,
      bonus: 2,
      payment_method: 'crypto',
      status: 'paid',
      hosted_url: null,
    });
    const rows = await statement(user.headers);
    expect(rows.balance).toBe(255);
    expect(rows.entries.map((e: any) => [e.kind, e.amount, e.balance, e.reference])).toEqual([
      ['deposit_bonus', 5, 255, invoice.id],
      ['deposit', 250, 250, invoice.id],
    ]);

    const after = await t.app.inject({ method: 'GET', url: `/pay/${invoice.sandboxId}` });
    expect(after.body).toContain('Payment received');
    expect(after.body).not.toContain('Simulate payment');
  });

  it('expires an invoice without crediting, and a payment after that is refused', async () => {
    const user = await signUp(t.app);
    const invoice = await newInvoice(user.headers, 40);
    const expired = await simulate(invoice.sandboxId, 'expire');
    expect(expired.statusCode).toBe(303);
    expect(expired.headers.location).toBe('http://localhost:80/deposits');
    expect(await invoiceStatus(invoice.id)).toBe('expired');

    const late = await simulate(invoice.sandboxId, 'pay');
    expect(late.statusCode).toBe(303);
    expect(late.headers.location).toBe(`/pay/${invoice.sandboxId}`);
    expect(await invoiceStatus(invoice.id)).toBe('expired');
    expect(await balanceOf(user.headers)).toBe(0);
    expect((await t.app.inject({ method: 'GET', url: `/pay/${invoice.sandboxId}` })).body).toContain('Invoice expired');
  });

  it('answers 404 for an unknown invoice page and 400 for an unknown action', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/pay/00000000-0000-0000-0000-000000000000' })).statusCode).toBe(404);
    const user = await signUp(t.app);
    const invoice = await newInvoice(user.headers, 10);
    expect((await simulate(invoice.sandboxId, 'steal')).statusCode).toBe(400);
    expect(await invoiceStatus(invoice.id)).toBe('pending');
  });
});

describe('webhook', () => {
  it('refuses a forged, missing or tampered signature with 401 and changes nothing', async () => {
    const user = await signUp(t.app);
    const invoice = await newInvoice(user.headers, 250);
    await setSandboxStatus(invoice.sandboxId, 'settled');
    const body = event(invoice.sandboxId);

    for (const signature of [
      signBody('not-the-secret-at-all-000000', body),
      null,
      'sha256=',
      'garbage',
      signBody(SECRET, body).toUpperCase().replace('SHA256', 'sha1'),
    ]) {
      const res = await deliver(body, signature);
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toBe(INVALID_SIGNATURE);
    }
    // Signed for one body, sent with another (a whitespace change is a different body).
    const tampered = await deliver(body.replace('{', '{ '), signBody(SECRET, body));
    expect(tampered.statusCode).toBe(401);

    expect(await invoiceStatus(invoice.id)).toBe('pending');
    expect(await balanceOf(user.headers)).toBe(0);
  });

  it('credits a replayed event once', async () => {
    const user = await signUp(t.app);
    const invoice = await newInvoice(user.headers, 250);
    await setSandboxStatus(invoice.sandboxId, 'settled');
    const body = event(invoice.sandboxId);
    const first = await deliver(body);
    expect(first.statusCode).toBe(200);
    expect(first.json().message).toBe('Invoice credited');
    const replay = await deliver(body);
    expect(replay.statusCode).toBe(200);
    expect(replay.json().message).toBe('Invoice already paid');
    expect(await balanceOf(user.headers)).toBe(255);
    expect((await ledgerRowsFor(invoice.id)).map((r) => [r.kind, r.amount_cents])).toEqual([
      ['deposit', 25_000],
      ['deposit_bonus', 500],
    ]);
  });

  it(`credits 20 concurrent duplicate deliveries exactly once (${testDbKind})`, async () => {
    const user = await signUp(t.app);
    const invoice = await newInvoice(user.headers, 600);
    await setSandboxStatus(invoice.sandboxId, 'settled');
    const body = event(invoice.sandboxId);
    const responses = await Promise.all(Array.from({ length: 20 }, () => deliver(body)));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    expect(responses.filter((r) => r.json().message === 'Invoice credited')).toHaveLength(1);
    expect(await balanceOf(user.headers)).toBe(624);
    const rows = await ledgerRowsFor(invoice.id);
    expect(rows.map((r) => [r.kind, r.amount_cents, r.balance_after_cents])).toEqual([
      ['deposit', 60_000, 60_000],
      ['deposit_bonus', 2_400, 62_400],
    ]);
    expect(await invoiceStatus(invoice.id)).toBe('paid');
  });

  it('lets nothing change a paid invoice: expired and invalid events after payment', async () => {
    const user = await signUp(t.app);
    const invoice = await newInvoice(user.headers, 100);
    expect((await simulate(invoice.sandboxId, 'pay')).statusCode).toBe(303);
    expect(await balanceOf(user.headers)).toBe(100);

    expect((await deliver(event(invoice.sandboxId, 'InvoiceExpired'))).statusCode).toBe(200);
    // Even if the provider now said expired, paid stays paid.
    await setSandboxStatus(invoice.sandboxId, 'expired');
    expect((await deliver(event(invoice.sandboxId, 'InvoiceExpired'))).statusCode).toBe(200);
    expect((await deliver(event(invoice.sandboxId, 'InvoiceInvalid'))).statusCode).toBe(200);

    expect(await invoiceStatus(invoice.id)).toBe('paid');
    expect(await balanceOf(user.headers)).toBe(100);
    expect(await ledgerRowsFor(invoice.id)).toHaveLength(1);
  });

  it('does not credit a settled event the provider does not confirm', async () => {
    const user = await signUp(t.app);
    const invoice = await newInvoice(user.headers, 75);
    const res = await deliver(event(invoice.sandboxId)); // the sandbox still has it as new
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe('Invoice still pending');
    expect(await invoiceStatus(invoice.id)).toBe('pending');
    expect(await balanceOf(user.headers)).toBe(0);
  });

  it('credits a payment the provider confirms after the invoice had expired', async () => {
    const user = await signUp(t.app);
    const invoice = await newInvoice(user.headers, 30);
    expect((await simulate(invoice.sandboxId, 'expire')).statusCode).toBe(303);
    expect(await invoiceStatus(invoice.id)).toBe('expired');
    await setSandboxStatus(invoice.sandboxId, 'settled'); // e.g. paid late and marked settled by the operator
    expect((await deliver(event(invoice.sandboxId))).json().message).toBe('Invoice credited');
    expect(await invoiceStatus(invoice.id)).toBe('paid');
    expect(await balanceOf(user.headers)).toBe(30);
  });

  it('acknowledges events that change nothing', async () => {
    const user = await signUp(t.app);
    const invoice = await newInvoice(user.headers, 20);
    const res = await deliver(event(invoice.sandboxId, 'InvoiceCreated'));
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe('Event InvoiceCreated ignored');
    expect(await invoiceStatus(invoice.id)).toBe('pending');
  });

  it('answers 404 for an unknown invoice and for another provider', async () => {
    const unknown = await deliver(event('00000000-0000-0000-0000-000000000000'));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe(INVOICE_NOT_FOUND);
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/v1/invoices/webhook/btcpay',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(other.statusCode).toBe(404);
  });

  it('keeps the JSON parser of other routes untouched', async () => {
    const user = await signUp(t.app);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/invoices/create-invoice',
      headers: { ...user.headers, 'content-type': 'application/json' },
      payload: '{"amount":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/JSON/);
  });
});

describe('invoice list and statement', () => {
  it('lists only the user’s invoices, newest first, with pages', async () => {
    const user = await signUp(t.app);
    const other = await signUp(t.app);
    await newInvoice(other.headers, 99);
    const ids = [];
    for (const amount of [11, 12, 13]) ids.push((await newInvoice(user.headers, amount)).id);
    const first = await invoices(user.headers, '?page=1&limit=2');
    expect(first.totalPages).toBe(2);
    expect(first.total).toBe(3);
    expect(first.invoices.map((i: any) => i.amount)).toEqual([13, 12]);
    expect(first.invoices[0].hosted_url).toMatch(/\/pay\//);
    const second = await invoices(user.headers, '?page=2&limit=2');
    expect(second.invoices.map((i: any) => i._id)).toEqual([ids[0]]);
    expect((await invoices(user.headers, '?limit=0')).message).toBeTruthy();
  });

  it('turns pending invoices past their expiry into expired', async () => {
    const user = await signUp(t.app);
    const invoice = await newInvoice(user.headers, 15);
    await t.db
      .updateTable('invoices')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', invoice.id)
      .execute();
    await t.db
      .updateTable('sandbox_invoices')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', invoice.sandboxId)
      .execute();
    expect((await invoices(user.headers)).invoices[0]).toMatchObject({ status: 'expired', hosted_url: null });
    // The sandbox's page no longer offers payment either.
    expect((await t.app.inject({ method: 'GET', url: `/pay/${invoice.sandboxId}` })).body).toContain('Invoice expired');
    expect((await simulate(invoice.sandboxId, 'pay')).headers.location).toBe(`/pay/${invoice.sandboxId}`);
    expect(await balanceOf(user.headers)).toBe(0);
  });

  it('shows every ledger row with the running balance, newest first', async () => {
    const user = await signUp(t.app);
    const userId = await userIdOf(t.app, user.headers);
    await fundUser(t.db, userId, 1_000);
    const invoice = await newInvoice(user.headers, 501);
    await simulate(invoice.sandboxId, 'pay');
    const page1 = await statement(user.headers, '?limit=2');
    expect(page1).toMatchObject({ total: 3, totalPages: 2, balance: 531.04 });
    expect(page1.entries.map((e: any) => [e.kind, e.amount, e.balance])).toEqual([
      ['deposit_bonus', 20.04, 531.04],
      ['deposit', 501, 511],
    ]);
    const page2 = await statement(user.headers, '?page=2&limit=2');
    expect(page2.entries.map((e: any) => [e.kind, e.amount, e.balance, e.note])).toEqual([['adjustment', 10, 10, 'test funding']]);
  });
});
