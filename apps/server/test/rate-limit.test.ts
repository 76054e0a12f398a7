import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTCHA_FAILED, TOO_MANY_ATTEMPTS } from '@portal/contract';
import { dropRedisPrefix, signUp, solveCaptcha, startTestApp, uniqueTgId, type TestApp } from './harness.ts';
import { uniqueId } from './basics.ts';

const stores = ['memory', ...(process.env.TEST_REDIS_URL ? ['redis'] : [])] as const;
const FAKE_CAPTCHA = Buffer.from('{"number":1}').toString('base64');
let addresses = 0;
/** A new client address each call, so only the per-account count can stop a request. */
const newAddress = () => `10.77.${Math.floor(++addresses / 250)}.${addresses % 250}`;

describe.each(stores)('attempt limits in %s', (store) => {
  let t: TestApp;
  const prefix = uniqueId('test-limits');
  /** The slow-downs the app asked for (ms), recorded instead of waited. */
  const slept: number[] = [];
  beforeAll(async () => {
    t = await startTestApp(
      {
        RATE_LIMIT_MAX: '5',
        ...(store === 'redis' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix, QUEUE_RUN_WORKERS: 'false' } : {}),
      },
      { slowDown: async (ms: number) => void slept.push(ms) },
    );
  });
  afterAll(async () => {
    await t.close();
    if (store === 'redis') await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  });
  const post = (url: string, payload: Record<string, unknown>, remoteAddress = newAddress()) =>
    t.app.inject({ method: 'POST', url: `/api/v1/auth/${url}`, remoteAddress, payload });

  it('answers 429 naming the wait once guesses on one account from one address pass the limit; other accounts go on', async () => {
    const from = newAddress();
    const tgId = uniqueTgId('victim');
    const guess = async () => post('login', { tgId, password: 'guess guess', captchaToken: await solveCaptcha(t.app) }, from);
    for (let i = 0; i < 5; i++) expect((await guess()).statusCode).toBe(401);
    const blocked = await guess();
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toEqual({ message: 'Too many attempts, try again in 15 minutes' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(14 * 60);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    // The same address on another account is under the per-address limit (15) still.
    expect((await post('login', { tgId: uniqueTgId('victim'), password: 'guess guess', captchaToken: await solveCaptcha(t.app) }, from)).statusCode).toBe(401);
  });

  it("lets the owner's right password in from a clean address after ten failed guesses from others, slowed down, never 429", async () => {
    const owner = await signUp(t.app);
    slept.length = 0;
    for (let i = 0; i < 10; i++) {
      expect((await post('login', { tgId: owner.tgId, password: 'guess guess', captchaToken: await solveCaptcha(t.app) })).statusCode).toBe(401);
    }
    // Past 5 failures on the account every attempt waits first: 1 s, doubling, at most 10 s.
    expect(slept).toEqual([1000, 2000, 4000, 8000, 10_000]);
    const login = await post('login', { tgId: owner.tgId, password: owner.password, captchaToken: await solveCaptcha(t.app) });
    expect(login.statusCode).toBe(200);
    expect(slept.at(-1)).toBe(10_000); // the right password waited too, and got through
  });

  it('lets no more than the limit of parallel guesses from one address reach the password check', async () => {
    const from = newAddress();
    const tgId = uniqueTgId('victim');
    const captchas = await Promise.all(Array.from({ length: 10 }, () => solveCaptcha(t.app)));
    const answers = await Promise.all(captchas.map((captchaToken) => post('login', { tgId, password: 'guess guess', captchaToken }, from)));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
  });

  it('never counts right passwords: 20 sign-ins from one address all pass', async () => {
    const owner = await signUp(t.app);
    const from = newAddress();
    for (let i = 0; i < 20; i++) {
      expect((await post('login', { tgId: owner.tgId, password: owner.password, captchaToken: await solveCaptcha(t.app) }, from)).statusCode).toBe(200);
    }
  });

  it("clears an address's failures on an account when it signs in, and stops it past the limit even with the right password", async () => {
    const owner = await signUp(t.app);
    const from = newAddress();
    const login = async (password: string) => post('login', { tgId: owner.tgId, password, captchaToken: await solveCaptcha(t.app) }, from);
    for (let i = 0; i < 4; i++) expect((await login('typo typo')).statusCode).toBe(401);
    expect((await login(owner.password)).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await login('typo typo')).statusCode).toBe(401);
    const blocked = await login(owner.password);
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(14 * 60);
  });

  it("counts an address's failures across accounts (its sign-ins not), then answers 429 on any account", async () => {
    const owner = await signUp(t.app);
    const from = newAddress();
    const login = async (tgId: string, password: string) => post('login', { tgId, password, captchaToken: await solveCaptcha(t.app) }, from);
    for (let i = 0; i < 5; i++) expect((await login(owner.tgId, owner.password)).statusCode).toBe(200);
    for (let i = 0; i < 15; i++) expect((await login(uniqueTgId('spray'), 'guess guess')).statusCode).toBe(401);
    const blocked = await login(owner.tgId, owner.password);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().message).toBe('Too many attempts, try again in 15 minutes');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(14 * 60);
    // Another address is not held up.
    expect((await post('login', { tgId: owner.tgId, password: owner.password, captchaToken: await solveCaptcha(t.app) })).statusCode).toBe(200);
  });

  it('does not count requests without a valid captcha against the account: its owner still signs in', async () => {
    const owner = await signUp(t.app);
    for (let i = 0; i < 9; i++) {
      const fake = await post('login', { tgId: owner.tgId, password: 'guess guess', captchaToken: FAKE_CAPTCHA });
      expect(fake.statusCode).toBe(400);
      expect(fake.json().message).toBe(CAPTCHA_FAILED);
    }
    const login = await post('login', { tgId: owner.tgId, password: owner.password, captchaToken: await solveCaptcha(t.app) });
    expect(login.statusCode).toBe(200);
  });

  it.each([
    ['register', () => ({ username: 'A', tgId: `held_${store}`, password: 'long enough 1' })],
    ['forgotPassword', () => ({ email: `held-${store}@example.com` })],
    ['resetPassword', () => ({ email: `held-${store}@example.com`, newPassword: 'long enough 1', OTP: '123456' })],
    ['verifyEmail', () => ({ email: `held-${store}@example.com`, OTP: '123456' })],
  ])('does not count fake captchas against the account on %s, and counts solved ones', async (route, body) => {
    for (let i = 0; i < 9; i++) expect((await post(route, { ...body(), captchaToken: FAKE_CAPTCHA })).statusCode).toBe(400);
    const from = newAddress();
    const solved = async () => post(route, { ...body(), captchaToken: await solveCaptcha(t.app) }, from);
    for (let i = 0; i < 5; i++) expect((await solved()).statusCode).not.toBe(429);
    expect((await solved()).statusCode).toBe(429);
  });

  it("lets the owner's new reset code in after others spent the old one's tries from other addresses", async () => {
    const user = await signUp(t.app);
    const email = `${user.tgId.toLowerCase()}@example.com`;
    const mailed = () => t.inbox.messages.filter((m) => m.to === email).length;
    const nextCode = async (ask: () => Promise<unknown>) => {
      const before = mailed();
      await ask();
      await expect.poll(mailed, { timeout: 15_000, message: `a mail to ${email}` }).toBeGreaterThan(before);
      return t.inbox.codeFor(email);
    };
    const OTP = await nextCode(() => t.app.inject({ method: 'POST', url: '/api/v1/account/email', headers: user.headers, payload: { email } }));
    expect((await post('verifyEmail', { email, OTP, captchaToken: await solveCaptcha(t.app) })).statusCode).toBe(200);
    const forgot = async () => post('forgotPassword', { email, captchaToken: await solveCaptcha(t.app) });
    const first = await nextCode(forgot);
    const wrong = first === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      expect((await post('resetPassword', { email, OTP: wrong, newPassword: 'brand new pass', captchaToken: await solveCaptcha(t.app) })).statusCode).toBe(400);
    }
    const second = await nextCode(forgot);
    const reset = await post('resetPassword', { email, OTP: second, newPassword: 'brand new pass', captchaToken: await solveCaptcha(t.app) });
    expect(reset.statusCode).toBe(200);
  });

  it('counts captcha failures per address, and lets a client three times the per-account limit across accounts', async () => {
    const from = newAddress();
    for (let i = 0; i < 10; i++)
      expect((await post('login', { tgId: uniqueTgId('spray'), password: 'guess guess', captchaToken: FAKE_CAPTCHA }, from)).statusCode).toBe(400);
    for (let i = 0; i < 5; i++)
      expect((await post('login', { tgId: uniqueTgId('spray'), password: 'guess guess', captchaToken: await solveCaptcha(t.app) }, from)).statusCode).toBe(401);
    const blocked = await post('login', { tgId: uniqueTgId('spray'), password: 'guess guess', captchaToken: await solveCaptcha(t.app) }, from);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().message).toBe('Too many attempts, try again in 15 minutes');
    expect((await post('login', { tgId: uniqueTgId('spray'), password: 'guess guess', captchaToken: FAKE_CAPTCHA }, from)).statusCode).toBe(429);
  });

  it('limits webhook changes per account with a 429 (not an unhandled rejection that could stop the process)', async () => {
    const user = await signUp(t.app);
    const saveAs = (who: typeof user) => t.app.inject({ method: 'PUT', url: '/api/v1/account/webhook', headers: who.headers, payload: { url: null } });
    const save = () => saveAs(user);
    for (let i = 0; i < 5; i++) expect((await save()).statusCode).toBe(200);
    const blocked = await save();
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().message).toBe('Too many attempts, try again in 15 minutes');
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/account/webhook/secret', headers: user.headers })).statusCode).toBe(429);
    // Reading stays open, and another user has a budget of their own.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/account/webhook', headers: user.headers })).statusCode).toBe(200);
    expect((await saveAs(await signUp(t.app))).statusCode).toBe(200);
  });

  it('limits forgot-password per account too', async () => {
    const attempt = async () => post('forgotPassword', { email: 'target@example.com', captchaToken: await solveCaptcha(t.app) });
    for (let i = 0; i < 5; i++) expect((await attempt()).statusCode).toBe(200);
    expect((await attempt()).statusCode).toBe(429);
  });
});

describe('the 429 message', () => {
  it('names the wait in minutes, rounded up, at least one', () => {
    expect([1, 59, 60, 61, 119, 120, 840, 841, 900].map(TOO_MANY_ATTEMPTS)).toEqual([
      'Too many attempts, try again in 1 minute',
      'Too many attempts, try again in 1 minute',
      'Too many attempts, try again in 1 minute',
      'Too many attempts, try again in 2 minutes',
      'Too many attempts, try again in 2 minutes',
      'Too many attempts, try again in 2 minutes',
      'Too many attempts, try again in 14 minutes',
      'Too many attempts, try again in 15 minutes',
      'Too many attempts, try again in 15 minutes',
    ]);
  });

  it('says one minute for a window under a minute', async () => {
    const t = await startTestApp({ RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_SECONDS: '30' });
    try {
      const guess = async () =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { tgId: 'short_window', password: 'guess guess', captchaToken: await solveCaptcha(t.app) },
        });
      expect((await guess()).statusCode).toBe(401);
      const blocked = await guess();
      expect(blocked.json()).toEqual({ message: 'Too many attempts, try again in 1 minute' });
      expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(30);
    } finally {
      await t.close();
    }
  });
});
