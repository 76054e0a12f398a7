import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_DISABLED, ADMIN_ONLY, INVALID_CREDENTIALS } from '@portal/contract';
import { fundUser, solveCaptcha, startTestApp, type TestApp } from '../../../test/harness.ts';
import { adminCall, adminRoutesOf, auditRowsFor, signUpAdmin, signUpCustomer, type Headers } from '../../../test/admin-fixtures.ts';
import { CANNOT_DEMOTE_SELF, CANNOT_DISABLE_SELF } from './service.ts';

let t: TestApp;
let admin: Awaited<ReturnType<typeof signUpAdmin>>;
let customer: Awaited<ReturnType<typeof signUpCustomer>>;
beforeAll(async () => {
  t = await startTestApp();
  admin = await signUpAdmin(t);
  customer = await signUpCustomer(t);
});
afterAll(() => t.close());

const access = (headers: Headers) => t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers });
const login = async (tgId: string, password: string) =>
  t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { tgId, password, captchaToken: await solveCaptcha(t.app) } });

/** Every admin route with a valid request: were the guard missing, each would change or show something. */
function everyAdminRoute(target: string): [string, string, unknown?][] {
  const faq = { question: 'Q?', answer: 'A.' };
  const referencePackage = { name: 'Guard test', weight: 1, weightUnit: 'lb', fromZip: '10001', toZip: '90012' };
  return [
    ['GET', '/overview'],
    ['GET', '/users'],
    ['GET', `/users/${target}`],
    ['GET', `/users/${target}/statement`],
    ['GET', `/users/${target}/invoices`],
    ['POST', `/users/${target}/adjust`, { direction: 'credit', amount: 5, reason: 'guard test' }],
    ['POST', `/users/${target}/status`, { disabled: true }],
    ['POST', `/users/${target}/role`, { role: 'admin' }],
    ['GET', '/label-types'],
    ['PUT', '/label-types/priority', { name: 'Hacked', maxWeight: 70, status: false, prices: [{ fromWeight: 0, toWeight: 70, price: 0.01 }] }],
    ['GET', '/upstream-services'],
    ['GET', '/upstream-health'],
    ['GET', '/going-live'],
    ['PUT', '/label-types/priority/upstream/easypost', { carrier: 'USPS', service: 'Express', carrierAccount: '' }],
    ['GET', '/fedex-price'],
    ['PUT', '/fedex-price', { price: 0.01 }],
    ['GET', '/content'],
    ['PUT', '/content/announcement', { announcement: 'Hacked', status: true }],
    ['PUT', '/content/tos', { tos: '<p>Hacked</p>' }],
    ['POST', '/faqs', faq],
    ['PUT', `/faqs/${target}`, faq],
    ['DELETE', `/faqs/${target}`],
    ['PUT', '/faqs-order', { ids: [] }],
    ['GET', '/orders'],
    ['GET', `/orders/${target}`],
    ['GET', `/orders/${target}/label`],
    ['POST', `/orders/${target}/cancel`, { reason: 'guard test' }],
    ['GET', '/refunds'],
    ['POST', `/orders/${target}/refund/approve`],
    ['POST', `/orders/${target}/refund/reject`, { reason: 'guard test' }],
    ['GET', '/bulk-orders'],
    ['GET', '/invoices'],
    ['GET', '/audit'],
    ['GET', '/outbox'],
    ['GET', '/fedex-orders'],
    ['GET', `/fedex-orders/${target}/invoice`],
    ['POST', `/fedex-orders/${target}/complete`, { note: 'guard test' }],
    ['POST', `/fedex-orders/${target}/cancel`, { note: 'guard test' }],
    ['GET', '/price-check'],
    ['GET', '/reference-packages'],
    ['POST', '/reference-packages', referencePackage],
    ['PUT', `/reference-packages/${target}`, referencePackage],
    ['DELETE', `/reference-packages/${target}`],
    ['GET', '/scan-forms'],
    ['GET', '/pickups'],
    ['GET', `/scan-forms/${target}/pdf`],
  ];
}

describe('the admin guard', () => {
  it('the list below holds every route under /api/v1/admin', () => {
    const listed = everyAdminRoute(':id').map(
      ([method, path]) => `${method} ${path.replace('/priority', '/:id').replace('/upstream/easypost', '/upstream/:upstream')}`,
    );
    expect(listed.sort()).toEqual(adminRoutesOf(t.app));
  });

  it('answers 401 to a visitor and 403 to a customer on every admin route, and changes nothing', async () => {
    const auditBefore = await t.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    for (const [method, path, payload] of everyAdminRoute(customer.userId)) {
      const visitor = await adminCall(t.app, {}, method as 'GET', path, payload);
      expect(visitor.statusCode, `${method} ${path} as a visitor`).toBe(401);
      expect(visitor.json().message).toBe('Unauthorized');
      const asCustomer = await adminCall(t.app, customer.headers, method as 'GET', path, payload);
      expect(asCustomer.statusCode, `${method} ${path} as a customer`).toBe(403);
      expect(asCustomer.json().message).toBe(ADMIN_ONLY);
      // A bad token is a visitor too, and the guard runs before the body is even checked.
      expect((await adminCall(t.app, { authorization: 'Bearer not.a.token' }, method as 'GET', path, payload)).statusCode).toBe(401);
      if (payload !== undefined) expect((await adminCall(t.app, customer.headers, method as 'GET', path, { junk: true })).statusCode).toBe(403);
    }
    const auditAfter = await t.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(auditAfter.n)).toBe(Number(auditBefore.n));
    const me = (await access(customer.headers)).json();
    expect(me).toMatchObject({ role: 'customer', balance: 0 });
    const types = (await t.app.inject({ method: 'GET', url: '/api/v1/labeltype/read', headers: customer.headers })).json().labelTypes;
    expect(types.find((lt: { uid: string }) => lt.uid === 'priority')?.name).toBe('USPS Priority Mail');
  });

  it('lets an admin in, and shows the role in /auth/access', async () => {
    expect((await access(admin.headers)).json().role).toBe('admin');
    expect((await access(customer.headers)).json().role).toBe('customer');
    for (const path of [
      '/overview',
      '/users',
      '/label-types',
      '/content',
      '/orders',
      '/bulk-orders',
      '/invoices',
      '/audit',
      '/outbox',
      '/fedex-price',
      '/fedex-orders',
    ]) {
      const res = await adminCall(t.app, admin.headers, 'GET', path);
      expect(res.statusCode, path).toBe(200);
    }
  });
});

describe('roles', () => {
  it('an admin grants the role to a customer and takes it back, each with an audit row', async () => {
    const other = await signUpCustomer(t);
    const granted = await adminCall(t.app, admin.headers, 'POST', `/users/${other.userId}/role`, { role: 'admin' });
    expect(granted.statusCode).toBe(200);
    expect(granted.json().user).toMatchObject({ _id: other.userId, role: 'admin' });
    expect((await adminCall(t.app, other.headers, 'GET', '/overview')).statusCode).toBe(200);

    const revoked = await adminCall(t.app, admin.headers, 'POST', `/users/${other.userId}/role`, { role: 'customer' });
    expect(revoked.json().user.role).toBe('customer');
    expect((await adminCall(t.app, other.headers, 'GET', '/overview')).statusCode).toBe(403);

    const rows = await auditRowsFor(t, other.userId);
    expect(rows.map((r) => [r.admin_id, r.action, r.target_type, JSON.parse(r.before_json!), JSON.parse(r.after_json!)])).toEqual([
      [admin.userId, 'user.role', 'user', { role: 'customer', disabled: false }, { role: 'admin', disabled: false }],
      [admin.userId, 'user.role', 'user', { role: 'admin', disabled: false }, { role: 'customer', disabled: false }],
    ]);
  });

  it('setting the role a user already has changes nothing and writes no audit row', async () => {
    const other = await signUpCustomer(t);
    expect((await adminCall(t.app, admin.headers, 'POST', `/users/${other.userId}/role`, { role: 'customer' })).statusCode).toBe(200);
    expect(await auditRowsFor(t, other.userId)).toEqual([]);
  });

  it('refuses an unknown role, an unknown user, and an admin taking the role from themself', async () => {
    expect((await adminCall(t.app, admin.headers, 'POST', `/users/${customer.userId}/role`, { role: 'owner' })).json()).toEqual({
      message: 'Role must be customer or admin',
    });
    expect((await adminCall(t.app, admin.headers, 'POST', '/users/no-such-user/role', { role: 'admin' })).statusCode).toBe(404);
    const self = await adminCall(t.app, admin.headers, 'POST', `/users/${admin.userId}/role`, { role: 'customer' });
    expect(self.statusCode).toBe(400);
    expect(self.json().message).toBe(CANNOT_DEMOTE_SELF);
  });
});

describe('disabling an account', () => {
  it('refuses its sign-in, its existing token and its API key, keeps its balance, and enabling restores them', async () => {
    const user = await signUpCustomer(t);
    await fundUser(t.db, user.userId, 2_500);
    const apiKey = (await access(user.headers)).json().api_key as string;

    const disabled = await adminCall(t.app, admin.headers, 'POST', `/users/${user.userId}/status`, { disabled: true });
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json().user).toMatchObject({ disabled: true, balance: 25 });

    const withToken = await access(user.headers);
    expect(withToken.statusCode).toBe(403);
    expect(withToken.json().message).toBe(ACCOUNT_DISABLED);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/order/read', headers: user.headers })).statusCode).toBe(403);
    const signIn = await login(user.tgId, user.password);
    expect(signIn.statusCode).toBe(403);
    expect(signIn.json().message).toBe(ACCOUNT_DISABLED);
    // A wrong password learns nothing about the account.
    expect((await login(user.tgId, 'not the password')).json().message).toBe(INVALID_CREDENTIALS);
    // The reseller API refuses its API key too.
    const api = await t.app.inject({ method: 'GET', url: '/api/reseller/v1/labeltype/read-types', headers: { 'x-api-key': apiKey } });
    expect(api.statusCode).toBe(403);
    expect(api.json().message).toBe(ACCOUNT_DISABLED);

    // The operator still sees everything: balance and history are kept.
    const shown = (await adminCall(t.app, admin.headers, 'GET', `/users/${user.userId}/statement`)).json();
    expect(shown).toMatchObject({ balance: 25, total: 1 });

    const enabled = await adminCall(t.app, admin.headers, 'POST', `/users/${user.userId}/status`, { disabled: false });
    expect(enabled.json().user).toMatchObject({ disabled: false, balance: 25 });
    expect((await access(user.headers)).json()).toMatchObject({ balance: 25 });
    expect((await login(user.tgId, user.password)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/reseller/v1/labeltype/read-types', headers: { 'x-api-key': apiKey } })).statusCode).toBe(200);

    const rows = await auditRowsFor(t, user.userId);
    expect(rows.map((r) => [r.action, JSON.parse(r.before_json!).disabled, JSON.parse(r.after_json!).disabled])).toEqual([
      ['user.disable', false, true],
      ['user.enable', true, false],
    ]);
  });

  it('refuses an admin disabling their own account', async () => {
    const res = await adminCall(t.app, admin.headers, 'POST', `/users/${admin.userId}/status`, { disabled: true });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(CANNOT_DISABLE_SELF);
  });

  it('a disabled admin is refused by the console too', async () => {
    const other = await signUpAdmin(t);
    await adminCall(t.app, admin.headers, 'POST', `/users/${other.userId}/status`, { disabled: true });
    const res = await adminCall(t.app, other.headers, 'GET', '/overview');
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe(ACCOUNT_DISABLED);
  });
});

describe('last activity', () => {
  it('is set at sign-in', async () => {
    const user = await signUpCustomer(t);
    const shown = (await adminCall(t.app, admin.headers, 'GET', `/users/${user.userId}`)).json().user;
    expect(Date.now() - Date.parse(shown.lastActiveAt)).toBeLessThan(60_000);
  });

  it('is the last request, to the minute: a request a minute after the last one moves it, one within the minute does not', async () => {
    const user = await signUpCustomer(t);
    const setLastActive = (at: string) => t.db.updateTable('users').set({ last_active_at: at }).where('id', '=', user.userId).execute();
    const lastActive = async () => (await adminCall(t.app, admin.headers, 'GET', `/users/${user.userId}`)).json().user.lastActiveAt as string;
    const recent = new Date(Date.now() - 20_000).toISOString();
    await setLastActive(recent);
    expect((await access(user.headers)).statusCode).toBe(200);
    expect(await lastActive()).toBe(recent);
    await setLastActive(new Date(Date.now() - 2 * 60_000).toISOString());
    expect((await access(user.headers)).statusCode).toBe(200);
    expect(Date.now() - Date.parse(await lastActive())).toBeLessThan(10_000);
  });
});
