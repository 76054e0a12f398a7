// The one way the tests, the browser tests, the smoke run and the bench get a customer: signed up and signed in
// through the shop's own calls (a solved captcha each), then funded. Light on purpose: no app is loaded here.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../src/db/database.ts';
import { uniqueId } from './basics.ts';
import { call, solvedCaptcha } from './processes.ts';

/** A shop: an app in this test's process (called with inject), or the URL of a running one (called over HTTP). */
export type Shop = FastifyInstance | string;

/** A JSON call to the shop's /api/v1 (POST with a body, GET without); throws with the answer unless it is 2xx. */
type ShopCall = (pathName: string, body?: unknown, token?: string) => Promise<any>;

function shopCall(shop: Shop): ShopCall {
  if (typeof shop === 'string') return (pathName, body, token) => call(shop, pathName, body, token);
  return async (pathName, body, token) => {
    const res = await shop.inject({
      method: body ? 'POST' : 'GET',
      url: `/api/v1${pathName}`,
      payload: body as Record<string, unknown> | undefined,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`${pathName}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
}

export type Account = { tgId?: string; password?: string; username?: string };
export type Customer = { tgId: string; password: string; token: string; headers: { authorization: string } };

/** A new customer, registered and signed in; its bearer token. */
export async function newCustomer(
  shop: Shop,
  { tgId = uniqueId('user'), password = 'correct horse 1', username = 'Test User' }: Account = {},
): Promise<Customer> {
  const api = shopCall(shop);
  const captchaToken = async () => solvedCaptcha(await api('/captcha/challenge'));
  await api('/auth/register', { username, tgId, password, captchaToken: await captchaToken() });
  const { accessToken: token } = await api('/auth/login', { tgId, password, captchaToken: await captchaToken() });
  return { tgId, password, token, headers: { authorization: `Bearer ${token}` } };
}

/**
 * A new customer with `cents` (none for 0): credited through the ledger on the shop's database `fund` (exactly that),
 * or with 'deposit', by paying a sandbox deposit of that much to a running shop as a customer does (for a shop whose
 * database the caller cannot reach; a bonus may come on top).
 */
export async function fundedCustomer(shop: Shop, cents: number, fund: Db | 'deposit', account: Account = {}): Promise<Customer & { userId: string }> {
  const customer = await newCustomer(shop, account);
  const api = shopCall(shop);
  const { _id: userId } = await api('/auth/access', undefined, customer.token);
  if (cents === 0) return { ...customer, userId };
  if (fund !== 'deposit') await fundUser(fund, userId, cents);
  else if (typeof shop === 'string') await payDeposit(shop, customer.token, cents);
  else throw new Error('a deposit is paid to a running shop (its URL)');
  return { ...customer, userId };
}

async function payDeposit(url: string, token: string, cents: number): Promise<void> {
  const invoice = await call(url, '/invoices/create-invoice', { amount: cents / 100, type: 'crypto' }, token);
  // The sandbox's payment page, as the customer's browser posts it.
  const paid = await fetch(`${url}${new URL(invoice.data.hosted_url).pathname}/simulate`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'action=pay',
    redirect: 'manual',
  });
  if (paid.status !== 303) throw new Error(`simulated payment: ${paid.status}`);
  const { balance } = await call(url, '/auth/access', undefined, token);
  if (balance * 100 < cents) throw new Error(`balance after a deposit of ${cents} cents: ${balance}`);
}

/** Credits a user through the ledger (an 'adjustment' row), the way an operator would fund an account. */
export async function fundUser(db: Db, userId: string, cents: number): Promise<void> {
  const { changeBalance } = await import('../src/modules/billing/ledger.ts');
  await db.transaction().execute((trx) => changeBalance(trx, { userId, amountCents: cents, kind: 'adjustment', reference: null, note: 'test funding' }));
}
