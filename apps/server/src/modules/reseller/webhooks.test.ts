import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WAIT, uniqueId } from '../../../test/basics.ts';
import { WEBHOOK_EVENTS, WEBHOOK_URL_INVALID, WEBHOOK_URL_PRIVATE } from '@portal/contract';
import { startTestApp, type TestApp, dropRedisPrefix } from '../../../test/harness.ts';
import { createSealedBox } from '../../lib/sealed-box.ts';
import { bulkRow, callApi, labelFields, resellerUser } from '../../../test/reseller-fixtures.ts';
import { startReceiver, verifySignature } from '../../../test/webhook-receiver.ts';

const engines = ['embedded', ...(process.env.TEST_REDIS_URL ? ['bullmq'] : [])] as const;
type User = Awaited<ReturnType<typeof resellerUser>>;

const settingsOf = async (t: TestApp, user: User) => (await t.app.inject({ method: 'GET', url: '/api/v1/account/webhook', headers: user.headers })).json();
const saveUrl = (t: TestApp, user: User, url: string | null) =>
  t.app.inject({ method: 'PUT', url: '/api/v1/account/webhook', headers: user.headers, payload: { url } });

describe.each(engines)('webhooks on the %s queue', (engine) => {
  let t: TestApp;
  const prefix = uniqueId('test-webhooks');
  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_BASE_MS: '100',
      ...(engine === 'bullmq' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix } : {}),
    });
  });
  afterAll(async () => {
    await t.close();
    if (engine === 'bullmq') await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  });

  it('keeps one URL a user with a secret shown once, rotated on demand', async () => {
    const user = await resellerUser(t.app, t.db, 0);
    expect(await settingsOf(t, user)).toEqual({
      message: 'Webhook',
      url: null,
      hasSecret: false,
      events: [...WEBHOOK_EVENTS],
      deliveries: [],
    });
    const saved = (await saveUrl(t, user, 'http://localhost:9/hook')).json();
    expect(saved).toMatchObject({ message: 'Webhook saved', url: 'http://localhost:9/hook', hasSecret: true, secret: expect.stringMatching(/^whsec_/) });
    const shown = await settingsOf(t, user);
    expect(shown.secret).toBeUndefined();
    expect(shown.hasSecret).toBe(true);
    expect((await saveUrl(t, user, 'http://localhost:9/other')).json().secret).toBeUndefined(); // the secret stays
    const rotated = (await t.app.inject({ method: 'POST', url: '/api/v1/account/webhook/secret', headers: user.headers })).json();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(saved.secret);
    expect((await saveUrl(t, user, '')).json()).toMatchObject({ message: 'Webhook removed', url: null, hasSecret: true });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/account/webhook' })).statusCode).toBe(401);
  });

  it('posts order.completed and bulk.completed signed with the secret', async () => {
    const receiver = await startReceiver();
    try {
      const user = await resellerUser(t.app, t.db, 50_000);
      const { secret } = (await saveUrl(t, user, receiver.url)).json();
      const order = (await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields() })).json().order;
      const bulk = (
        await callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', { payload: { labelType: 'uspsv9', data: [bulkRow(1), bulkRow(2)] } })
      ).json();
      await vi.waitFor(async () => expect(receiver.received).toHaveLength(2), { ...WAIT, timeout: 20_000 });
      const events = receiver.received.map((r) => ({ ...r, event: JSON.parse(r.body) }));
      for (const r of events) {
        expect(verifySignature(r.headers['x-portal-signature'], r.body, secret)).toBe(true);
        expect(verifySignature(r.headers['x-portal-signature'], r.body, 'whsec_wrong')).toBe(false);
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.headers['x-portal-event']).toBe(r.event.type);
      }
      const completed = events.find((r) => r.event.type === 'order.completed')!.event;
      expect(completed).toMatchObject({ id: `order.completed-${order.id}`, data: { order: { id: order.id, status: 'completed', tracking: order.tracking } } });
      const bulkDone = events.find((r) => r.event.type === 'bulk.completed')!.event;
      expect(bulkDone.data.bulkOrder).toMatchObject({ id: bulk.bulkorder_id, job_id: bulk.job_id, totalOrders: 2, made: 2, failed: 0 });
      await vi.waitFor(async () => {
        const deliveries = (await settingsOf(t, user)).deliveries;
        expect(deliveries.map((d: { status: string }) => d.status)).toEqual(['delivered', 'delivered']);
        expect(deliveries[0]).toMatchObject({ attempts: 1, lastStatusCode: 200, lastError: null, deliveredAt: expect.any(String) });
      }, WAIT);
    } finally {
      await receiver.close();
    }
  });

  it('retries a delivery the receiver fails, with backoff, until it is taken', async () => {
    const receiver = await startReceiver([500, 500]);
    try {
      const user = await resellerUser(t.app, t.db, 10_000);
      const { secret } = (await saveUrl(t, user, receiver.url)).json();
      await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields() });
      await vi.waitFor(async () => expect(receiver.received).toHaveLength(3), { ...WAIT, timeout: 20_000 });
      expect(new Set(receiver.received.map((r) => r.headers['x-portal-delivery'])).size).toBe(1);
      expect(receiver.received.every((r) => verifySignature(r.headers['x-portal-signature'], r.body, secret))).toBe(true);
      await vi.waitFor(
        async () => expect((await settingsOf(t, user)).deliveries[0]).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200, lastError: null }),
        WAIT,
      );
    } finally {
      await receiver.close();
    }
  });

  it('counts the tries on the delivery itself: one that already tried 7 times fails for good on its next failing run, whatever the engine counted', async () => {
    // Retries 2 s apart leave time to set the count between the first and the second run.
    const slow = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_BASE_MS: '2000',
      ...(engine === 'bullmq' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: `${prefix}-slow` } : {}),
    });
    const receiver = await startReceiver(Array.from({ length: 10 }, () => 500));
    try {
      const user = await resellerUser(slow.app, slow.db, 10_000);
      await saveUrl(slow, user, receiver.url);
      await callApi(slow.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields() });
      const delivery = () =>
        slow.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).where('user_id', '=', user.userId).executeTakeFirstOrThrow();
      await vi.waitFor(async () => expect(await delivery()).toEqual({ status: 'retrying', attempts: 1 }), WAIT);
      await slow.db.updateTable('webhook_deliveries').set({ attempts: 7 }).where('user_id', '=', user.userId).execute();
      await vi.waitFor(async () => expect(await delivery()).toEqual({ status: 'failed', attempts: 8 }), { ...WAIT, timeout: 20_000 });
      expect(receiver.received).toHaveLength(2);
    } finally {
      await receiver.close();
      await slow.close();
      if (engine === 'bullmq') await dropRedisPrefix(process.env.TEST_REDIS_URL!, `${prefix}-slow`);
    }
  }, 60_000);
});

describe('webhook addresses without WEBHOOK_ALLOW_PRIVATE', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_RETRY_BASE_MS: '60000' });
  });
  afterAll(() => t.close());

  it('refuses at save time a URL that is not https or points to a private address', async () => {
    const user = await resellerUser(t.app, t.db, 0);
    const refusals = {
      'http://example.com/hook': WEBHOOK_URL_INVALID,
      'ftp://example.com/hook': WEBHOOK_URL_INVALID,
      'https://user:pass@example.com/hook': WEBHOOK_URL_INVALID,
      'not a url': WEBHOOK_URL_INVALID,
      'http://127.0.0.1:8080/hook': WEBHOOK_URL_PRIVATE,
      'http://localhost:8080/hook': WEBHOOK_URL_PRIVATE,
      'https://10.1.2.3/hook': WEBHOOK_URL_PRIVATE,
      'https://192.168.1.10/hook': WEBHOOK_URL_PRIVATE,
      'https://169.254.169.254/latest/meta-data': WEBHOOK_URL_PRIVATE,
      'https://[::1]/hook': WEBHOOK_URL_PRIVATE,
      'https://[::ffff:7f00:1]/hook': WEBHOOK_URL_PRIVATE,
      'https://[fd00::1]/hook': WEBHOOK_URL_PRIVATE,
      'https://[::ffff:10.0.0.1]/hook': WEBHOOK_URL_PRIVATE,
      'https://[::127.0.0.1]/hook': WEBHOOK_URL_PRIVATE,
    };
    for (const [url, message] of Object.entries(refusals)) {
      const res = await saveUrl(t, user, url);
      expect({ url, status: res.statusCode, message: res.json().message }).toEqual({ url, status: 400, message });
    }
    expect((await settingsOf(t, user)).url).toBeNull();
  });

  it('saves a URL that points to a public address', async () => {
    const user = await resellerUser(t.app, t.db, 0);
    for (const url of ['https://1.1.1.1/hook', 'https://8.8.8.8/hook', 'https://140.82.112.3/hook', 'https://[2606:4700:4700::1111]/hook']) {
      const res = await saveUrl(t, user, url);
      expect({ url, status: res.statusCode, saved: res.json().url }).toEqual({ url, status: 200, saved: url });
    }
  });

  it('checks the address again at delivery time and sends nothing to a private one', async () => {
    const receiver = await startReceiver();
    try {
      const user = await resellerUser(t.app, t.db, 10_000);
      // As if the URL passed at save time and its name now resolves to this machine (DNS rebinding).
      const box = createSealedBox(fs.readFileSync(path.join(t.config.dataDir, 'secrets-key'), 'utf8').trim());
      const at = new Date().toISOString();
      await t.db
        .insertInto('webhook_endpoints')
        .values({
          user_id: user.userId,
          url: receiver.url,
          secret_sealed: box.seal('whsec_test', `webhook-secret:${user.userId}`),
          created_at: at,
          updated_at: at,
        })
        .execute();
      await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields() });
      await vi.waitFor(
        async () =>
          expect((await settingsOf(t, user)).deliveries[0]).toMatchObject({
            status: 'retrying',
            attempts: 1,
            lastStatusCode: null,
            lastError: WEBHOOK_URL_PRIVATE,
          }),
        WAIT,
      );
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

describe('order.cancelled', () => {
  it('is posted when the carrier refuses a label', async () => {
    const t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true', LABEL_SANDBOX_MODE: 'fail' });
    const receiver = await startReceiver();
    try {
      const user = await resellerUser(t.app, t.db, 10_000);
      await saveUrl(t, user, receiver.url);
      const refused = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields() });
      expect(refused.statusCode).toBe(502);
      expect(refused.json().type).toBe('error');
      await vi.waitFor(async () => expect(receiver.received).toHaveLength(1), WAIT);
      const event = JSON.parse(receiver.received[0].body);
      expect(event).toMatchObject({ type: 'order.cancelled', data: { order: { status: 'cancelled', note: expect.any(String) } } });
    } finally {
      await receiver.close();
      await t.close();
    }
  });
});
