import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_DISABLED, FEDEX_LINK_INVALID, TRACKING_LINK_INVALID } from '@portal/contract';
import { OTP_INVALID } from '../src/modules/auth/service.ts';
import { INVALID_SIGNATURE } from '../src/modules/billing/service.ts';
import { UPSTREAM_WEBHOOK_UNKNOWN } from '../src/modules/orders/tracking-webhook.ts';
import { routesUnder, signUp, solveCaptcha, startTestApp, uniqueTgId, userIdOf, type TestApp } from './harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Call = [method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string];

/** Every signed-in customer's call under /api/v1 (the console's, /admin, have their own guard and test). /auth/logout is last: it ends the session. */
const customerRoutes: Call[] = [
  ['GET', '/auth/access'],
  ['POST', '/account/email'],
  ['POST', '/account/password'],
  ['POST', '/account/api-key'],
  ['POST', '/account/label-format'],
  ['POST', '/account/auto-void'],
  ['POST', '/account/recipient-emails'],
  ['GET', '/account/webhook'],
  ['PUT', '/account/webhook'],
  ['POST', '/account/webhook/secret'],
  ['GET', '/account/telegram'],
  ['PUT', '/account/telegram'],
  ['DELETE', '/account/telegram'],
  ['POST', '/account/telegram/link'],
  ['GET', '/account/statement'],
  ['GET', '/faq/read'],
  ['GET', '/announcement/read'],
  ['GET', '/labeltype/read'],
  ['POST', '/order/price'],
  ['POST', '/order/rates'],
  ['POST', '/order/create'],
  ['POST', '/order/duplicate/:id'],
  ['POST', '/order/refund/:id'],
  ['POST', '/order/refund'],
  ['GET', '/order/read'],
  ['GET', '/order/auto-voids'],
  ['POST', '/order/return/:id'],
  ['GET', '/order/details/:id'],
  ['GET', '/order/download/:id'],
  ['POST', '/order/download-selected'],
  ['GET', '/address/readAll'],
  ['POST', '/address/create'],
  ['POST', '/address/verify'],
  ['PUT', '/address/update/:id'],
  ['DELETE', '/address/delete/:id'],
  ['GET', '/packages'],
  ['POST', '/packages'],
  ['PUT', '/packages/:id'],
  ['DELETE', '/packages/:id'],
  ['POST', '/order/validatecsv'],
  ['POST', '/order/createOrderFromCSV'],
  ['GET', '/order/read-bulk-orders'],
  ['GET', '/order/bulk-download/:id'],
  ['GET', '/order/bulk-download-csv/:id'],
  ['GET', '/order/bulk-download-pdf/:id'],
  ['POST', '/invoices/create-invoice'],
  ['GET', '/invoices/readAll'],
  ['GET', '/fed/read-price'],
  ['POST', '/fed/create-order'],
  ['GET', '/fed/read'],
  ['GET', '/fed/invoice/:id'],
  ['POST', '/amazon/generate-csv'],
  ['POST', '/scan-form'],
  ['GET', '/scan-form/today'],
  ['GET', '/scan-form/read'],
  ['GET', '/scan-form/:id'],
  ['GET', '/scan-form/:id/pdf'],
  ['POST', '/pickup/rates'],
  ['POST', '/pickup'],
  ['POST', '/pickup/:id/cancel'],
  ['GET', '/pickup/read'],
  ['POST', '/auth/logout'],
];

/** The calls open to anyone (spec: sign-up, sign-in, the code screens and the terms; the captcha and shop settings the signed-out screens read; calls from outside whose own secret is the key). */
const publicRoutes: Call[] = [
  ['POST', '/auth/register'],
  ['POST', '/auth/login'],
  ['POST', '/auth/forgotPassword'],
  ['POST', '/auth/resetPassword'],
  ['POST', '/auth/verifyEmail'],
  ['GET', '/tos/read'],
  ['GET', '/config'],
  ['GET', '/captcha/challenge'],
  ['POST', '/invoices/webhook/:provider'],
  ['POST', '/labels/webhook/:upstream'],
  ['GET', '/fed/file/:id'],
  ['GET', '/track/:token'],
  ['GET', '/track/:token/unsubscribe'],
  ['POST', '/track/:token/unsubscribe'],
];

const call = (method: Call[0], path: string, headers: Record<string, string> = {}, payload?: Record<string, unknown>) =>
  t.app.inject({ method, url: `/api/v1${path.replace(':id', 'no-such-id').replace(':provider', 'sandbox')}`, headers, ...(payload ? { payload } : {}) });

describe('the customer guard', () => {
  it('the two lists hold every route under /api/v1 but the console', () => {
    const served = routesUnder(t.app, '/api/v1').filter((route) => !route.split(' ')[1].startsWith('/admin'));
    expect([...customerRoutes, ...publicRoutes].map(([method, path]) => `${method} ${path}`).sort()).toEqual(served);
  });

  it('answers 401 to a visitor and to a bad token on every customer route, before the body is read or checked', async () => {
    for (const [method, path] of customerRoutes) {
      for (const headers of [{}, { authorization: 'Bearer not.a.token' }, { authorization: 'Basic abc' }] as Record<string, string>[]) {
        const res = await call(method, path, headers, method === 'GET' || method === 'DELETE' ? undefined : { junk: true });
        expect([`${method} ${path}`, res.statusCode, res.json().message]).toEqual([`${method} ${path}`, 401, 'Unauthorized']);
      }
    }
  });

  it('answers 403 to a disabled account on every customer route', async () => {
    const user = await signUp(t.app);
    await t.db
      .updateTable('users')
      .set({ disabled_at: new Date().toISOString() })
      .where('id', '=', await userIdOf(t.app, user.headers))
      .execute();
    for (const [method, path] of customerRoutes) {
      const res = await call(method, path, user.headers);
      expect([`${method} ${path}`, res.statusCode, res.json().message]).toEqual([`${method} ${path}`, 403, ACCOUNT_DISABLED]);
    }
  });

  it('lets a signed-in customer through on every customer route, as that customer', async () => {
    const user = await signUp(t.app);
    expect((await call('GET', '/auth/access', user.headers)).json().tgId).toBe(user.tgId);
    for (const [method, path] of customerRoutes) {
      // Past the guard each call is answered by its route: a list, a 400 for the missing body, a 404 for the unknown id.
      const res = await call(method, path, user.headers);
      expect([`${method} ${path}`, res.statusCode]).toEqual([`${method} ${path}`, expect.toSatisfy((status: number) => status !== 401 && status !== 403)]);
    }
    // The last call signed the session out.
    expect((await call('GET', '/auth/access', user.headers)).statusCode).toBe(401);
  });
});

describe('the public calls', () => {
  it('answer without a token, each by its own rules', async () => {
    const tgId = uniqueTgId();
    const password = 'correct horse 1';
    const email = 'nobody@example.com';
    const bodies: Record<string, () => Promise<Record<string, unknown>>> = {
      '/auth/register': async () => ({ username: 'Visitor', tgId, password, captchaToken: await solveCaptcha(t.app) }),
      '/auth/login': async () => ({ tgId, password, captchaToken: await solveCaptcha(t.app) }),
      '/auth/forgotPassword': async () => ({ email, captchaToken: await solveCaptcha(t.app) }),
      '/auth/resetPassword': async () => ({ email, newPassword: password, OTP: '123456', captchaToken: await solveCaptcha(t.app) }),
      '/auth/verifyEmail': async () => ({ email, OTP: '123456', captchaToken: await solveCaptcha(t.app) }),
    };
    const answers: (string | number)[][] = [];
    for (const [method, path] of publicRoutes) {
      const res = await call(method, path, {}, await bodies[path]?.());
      answers.push([`${method} ${path}`, res.statusCode, ...(res.statusCode === 200 ? [] : [res.json().message])]);
    }
    expect(answers).toEqual([
      ['POST /auth/register', 200],
      ['POST /auth/login', 200],
      ['POST /auth/forgotPassword', 200],
      ['POST /auth/resetPassword', 400, OTP_INVALID],
      ['POST /auth/verifyEmail', 400, OTP_INVALID],
      ['GET /tos/read', 200],
      ['GET /config', 200],
      ['GET /captcha/challenge', 200],
      // The payment provider's signature and the link's signature are their keys.
      ['POST /invoices/webhook/:provider', 401, INVALID_SIGNATURE],
      ['POST /labels/webhook/:upstream', 404, UPSTREAM_WEBHOOK_UNKNOWN],
      ['GET /fed/file/:id', 403, FEDEX_LINK_INVALID],
      // The recipient's tracking link is its key: ':token' is no token.
      ['GET /track/:token', 400, TRACKING_LINK_INVALID],
      ['GET /track/:token/unsubscribe', 400, TRACKING_LINK_INVALID],
      ['POST /track/:token/unsubscribe', 400, TRACKING_LINK_INVALID],
    ]);
  });
});
