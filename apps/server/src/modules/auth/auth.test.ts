import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_CREATED, CAPTCHA_FAILED, FORGOT_PASSWORD_SENT, INVALID_CREDENTIALS, SIGNED_OUT } from '@portal/contract';
import { buildApp } from '../../app.ts';
import { TEST_PASSWORD_COST, signUp, solveCaptcha, startTestApp, uniqueTgId, userIdOf, type TestApp } from '../../../test/harness.ts';
import { createSealedBox } from '../../lib/sealed-box.ts';
import { readOrCreateSecret } from '../../lib/secrets.ts';
import { createOutboxMailer } from '../../providers/mail/mailer.ts';
import { OTP_INVALID, OTP_LOCKED, TG_ID_TAKEN, createAuthService } from './service.ts';
import { createTokenService } from './tokens.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const post = async (url: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `/api/v1${url}`, payload, headers });
const withCaptcha = async (payload: Record<string, unknown>) => ({ ...payload, captchaToken: await solveCaptcha(t.app) });

/** Signs up, sets and verifies an email through the real mail flow. */
async function userWithVerifiedEmail() {
  const user = await signUp(t.app);
  const email = `${user.tgId.toLowerCase()}@example.com`;
  expect((await post('/account/email', { email }, user.headers)).statusCode).toBe(200);
  const OTP = await t.inbox.codeFor(email);
  const verified = await post('/auth/verifyEmail', await withCaptcha({ email, OTP }));
  expect(verified.statusCode).toBe(200);
  return { ...user, email };
}

describe('register', () => {
  it('creates an account with balance 0 and an API key, storing the Telegram name without @', async () => {
    const tgId = uniqueTgId();
    const res = await post('/auth/register', await withCaptcha({ username: 'Ann Shipper', tgId: `@${tgId}`, password: 'long enough 1' }));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: ACCOUNT_CREATED });
    const login = await post('/auth/login', await withCaptcha({ tgId, password: 'long enough 1' }));
    const access = await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: { authorization: `Bearer ${login.json().accessToken}` } });
    expect(access.statusCode).toBe(200);
    expect(access.json()).toMatchObject({ username: 'Ann Shipper', tgId, email: null, emailVerified: false, balance: 0 });
    expect(access.json().api_key).toMatch(/^lp_[\w-]{20,}$/);
  });

  it('hashes a password with argon2id at its default cost (64 MiB, 3 passes, 4 lanes); the tests build their apps with a cheaper one', async () => {
    const secret = readOrCreateSecret(t.config.dataDir, 'jwt-secret', t.config.JWT_SECRET);
    const shop = createAuthService({
      db: t.db,
      mailer: createOutboxMailer(t.db, t.app.log),
      tokens: createTokenService(secret, t.config.JWT_TTL_HOURS),
      codePepper: secret,
      sealedBox: createSealedBox(readOrCreateSecret(t.config.dataDir, 'secrets-key', t.config.SECRETS_KEY)),
    });
    const hashOf = (tgId: string) =>
      t.db
        .selectFrom('users')
        .select('password_hash')
        .where('tg_id_lower', '=', tgId.toLowerCase())
        .executeTakeFirstOrThrow()
        .then((u) => u.password_hash);
    const tgId = uniqueTgId();
    await shop.register({ username: 'Default Cost', tgId, password: 'long enough 1' });
    expect(await hashOf(tgId)).toMatch(/^\$argon2id\$v=19\$m=65536,p=4,t=3\$/);
    expect((await shop.login({ tgId, password: 'long enough 1' })).accessToken).toBeTruthy();
    const user = await signUp(t.app);
    expect(await hashOf(user.tgId)).toMatch(/^\$argon2id\$v=19\$m=1024,p=1,t=1\$/);
  });

  it('refuses a second account with the same Telegram name in any case', async () => {
    const tgId = uniqueTgId('dup');
    expect((await post('/auth/register', await withCaptcha({ username: 'A', tgId, password: 'long enough 1' }))).statusCode).toBe(200);
    const again = await post('/auth/register', await withCaptcha({ username: 'B', tgId: `@${tgId.toUpperCase()}`, password: 'long enough 2' }));
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(TG_ID_TAKEN);
  });

  it.each([
    [{ tgId: 'valid_name1', password: 'long enough 1' }, 'Name is required'],
    [{ username: 'A', password: 'long enough 1' }, 'Telegram username is required'],
    [{ username: 'A', tgId: 'ab', password: 'long enough 1' }, 'Telegram username must be 5 to 32 letters, digits or underscores'],
    [{ username: 'A', tgId: "x' OR 1=1 --", password: 'long enough 1' }, 'Telegram username must be 5 to 32 letters, digits or underscores'],
    [{ username: 'A', tgId: 'valid_name1', password: 'short' }, 'Password must be at least 8 characters'],
    [{ username: 'A', tgId: 'valid_name1', password: 12345678 }, 'Password must be text'],
  ])('rejects bad input %j with a clear 400', async (body, message) => {
    const res = await post('/auth/register', await withCaptcha(body));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(message);
  });

  it('keeps SQL metacharacters in a name as plain text', async () => {
    const tgId = uniqueTgId('sql');
    const username = `Robert'); DROP TABLE users;--`;
    expect((await post('/auth/register', await withCaptcha({ username, tgId, password: 'long enough 1' }))).statusCode).toBe(200);
    const login = await post('/auth/login', await withCaptcha({ tgId, password: 'long enough 1' }));
    const access = await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: { authorization: `Bearer ${login.json().accessToken}` } });
    expect(access.json().username).toBe(username);
  });

  it('rejects a body over the size limit with 413', async () => {
    const res = await post('/auth/register', { username: 'x'.repeat(2 * 1024 * 1024), tgId: 'valid_name1', password: 'long enough 1', captchaToken: 'x' });
    expect(res.statusCode).toBe(413);
    expect(res.json().message).toMatch(/too large/i);
  });

  it('rejects a body that is not JSON with 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: '{"username":', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBeTruthy();
  });
});

describe('captcha', () => {
  it('rejects a missing, wrong or reused solution', async () => {
    const base = { tgId: uniqueTgId(), password: 'long enough 1' };
    for (const captchaToken of [undefined, '', 'bm90IGpzb24=', Buffer.from('{"number":1}').toString('base64')]) {
      const res = await post('/auth/login', { ...base, captchaToken });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(CAPTCHA_FAILED);
    }
    const user = await signUp(t.app);
    const token = await solveCaptcha(t.app);
    expect((await post('/auth/login', { tgId: user.tgId, password: user.password, captchaToken: token })).statusCode).toBe(200);
    const reused = await post('/auth/login', { tgId: user.tgId, password: user.password, captchaToken: token });
    expect(reused.statusCode).toBe(400);
    expect(reused.json().message).toBe(CAPTCHA_FAILED);
  });

  it('rejects a solution with a tampered number', async () => {
    const payload = JSON.parse(Buffer.from(await solveCaptcha(t.app), 'base64').toString());
    payload.number = payload.number + 1;
    const res = await post('/auth/login', { tgId: uniqueTgId(), password: 'x', captchaToken: Buffer.from(JSON.stringify(payload)).toString('base64') });
    expect(res.json().message).toBe(CAPTCHA_FAILED);
  });
});

describe('login and access', () => {
  it('answers the same 401 for an unknown account and a wrong password', async () => {
    const user = await signUp(t.app);
    const wrongPassword = await post('/auth/login', await withCaptcha({ tgId: user.tgId, password: 'not the password' }));
    const unknown = await post('/auth/login', await withCaptcha({ tgId: uniqueTgId('nobody'), password: 'not the password' }));
    expect(wrongPassword.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrongPassword.json()).toEqual({ message: INVALID_CREDENTIALS });
    expect(unknown.json()).toEqual(wrongPassword.json());
  });

  it('accepts the Telegram name with @ and in any case', async () => {
    const user = await signUp(t.app);
    const res = await post('/auth/login', await withCaptcha({ tgId: `@${user.tgId.toUpperCase()}`, password: user.password }));
    expect(res.statusCode).toBe(200);
    expect(res.json().accessToken).toBeTruthy();
  });

  it('answers 401 to a missing, malformed, forged or expired token', async () => {
    const { SignJWT } = await import('jose');
    const forged = await new SignJWT({ ver: 0 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('x')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('some other secret that is long enough'));
    const user = await signUp(t.app);
    const secret = (await import('node:fs')).readFileSync(`${t.config.dataDir}/jwt-secret`, 'utf8');
    const userId = (await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: user.headers })).json()._id;
    const expired = await new SignJWT({ ver: 0 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setIssuedAt(1)
      .setExpirationTime(2)
      .sign(new TextEncoder().encode(secret));
    for (const authorization of [undefined, 'Bearer', 'Bearer not.a.jwt', `Bearer ${forged}`, `Bearer ${expired}`, user.token]) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: authorization ? { authorization } : {} });
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toBe('Unauthorized');
    }
  });
});

describe('email verification and password reset', () => {
  it('verifies an email with the mailed code and returns a working token', async () => {
    const user = await userWithVerifiedEmail();
    const login = await post('/auth/login', await withCaptcha({ tgId: user.tgId, password: user.password }));
    const access = await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: { authorization: `Bearer ${login.json().accessToken}` } });
    expect(access.json()).toMatchObject({ email: user.email, emailVerified: true });
  });

  it('resets a password with the mailed code; the old password and old sessions stop working', async () => {
    const user = await userWithVerifiedEmail();
    const forgot = await post('/auth/forgotPassword', await withCaptcha({ email: user.email.toUpperCase() }));
    expect(forgot.json()).toEqual({ message: FORGOT_PASSWORD_SENT });
    const OTP = await t.inbox.codeFor(user.email);
    const reset = await post('/auth/resetPassword', await withCaptcha({ email: user.email, newPassword: 'brand new pass', OTP }));
    expect(reset.statusCode).toBe(200);
    expect(reset.json().accessToken).toBeTruthy();
    expect((await post('/auth/login', await withCaptcha({ tgId: user.tgId, password: user.password }))).statusCode).toBe(401);
    expect((await post('/auth/login', await withCaptcha({ tgId: user.tgId, password: 'brand new pass' }))).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: user.headers })).statusCode).toBe(401);
    const reused = await post('/auth/resetPassword', await withCaptcha({ email: user.email, newPassword: 'another pass 1', OTP }));
    expect(reused.statusCode).toBe(400);
    expect(reused.json().message).toBe(OTP_INVALID);
  });

  it('answers forgotPassword the same for an unknown email and mails nothing', async () => {
    const user = await userWithVerifiedEmail();
    const before = t.inbox.messages.length;
    const res = await post('/auth/forgotPassword', await withCaptcha({ email: 'nobody-here@example.com' }));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: FORGOT_PASSWORD_SENT });
    // No code was made for it, and a code is made before its mail is sent.
    expect(await t.db.selectFrom('one_time_codes').select('id').where('email', '=', 'nobody-here@example.com').execute()).toEqual([]);
    // A known email's request, answered after it, is mailed: the inbox holds that mail alone.
    await post('/auth/forgotPassword', await withCaptcha({ email: user.email }));
    await t.inbox.codeFor(user.email);
    expect(t.inbox.messages.slice(before).map((m) => [m.to, m.subject])).toEqual([[user.email, 'Your password reset code']]);
  });

  it('rejects a wrong code, and locks the code after 5 wrong tries', async () => {
    const user = await userWithVerifiedEmail();
    await post('/auth/forgotPassword', await withCaptcha({ email: user.email }));
    const OTP = await t.inbox.codeFor(user.email);
    const wrong = OTP === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const res = await post('/auth/resetPassword', await withCaptcha({ email: user.email, newPassword: 'brand new pass', OTP: wrong }));
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(OTP_INVALID);
    }
    const locked = await post('/auth/resetPassword', await withCaptcha({ email: user.email, newPassword: 'brand new pass', OTP }));
    expect(locked.statusCode).toBe(429);
    expect(locked.json().message).toBe(OTP_LOCKED);
  });

  it('rejects an expired code', async () => {
    const user = await userWithVerifiedEmail();
    await post('/auth/forgotPassword', await withCaptcha({ email: user.email }));
    const OTP = await t.inbox.codeFor(user.email);
    await t.db
      .updateTable('one_time_codes')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('email', '=', user.email)
      .execute();
    const res = await post('/auth/resetPassword', await withCaptcha({ email: user.email, newPassword: 'brand new pass', OTP }));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(OTP_INVALID);
  });

  it.each([
    [{ email: 'not-an-email', OTP: '123456' }, 'Enter a valid email address'],
    [{ email: 'a@example.com', OTP: '12ab56' }, 'OTP must be 6 digits'],
    [{ email: 'a@example.com' }, 'OTP must be 6 digits'],
  ])('rejects bad verifyEmail input %j', async (body, message) => {
    const res = await post('/auth/verifyEmail', await withCaptcha(body));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(message);
  });

  it('refuses an email another account has verified', async () => {
    const owner = await userWithVerifiedEmail();
    const other = await signUp(t.app);
    const res = await post('/account/email', { email: owner.email }, other.headers);
    expect(res.statusCode).toBe(409);
  });
});

describe('account', () => {
  it('regenerates the API key', async () => {
    const user = await signUp(t.app);
    const before = (await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: user.headers })).json().api_key;
    const res = await post('/account/api-key', {}, user.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json().api_key).not.toBe(before);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: user.headers })).json().api_key).toBe(res.json().api_key);
  });

  it('changes the password only with the current one', async () => {
    const user = await signUp(t.app);
    const wrong = await post('/account/password', { currentPassword: 'nope nope', newPassword: 'brand new pass' }, user.headers);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toBe('Current password is wrong');
    const ok = await post('/account/password', { currentPassword: user.password, newPassword: 'brand new pass' }, user.headers);
    expect(ok.statusCode).toBe(200);
    expect((await post('/auth/login', await withCaptcha({ tgId: user.tgId, password: 'brand new pass' }))).statusCode).toBe(200);
  });

  it('requires a signed-in user', async () => {
    expect((await post('/account/api-key', {})).statusCode).toBe(401);
    expect((await post('/account/email', { email: 'a@example.com' })).statusCode).toBe(401);
  });
});

describe('the signed-in user', () => {
  it('of the requests of one turn is read in one statement, each request with its own row, and a token revoked after it is refused', async () => {
    const [a, b] = [await signUp(t.app), await signUp(t.app)];
    const [idA, idB] = [await userIdOf(t.app, a.headers), await userIdOf(t.app, b.headers)];
    // The app's own auth service, over its database with each statement counted.
    let statements = 0;
    const counting: KyselyPlugin = { transformQuery: ({ node }) => (statements++, node), transformResult: async ({ result }) => result };
    const secret = readOrCreateSecret(t.config.dataDir, 'jwt-secret', t.config.JWT_SECRET);
    const auth = createAuthService({
      db: t.db.withPlugin(counting),
      mailer: createOutboxMailer(t.db, t.app.log),
      tokens: createTokenService(secret, t.config.JWT_TTL_HOURS),
      codePepper: secret,
      sealedBox: createSealedBox(readOrCreateSecret(t.config.dataDir, 'secrets-key', t.config.SECRETS_KEY)),
      passwordCost: TEST_PASSWORD_COST,
    });
    // Each signature checked once first: a first check may finish in a later turn than the next one's.
    for (const user of [a, b]) await auth.userForToken(user.token);
    statements = 0;
    const users = await Promise.all([auth.userForToken(a.token), auth.userForToken(b.token), auth.userForToken(a.token)]);
    expect(users.map((u) => u?.id)).toEqual([idA, idB, idA]);
    expect(users[0]).not.toBe(users[2]);
    expect(statements).toBe(1);
    await t.db
      .updateTable('users')
      .set((eb) => ({ token_version: eb('token_version', '+', 1) }))
      .where('id', '=', idA)
      .execute();
    expect(await auth.userForToken(a.token)).toBeNull();
    expect((await auth.userForToken(b.token))?.id).toBe(idB);
  });
});

describe('sign-out', () => {
  const access = (app: TestApp['app'], headers: { authorization: string }) =>
    app.inject({ method: 'GET', url: '/api/v1/auth/access', headers }).then((r) => r.statusCode);
  const logout = (app: TestApp['app'], headers: Record<string, string>) => app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers });

  it("ends that token's session at once on this app and on another app on the same database; the account's other sessions go on", async () => {
    // Another app instance over the same database (its own connections), as a second process would be.
    const other = await buildApp({ ...t.config, DATABASE_URL: t.databaseUrl, QUEUE_RUN_WORKERS: false }, { logger: false, passwordCost: TEST_PASSWORD_COST });
    try {
      const user = await signUp(t.app);
      const second = await post('/auth/login', await withCaptcha({ tgId: user.tgId, password: user.password }));
      const otherDevice = { authorization: `Bearer ${second.json().accessToken}` };
      expect([await access(t.app, user.headers), await access(other, user.headers)]).toEqual([200, 200]);

      const res = await logout(t.app, user.headers);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ message: SIGNED_OUT });
      expect([await access(t.app, user.headers), await access(other, user.headers)]).toEqual([401, 401]);
      expect((await logout(t.app, user.headers)).statusCode).toBe(401);
      expect([await access(t.app, otherDevice), await access(other, otherDevice)]).toEqual([200, 200]);

      // Signed out on the other app, refused here too.
      expect((await logout(other, otherDevice)).statusCode).toBe(200);
      expect([await access(t.app, otherDevice), await access(other, otherDevice)]).toEqual([401, 401]);
      // A new sign-in works.
      expect((await post('/auth/login', await withCaptcha({ tgId: user.tgId, password: user.password }))).statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('needs a signed-in token', async () => {
    for (const headers of [{}, { authorization: 'Bearer not.a.jwt' }] as Record<string, string>[]) {
      const res = await logout(t.app, headers);
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toBe('Unauthorized');
    }
  });

  it('ends every session of the account for a token issued before tokens had ids', async () => {
    const { SignJWT } = await import('jose');
    const user = await signUp(t.app);
    const userId = await userIdOf(t.app, user.headers);
    const secret = (await import('node:fs')).readFileSync(`${t.config.dataDir}/jwt-secret`, 'utf8');
    const old = await new SignJWT({ ver: 0 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(secret));
    const oldHeaders = { authorization: `Bearer ${old}` };
    expect(await access(t.app, oldHeaders)).toBe(200);
    expect((await logout(t.app, oldHeaders)).statusCode).toBe(200);
    expect([await access(t.app, oldHeaders), await access(t.app, user.headers)]).toEqual([401, 401]);
  });

  it('forgets revoked tokens once they have expired', async () => {
    const user = await signUp(t.app);
    await t.db
      .insertInto('revoked_tokens')
      .values({ jti: 'long-expired', user_id: await userIdOf(t.app, user.headers), expires_at: new Date(Date.now() - 1000).toISOString() })
      .execute();
    expect((await logout(t.app, user.headers)).statusCode).toBe(200);
    const left = await t.db.selectFrom('revoked_tokens').select('jti').where('jti', '=', 'long-expired').execute();
    expect(left).toEqual([]);
  });
});
