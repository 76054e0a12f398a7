import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, dropRedisPrefix } from '../../../test/harness.ts';
import { callApi, resellerUser } from '../../../test/reseller-fixtures.ts';
import { uniqueId } from '../../../test/basics.ts';

describe('the reseller rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RESELLER_RATE_LIMIT_PER_MINUTE: '5' });
  });
  afterAll(() => t.close());

  it('counts requests per API key, sends RateLimit headers, and answers 429 with Retry-After past the limit', async () => {
    const user = await resellerUser(t.app, t.db, 0);
    const other = await resellerUser(t.app, t.db, 0);
    for (let i = 0; i < 5; i++) {
      const res = await callApi(t.app, user.apiKey, 'GET', '/order/bulk-queue-stats');
      expect(res.statusCode).toBe(200);
      expect([res.headers['ratelimit-limit'], res.headers['ratelimit-remaining']]).toEqual(['5', String(4 - i)]);
      expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
    }
    const limited = await callApi(t.app, user.apiKey, 'GET', '/labeltype/read-types');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ type: 'error', message: expect.stringMatching(/^Too many requests, retry in \d+ s$/) });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    // Another key has its own budget; the document needs none.
    expect((await callApi(t.app, other.apiKey, 'GET', '/labeltype/read-types')).statusCode).toBe(200);
    expect((await callApi(t.app, undefined, 'GET', '/openapi.json')).statusCode).toBe(200);
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('the reseller rate limit with Redis', () => {
  const prefix = uniqueId('test-rate');
  const env = { RESELLER_RATE_LIMIT_PER_MINUTE: '4', REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix };
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    [first, second] = await Promise.all([startTestApp(env), startTestApp(env)]);
  });
  afterAll(async () => {
    await Promise.all([first.close(), second.close()]);
    await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  });

  it('is shared by every process, keyed by the hashed key', async () => {
    const user = await resellerUser(first.app, first.db, 0);
    expect((await callApi(first.app, user.apiKey, 'GET', '/labeltype/read-types')).headers['ratelimit-remaining']).toBe('3');
    expect((await callApi(first.app, user.apiKey, 'GET', '/labeltype/read-types')).headers['ratelimit-remaining']).toBe('2');
    // The other process (its own database does not know the key, so 401) counts in the same window.
    const elsewhere = await callApi(second.app, user.apiKey, 'GET', '/labeltype/read-types');
    expect([elsewhere.statusCode, elsewhere.headers['ratelimit-remaining']]).toEqual([401, '1']);
    expect((await callApi(first.app, user.apiKey, 'GET', '/labeltype/read-types')).statusCode).toBe(200);
    const limited = await callApi(second.app, user.apiKey, 'GET', '/labeltype/read-types');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    const { Redis } = await import('ioredis');
    const redis = new Redis(process.env.TEST_REDIS_URL!);
    const keys = await redis.keys(`${prefix}:reseller-rate:*`);
    redis.disconnect();
    expect(keys.length).toBe(1);
    expect(keys[0]).toMatch(/key:[0-9a-f]{64}$/); // the hash, never the key
  });
});

describe.each(['memory', ...(process.env.TEST_REDIS_URL ? ['redis'] : [])])('webhook saves through the reseller API, counted in %s', (store) => {
  const prefix = uniqueId('test-hooks');
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      RATE_LIMIT_MAX: '10',
      ...(store === 'redis' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix, QUEUE_RUN_WORKERS: 'false' } : {}),
    });
  });
  afterAll(async () => {
    await t.close();
    if (store === 'redis') await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  });

  it("have the web's limit per account (10 saves, then 429 with Retry-After), shared with the web's saves", async () => {
    const user = await resellerUser(t.app, t.db, 0);
    const save = (apiKey: string) => callApi(t.app, apiKey, 'PUT', '/account/webhook', { payload: { url: null } });
    for (let i = 0; i < 10; i++) expect((await save(user.apiKey)).statusCode).toBe(200);
    const blocked = await save(user.apiKey);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toEqual({ type: 'error', message: 'Too many attempts, try again in 15 minutes' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(14 * 60);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    // The same budget as Account Setting's: the web's save is refused too; reading stays open.
    expect((await t.app.inject({ method: 'PUT', url: '/api/v1/account/webhook', headers: user.headers, payload: { url: null } })).statusCode).toBe(429);
    expect((await callApi(t.app, user.apiKey, 'GET', '/account/webhook')).statusCode).toBe(200);
    // Another account has a budget of its own.
    expect((await save((await resellerUser(t.app, t.db, 0)).apiKey)).statusCode).toBe(200);
  });
});
