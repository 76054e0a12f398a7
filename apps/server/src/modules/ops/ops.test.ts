import { afterAll, describe, expect, it } from 'vitest';
import { dropRedisPrefix, startTestApp, type TestApp } from '../../../test/harness.ts';
import { createLocalFileStore, type FileStore } from '../../providers/storage/file-store.ts';
import { LabelProviderError, type LabelProvider } from '../../providers/labels/label-provider.ts';
import { inlineRenderer } from '../../providers/labels/render-pool.ts';
import { createSandboxLabelProvider } from '../../providers/labels/sandbox.ts';
import { orderPayload } from '../../../test/order-fixtures.ts';
import { fundedCustomer } from '../../../test/customers.ts';
import { createFromCsv, csvText, usRows, validateCsv, waitForCompletion } from '../../../test/bulk-fixtures.ts';
import { uniqueId } from '../../../test/basics.ts';

const apps: TestApp[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const t of apps) await t.close();
  for (const cleanup of cleanups) await cleanup();
});

/** Each app its own Redis prefix with BullMQ: apps on one prefix would take each other's jobs. */
const engines = [{ name: 'embedded queue', env: () => ({}) as Record<string, string> }];
if (process.env.TEST_REDIS_URL) {
  engines.push({
    name: 'BullMQ',
    env: () => {
      const prefix = uniqueId('portal-ops');
      cleanups.push(() => dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix));
      return { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix };
    },
  });
}

describe.each(engines)('/healthz and /readyz on the $name', ({ env }) => {
  it('answers ready when the database, the queue and the files answer', async () => {
    const t = await startTestApp(env());
    apps.push(t);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect([res.statusCode, res.json()]).toEqual([200, { status: 'ready', checks: { database: 'ok', queue: 'ok', files: 'ok' } }]);
  });

  it('answers 503 naming the part that fails, while /healthz stays ok', async () => {
    let broken = false;
    const wrap = (store: FileStore): FileStore => ({ ...store, get: (key) => (broken ? Promise.reject(new Error('disk is gone')) : store.get(key)) });
    const t = await startTestApp(env());
    apps.push(t);
    const shaky = await startTestApp(env(), { files: wrap(createLocalFileStore(`${t.config.dataDir}/files`)) });
    apps.push(shaky);
    broken = true;
    const res = await shaky.app.inject({ method: 'GET', url: '/readyz' });
    expect([res.statusCode, res.json()]).toEqual([
      503,
      { status: 'unavailable', message: 'files failing: disk is gone', checks: { database: 'ok', queue: 'ok', files: 'failing: disk is gone' } },
    ]);
    expect((await shaky.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe.each(engines)('/metrics on the $name', ({ env }) => {
  const TOKEN = 'metrics-token-0123456789';

  it('is off without METRICS_TOKEN', async () => {
    const t = await startTestApp(env());
    apps.push(t);
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
  });

  it('needs the token, then counts requests, labels made and failed, bulk jobs, deposits, queue jobs and balances', async () => {
    const sandbox = createSandboxLabelProvider({ mode: 'instant', delayMs: 0, renderer: inlineRenderer() });
    const refusing: LabelProvider = {
      ...sandbox,
      createLabel: (request) =>
        request.to.name === 'Refuse Me' ? Promise.reject(new LabelProviderError('address not deliverable')) : sandbox.createLabel(request),
    };
    const t = await startTestApp({ ...env(), METRICS_TOKEN: TOKEN }, { labels: refusing });
    apps.push(t);
    const scrape = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      expect([res.statusCode, res.headers['content-type']]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8']);
      return res.body;
    };
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong-token-0123456789' } })).statusCode).toBe(401);

    const user = await fundedCustomer(t.app, 100_000, t.db);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/order/create', headers: user.headers, payload: orderPayload('priority') })).statusCode).toBe(
      200,
    );
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v1/order/create', headers: user.headers, payload: orderPayload('priority', { ToName: 'Refuse Me' }) }))
        .statusCode,
    ).toBe(502);
    const csv = csvText(usRows(4));
    const { totalPrice } = (await validateCsv(t.app, user.headers, 'uspsv9', csv)).json();
    expect((await createFromCsv(t.app, user.headers, { type: 'uspsv9', total_price: totalPrice }, csv)).statusCode).toBe(200);
    await waitForCompletion(t.app, user.headers);
    const invoice = (
      await t.app.inject({ method: 'POST', url: '/api/v1/invoices/create-invoice', headers: user.headers, payload: { amount: 250, type: 'crypto' } })
    ).json().data;
    const sandboxId = new URL(invoice.hosted_url).pathname.split('/').pop();
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `/pay/${sandboxId}/simulate`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'action=pay',
        })
      ).statusCode,
    ).toBe(303);

    const balance = (await t.db.selectFrom('users').select('balance_cents').where('id', '=', user.userId).executeTakeFirstOrThrow()).balance_cents;
    await expect.poll(scrape).toContain('bulk_job_duration_seconds_count 1');
    const text = await scrape();
    expect(text).toContain('labels_total{type="priority",outcome="made"} 1');
    expect(text).toContain('labels_total{type="priority",outcome="failed"} 1');
    expect(text).toContain('labels_total{type="uspsv9",outcome="made"} 4');
    expect(text).toContain('deposits_credited_total 1');
    expect(text).toContain('deposits_credited_cents_total 25500');
    expect(text).toContain(`customer_balances_cents ${balance}`);
    expect(text).toMatch(/queue_jobs\{state="completed"\} [1-9]/);
    expect(text).toMatch(/http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/order\/create",status_code="200"\} 1/);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  }, 60_000);
});
