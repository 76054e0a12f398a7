import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { dropRedisPrefix, signUp, solveCaptcha, startTestApp, testDbKind, type TestApp } from './harness.ts';
import { uniqueId } from './basics.ts';

const open: TestApp[] = [];
const start = async (...args: Parameters<typeof startTestApp>) => {
  const t = await startTestApp(...args);
  open.push(t);
  return t;
};
afterAll(async () => {
  await Promise.all(open.map((t) => t.close()));
});

/** A failed sign-in for a new account each time, so only the per-address count can stop it. */
const guess = async (t: TestApp, i: number, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    remoteAddress,
    headers,
    payload: {
      tgId: uniqueId('spray'),
      password: 'guess guess',
      captchaToken: await solveCaptcha(t.app),
    },
  });

describe('TRUST_PROXY', () => {
  it('is off by default: a forged X-Forwarded-For does not escape the per-address limit', async () => {
    const t = await start({ RATE_LIMIT_MAX: '2' });
    for (let i = 0; i < 6; i++) expect((await guess(t, i, { 'x-forwarded-for': `203.0.113.${i}` })).statusCode).toBe(401);
    const blocked = await guess(t, 6, { 'x-forwarded-for': '203.0.113.99' });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(900);
  });

  it('honours X-Forwarded-For from the proxy it names', async () => {
    const t = await start({ RATE_LIMIT_MAX: '2', TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' });
    // Seven clients behind the proxy: each has its own address, so none is limited.
    for (let i = 0; i < 7; i++) expect((await guess(t, i, { 'x-forwarded-for': `203.0.113.${i}` }, '10.1.2.3')).statusCode).toBe(401);
    // A client that is not the proxy cannot claim another address.
    for (let i = 0; i < 6; i++) expect((await guess(t, i, { 'x-forwarded-for': `198.51.100.${i}` }, '192.0.2.50')).statusCode).toBe(401);
    expect((await guess(t, 7, { 'x-forwarded-for': '198.51.100.99' }, '192.0.2.50')).statusCode).toBe(429);
  });

  it('honours a hop count: the nearest proxy, whatever its address', async () => {
    const t = await start({ RATE_LIMIT_MAX: '2', TRUST_PROXY: '1' });
    for (let i = 0; i < 7; i++) expect((await guess(t, i, { 'x-forwarded-for': `203.0.113.${i}` }, '192.0.2.60')).statusCode).toBe(401);
    // One hop only: an address the client adds in front of the proxy's is not believed.
    for (let i = 0; i < 6; i++) expect((await guess(t, i, { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.200` }, '192.0.2.60')).statusCode).toBe(401);
    expect((await guess(t, 7, { 'x-forwarded-for': '198.51.100.99, 203.0.113.200' }, '192.0.2.60')).statusCode).toBe(429);
  });

  it('accepts true, false, a hop count, or addresses and CIDRs, and names a bad value', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1' }).TRUST_PROXY).toEqual(['127.0.0.1', '10.0.0.0/8', '::1']);
    expect(() => loadConfig({ TRUST_PROXY: 'proxy.example' })).toThrowError(/TRUST_PROXY: must be true, false, a hop count/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrowError(/TRUST_PROXY/);
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('attempt limits on Redis', () => {
  const prefix = uniqueId('test');
  afterAll(() => dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix));

  it('are counted once across two web processes', async () => {
    const env = { RATE_LIMIT_MAX: '4', REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix, QUEUE_RUN_WORKERS: 'false' };
    const [one, two] = [await start(env), await start(env)];
    const login = async (t: TestApp) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        remoteAddress: '192.0.2.7',
        payload: { tgId: 'shared_victim', password: 'guess guess', captchaToken: await solveCaptcha(t.app) },
      });
    for (let i = 0; i < 4; i++) expect((await login(i % 2 ? one : two)).statusCode).toBe(401);
    const blocked = await login(one);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toEqual({ message: 'Too many attempts, try again in 15 minutes' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await login(two)).statusCode).toBe(429);
  });
});

describe('mail without SMTP', () => {
  it('keeps the mail in the outbox, logs only its id, and npm run outbox prints it', async () => {
    const lines: string[] = [];
    const t = await start({ SMTP_URL: '' }, { logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } } });
    const user = await signUp(t.app);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v1/account/email', headers: user.headers, payload: { email: 'outbox@example.com' } })).statusCode,
    ).toBe(200);
    const mail = await t.db.selectFrom('outbox_mail').selectAll().where('to_address', '=', 'outbox@example.com').executeTakeFirstOrThrow();
    const code = /\b(\d{6})\b/.exec(mail.body)![1];
    const logged = lines.join('');
    expect(logged).toContain(`"outboxMailId":"${mail.id}"`);
    expect(logged).not.toContain(code);
    expect(logged).not.toContain(mail.body.split('\n')[0]);

    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      DATA_DIR: t.config.dataDir,
      DATABASE_URL: t.databaseUrl ?? '',
      LOG_LEVEL: 'silent',
    };
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/outbox-cli.ts', '--limit', '1'], { cwd: path.resolve(import.meta.dirname, '..'), env });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    try {
      expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    expect(out).toContain(`To: outbox@example.com`);
    expect(out).toContain(code);
  });
});

describe('errors', () => {
  it('answers a provider outage with its own status and message, and an unexpected fault generically', async () => {
    const lines: string[] = [];
    const t = await start(
      {},
      {
        payments: {
          name: 'btcpay',
          createInvoice: async () => {
            throw new Error('connect ECONNREFUSED');
          },
          parseWebhook: () => null,
          fetchInvoice: async () => null,
        },
        logger: { level: 'error', stream: { write: (line: string) => lines.push(line) } },
      },
    );
    const user = await signUp(t.app);
    const outage = await t.app.inject({
      method: 'POST',
      url: '/api/v1/invoices/create-invoice',
      headers: user.headers,
      payload: { amount: 10, type: 'crypto' },
    });
    expect(outage.statusCode).toBe(503);
    expect(outage.json()).toEqual({ message: 'Payment provider unavailable, please try again in a minute' });
    expect(lines.join('')).toMatch(/"reqId":"[^"]+"/);
    const missing = await t.app.inject({ method: 'GET', url: '/api/v1/no-such-call' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'Route GET /api/v1/no-such-call not found' });
  });
});

it.runIf(testDbKind === 'sqlite')('keeps unexpected 5xx messages out of answers', async () => {
  const { HttpError } = await import('../src/lib/http-errors.ts');
  expect(new HttpError(500, 'label file missing').expose).toBe(false);
  expect(new HttpError(503, 'Try again', { expose: true }).expose).toBe(true);
  expect(new HttpError(404, 'Not found').expose).toBe(true);
});
