import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { startFakeBtcpay, type FakeBtcpay } from '../../../test/fake-btcpay.ts';
import { signUp, startTestApp, type TestApp } from '../../../test/harness.ts';
import { centsToDecimal, decimalToCents } from '../../providers/payments/payment-provider.ts';
import { INVALID_SIGNATURE, INVOICE_NOT_FOUND, PROVIDER_MISMATCH, PROVIDER_UNAVAILABLE } from './service.ts';

let fake: FakeBtcpay;
let t: TestApp;
beforeAll(async () => {
  fake = await startFakeBtcpay();
  t = await startTestApp({
    PAYMENT_PROVIDER: 'btcpay',
    BTCPAY_URL: fake.url,
    BTCPAY_STORE_ID: fake.storeId,
    BTCPAY_API_KEY: fake.apiKey,
    BTCPAY_WEBHOOK_SECRET: fake.webhookSecret,
    PUBLIC_URL: 'https://portal.example',
  });
  // BTCPay delivers webhooks over HTTP, so the app listens on a real port.
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  fake.webhookUrl = `${address}/api/v1/invoices/webhook/btcpay`;
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

type Headers = { authorization: string };

async function deposit(headers: Headers, amount: number) {
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/invoices/create-invoice', headers, payload: { amount, type: 'crypto' } });
  expect(res.statusCode).toBe(200);
  const { _id, hosted_url } = res.json().data;
  const btcpayId = [...fake.invoices.values()].find((i) => i.metadata.orderId === _id)!.id;
  return { id: _id as string, hostedUrl: hosted_url as string, btcpayId };
}

const balanceOf = async (headers: Headers) => (await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers })).json().balance as number;
const invoiceRow = (id: string) => t.db.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('BTCPay Server adapter against a local fake of Greenfield', () => {
  it('creates the invoice on the store with a decimal-string amount and hands out its checkoutLink', async () => {
    const user = await signUp(t.app);
    const invoice = await deposit(user.headers, 250);
    const remote = fake.invoices.get(invoice.btcpayId)!;
    expect(invoice.hostedUrl).toBe(remote.checkoutLink);
    expect(remote).toMatchObject({
      amount: '250.00',
      currency: 'USD',
      metadata: { orderId: invoice.id },
      checkout: { redirectURL: 'https://portal.example/deposits', redirectAutomatically: true, expirationMinutes: 60 },
    });
    const row = await invoiceRow(invoice.id);
    expect(row).toMatchObject({
      provider: 'btcpay',
      provider_invoice_id: remote.id,
      status: 'pending',
      amount_cents: 25_000,
      bonus_percent: 2,
      bonus_cents: 500,
    });
    expect(row.expires_at).toBe(new Date(remote.expirationTime * 1000).toISOString());
  });

  it('settles, confirms with BTCPay, and credits amount and bonus once', async () => {
    const user = await signUp(t.app);
    const invoice = await deposit(user.headers, 250);

    fake.setStatus(invoice.btcpayId, 'Processing');
    const processing = await fake.deliver(invoice.btcpayId, 'InvoiceProcessing');
    expect(processing.status).toBe(200);
    // A settled event BTCPay does not confirm (still Processing on a fresh read) moves nothing.
    const early = await fake.deliver(invoice.btcpayId, 'InvoiceSettled');
    expect(JSON.parse(early.body).message).toBe('Invoice still pending');
    expect(await balanceOf(user.headers)).toBe(0);

    fake.setStatus(invoice.btcpayId, 'Settled');
    const before = fake.requests.length;
    const settled = await fake.deliver(invoice.btcpayId, 'InvoiceSettled', { extra: { manuallyMarked: false, overPaid: false } });
    expect(settled.status).toBe(200);
    expect(JSON.parse(settled.body).message).toBe('Invoice credited');
    expect(fake.requests.slice(before)).toContain(`GET /api/v1/stores/${fake.storeId}/invoices/${invoice.btcpayId}`);

    expect(await balanceOf(user.headers)).toBe(255);
    expect((await invoiceRow(invoice.id)).status).toBe('paid');
    const statement = (await t.app.inject({ method: 'GET', url: '/api/v1/account/statement', headers: user.headers })).json();
    expect(statement.entries.map((e: any) => [e.kind, e.amount, e.balance])).toEqual([
      ['deposit_bonus', 5, 255],
      ['deposit', 250, 250],
    ]);

    // BTCPay redelivers; an expiry arriving late changes nothing.
    const again = await fake.deliver(invoice.btcpayId, 'InvoiceSettled');
    expect(JSON.parse(again.body).message).toBe('Invoice already paid');
    expect((await fake.deliver(invoice.btcpayId, 'InvoiceExpired')).status).toBe(200);
    expect(await balanceOf(user.headers)).toBe(255);
    expect((await invoiceRow(invoice.id)).status).toBe('paid');
  });

  it('refuses a webhook signed with another secret with 401', async () => {
    const user = await signUp(t.app);
    const invoice = await deposit(user.headers, 50);
    fake.setStatus(invoice.btcpayId, 'Settled');
    const forged = await fake.deliver(invoice.btcpayId, 'InvoiceSettled', { secret: 'someone-elses-secret' });
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.body).message).toBe(INVALID_SIGNATURE);
    expect(await balanceOf(user.headers)).toBe(0);
    expect((await invoiceRow(invoice.id)).status).toBe('pending');
  });

  it('marks expired invoices expired and invalid ones cancelled, crediting nothing', async () => {
    const user = await signUp(t.app);
    const expiring = await deposit(user.headers, 20);
    fake.setStatus(expiring.btcpayId, 'Expired');
    expect((await fake.deliver(expiring.btcpayId, 'InvoiceExpired', { extra: { partiallyPaid: false } })).status).toBe(200);
    expect((await invoiceRow(expiring.id)).status).toBe('expired');

    const invalid = await deposit(user.headers, 20);
    fake.setStatus(invalid.btcpayId, 'Invalid');
    expect((await fake.deliver(invalid.btcpayId, 'InvoiceInvalid', { extra: { manuallyMarked: true } })).status).toBe(200);
    expect((await invoiceRow(invalid.id)).status).toBe('cancelled');
    expect(await balanceOf(user.headers)).toBe(0);
  });

  it('does not credit when BTCPay reports another amount', async () => {
    const user = await signUp(t.app);
    const invoice = await deposit(user.headers, 300);
    fake.setStatus(invoice.btcpayId, 'Settled');
    fake.invoices.get(invoice.btcpayId)!.amount = '3.00';
    const res = await fake.deliver(invoice.btcpayId, 'InvoiceSettled');
    expect(res.status).toBe(409);
    expect(JSON.parse(res.body).message).toBe(PROVIDER_MISMATCH);
    expect(await balanceOf(user.headers)).toBe(0);
  });

  it('answers 404 for an invoice it does not know', async () => {
    const res = await fake.deliver('NoSuchInvoice000000000', 'InvoiceSettled');
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body).message).toBe(INVOICE_NOT_FOUND);
  });

  it('answers 5xx and keeps no invoice when BTCPay is down, and 5xx on a webhook it cannot confirm', async () => {
    const user = await signUp(t.app);
    const invoice = await deposit(user.headers, 10);
    fake.setStatus(invoice.btcpayId, 'Settled');
    fake.unavailable = true;
    try {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/invoices/create-invoice',
        headers: user.headers,
        payload: { amount: 10, type: 'crypto' },
      });
      // The provider's outage reaches the user with its message: trying again later helps.
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ message: PROVIDER_UNAVAILABLE });
      const webhook = await fake.deliver(invoice.btcpayId, 'InvoiceSettled');
      expect(webhook.status).toBe(503); // BTCPay retries later
    } finally {
      fake.unavailable = false;
    }
    const list = (await t.app.inject({ method: 'GET', url: '/api/v1/invoices/readAll', headers: user.headers })).json();
    expect(list.total).toBe(1);
    expect((await fake.deliver(invoice.btcpayId, 'InvoiceSettled')).status).toBe(200);
    expect(await balanceOf(user.headers)).toBe(10);
  });

  it('keeps the sandbox page and webhook off', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/pay/anything' })).statusCode).toBe(404);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/pay/anything/simulate',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'action=pay',
        })
      ).statusCode,
    ).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/invoices/webhook/sandbox', payload: {} })).statusCode).toBe(404);
  });
});

describe('BTCPay configuration', () => {
  it('fails at start naming each missing setting', () => {
    expect(() => loadConfig({ PAYMENT_PROVIDER: 'btcpay', BTCPAY_URL: 'https://pay.example', BTCPAY_STORE_ID: 'S1' })).toThrow(
      /BTCPAY_API_KEY, BTCPAY_WEBHOOK_SECRET: required when PAYMENT_PROVIDER=btcpay/,
    );
    expect(() => loadConfig({ PAYMENT_PROVIDER: 'stripe' })).toThrow(/PAYMENT_PROVIDER/);
    expect(loadConfig({}).PAYMENT_PROVIDER).toBe('sandbox');
  });

  it('writes amounts as decimal strings and reads them back as exact cents', () => {
    expect(centsToDecimal(25_000)).toBe('250.00');
    expect(centsToDecimal(20_001)).toBe('200.01');
    expect(centsToDecimal(105)).toBe('1.05');
    expect(decimalToCents('250')).toBe(25_000);
    expect(decimalToCents('250.00000000')).toBe(25_000);
    expect(decimalToCents('200.01')).toBe(20_001);
    expect(decimalToCents('200.015')).toBeNaN();
    expect(decimalToCents('abc')).toBeNaN();
  });
});
