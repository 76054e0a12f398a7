import { afterAll, expect, it } from 'vitest';
import { logContextMixin } from '../src/lib/log-context.ts';
import { createSandboxLabelProvider } from '../src/providers/labels/sandbox.ts';
import { inlineRenderer } from '../src/providers/labels/render-pool.ts';
import type { LabelProvider } from '../src/providers/labels/label-provider.ts';
import { signFileLink } from '../src/modules/fedex/service.ts';
import { createFromCsv, csvText, usRows, validateCsv, waitForCompletion } from './bulk-fixtures.ts';
import { dropRedisPrefix, startTestApp, type TestApp } from './harness.ts';
import { orderPayload } from './order-fixtures.ts';
import { fundedCustomer } from './customers.ts';

const apps: TestApp[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const t of apps) await t.close();
  for (const cleanup of cleanups) await cleanup();
});

const engines = [{ name: 'embedded queue', env: {} as Record<string, string> }];
if (process.env.TEST_REDIS_URL) {
  const prefix = `portal-logs-${process.pid}-${Date.now()}`;
  engines.push({ name: 'BullMQ', env: { REDIS_URL: process.env.TEST_REDIS_URL, QUEUE_PREFIX: prefix } });
  cleanups.push(() => dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix));
}

type Line = { msg: string; reqId?: string; jobId?: string; req?: { url: string } };

/** The app with its JSON log lines kept, as a production process writes them. */
async function appWithLog(labels?: LabelProvider, env: Record<string, string> = {}) {
  const lines: Line[] = [];
  const t = await startTestApp(env, {
    labels,
    logger: { level: 'info', mixin: logContextMixin, stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
  });
  apps.push(t);
  return { t, lines };
}

it("puts the request's id on the lines services write while serving it", async () => {
  const sandbox = createSandboxLabelProvider({ mode: 'instant', delayMs: 0, renderer: inlineRenderer() });
  // Paid for before it is asked (freeLabels: false): its failure is then the service's to log, under the request's id.
  const broken: LabelProvider = { ...sandbox, freeLabels: false, createLabel: () => Promise.reject(new Error('provider socket hang up')) };
  const { t, lines } = await appWithLog(broken);
  const user = await fundedCustomer(t.app, 10_000, t.db);
  await t.app.inject({ method: 'POST', url: '/api/v1/order/create', headers: user.headers, payload: orderPayload('priority') });
  const incoming = lines.find((l) => l.msg === 'incoming request' && l.req?.url === '/api/v1/order/create');
  const failed = lines.find((l) => l.msg === 'the label purchase ended in an error; the completion sweep asks the provider again');
  expect(incoming?.reqId).toBeTruthy();
  expect(failed?.reqId).toBe(incoming?.reqId);
});

it.each(engines)("puts the queue job's id on the lines written while it runs, on the $name", async ({ env }) => {
  const { t, lines } = await appWithLog(undefined, env);
  const user = await fundedCustomer(t.app, 100_000, t.db);
  const csv = csvText(usRows(4));
  const { totalPrice } = (await validateCsv(t.app, user.headers, 'uspsv9', csv)).json();
  const res = await createFromCsv(t.app, user.headers, { type: 'uspsv9', total_price: totalPrice }, csv);
  expect(res.statusCode, res.body).toBe(200);
  const { order } = await waitForCompletion(t.app, user.headers);
  await expect.poll(() => lines.find((l) => l.msg === 'bulk order completed')?.jobId).toBe(`bulk-${order._id}`);
});

it("keeps a request's path in the log and none of its query values: a FedEx label link's signature is its key", async () => {
  const secret = 'logs-test-secret-0123456789abcdef0123';
  const { t, lines } = await appWithLog(undefined, { JWT_SECRET: secret });
  const expires = Math.floor(Date.now() / 1000) + 3600;
  const signature = signFileLink(secret, 'order-id-1', expires);
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/fed/file/order-id-1?expires=${expires}&signature=${signature}` });
  expect(res.statusCode).toBe(404); // a good signature: the link reaches the lookup, and there is no such order
  const incoming = lines.find((l) => l.msg === 'incoming request' && l.req?.url.startsWith('/api/v1/fed/file/'));
  expect(incoming?.req?.url).toBe('/api/v1/fed/file/order-id-1?expires=[redacted]&signature=[redacted]');
  expect(JSON.stringify(lines)).not.toContain(signature);
});
