import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { WAIT } from '../../../test/basics.ts';
import { validate } from '@readme/openapi-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import createClient from 'openapi-fetch';
import { unzipSync } from 'fflate';
import { RESELLER_TAGS, WEBHOOK_EVENTS } from '@portal/contract';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { callApi, resellerUser } from '../../../test/reseller-fixtures.ts';
import type { paths } from '../../../test/reseller-api.generated.ts';
import { orderParties } from '../../../test/sample-addresses.ts';

/** The typed client's types, generated from the served document (UPDATE_RESELLER_CLIENT=1 writes them). */
const GENERATED = path.join(import.meta.dirname, '../../../test/reseller-api.generated.ts');

let t: TestApp;
let document: Record<string, any>;
beforeAll(async () => {
  // A shop's own address: Redocly's recommended rules warn about a server on example.com or localhost.
  t = await startTestApp({ PUBLIC_URL: 'https://labels.acme-shipping.test', WEBHOOK_ALLOW_PRIVATE: 'true' });
  const res = await callApi(t.app, undefined, 'GET', '/openapi.json');
  expect(res.statusCode).toBe(200);
  document = res.json();
});
afterAll(() => t.close());

it('serves a valid OpenAPI 3.1 document without a key', async () => {
  expect(document.openapi).toBe('3.1.0');
  const result = await validate(structuredClone(document) as never);
  expect(result.valid ? [] : result.errors).toEqual([]);
  expect(document.servers).toEqual([{ url: 'https://labels.acme-shipping.test/api/reseller/v1', description: 'This shop' }]);
});

it('documents every call completely: summary, description, parameters, bodies, examples, errors, security and the sections', () => {
  expect(document.tags.map((tag: { name: string }) => tag.name)).toEqual(Object.values(RESELLER_TAGS));
  expect(document.tags.every((tag: { description?: string }) => (tag.description ?? '').length > 40)).toBe(true);
  expect(document.components.securitySchemes).toEqual({ apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: expect.any(String) } });
  expect(document.security).toEqual([{ apiKey: [] }]);
  const operations = Object.entries<Record<string, any>>(document.paths).flatMap(([route, methods]) =>
    Object.entries<any>(methods).map(([method, op]) => ({ call: `${method.toUpperCase()} ${route}`, op })),
  );
  expect(operations.map((o) => o.call).sort()).toEqual(
    [
      'GET /labeltype/read-types',
      'POST /order/create-order',
      'GET /order/read-orders',
      'GET /order/download/{order_id}',
      'POST /order/create-bulk-order',
      'GET /order/bulk-job-status/{job_id}',
      'GET /order/bulk-queue-stats',
      'GET /order/download-bulk-order/{bulkorder_id}',
      'POST /order/refund-order/{order_id}',
      'POST /order/return-order/{order_id}',
      'POST /order/refund-orders',
      'POST /order/price',
      'POST /order/rates',
      'GET /account/balance',
      'GET /account/webhook',
      'PUT /account/webhook',
      'GET /packages',
      'POST /packages',
      'PUT /packages/{package_id}',
      'DELETE /packages/{package_id}',
      'POST /scan-form',
      'GET /scan-form/{scan_form_id}',
      'GET /scan-form/{scan_form_id}/pdf',
      'POST /pickup/rates',
      'POST /pickup',
      'POST /pickup/{pickup_id}/cancel',
    ].sort(),
  );
  for (const { call, op } of operations) {
    expect({
      call,
      summary: Boolean(op.summary),
      description: op.description?.length > 30,
      tagged: Object.values(RESELLER_TAGS).includes(op.tags?.[0]),
    }).toEqual({ call, summary: true, description: true, tagged: true });
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '429']));
    // Every JSON body has an example: the docs page's curl sends it.
    const body = op.requestBody?.content?.['application/json'];
    if (body) expect(body.example, `${call} request example`).toBeDefined();
    for (const [status, response] of Object.entries<any>(op.responses)) {
      expect(response.description, `${call} ${status}`).not.toBe('Default Response');
      const json = response.content?.['application/json'];
      if (json) expect(json.example, `${call} ${status} example`).toBeDefined();
    }
  }
  const create = document.paths['/order/create-order'].post;
  expect(Object.keys(create.requestBody.content)).toEqual(['application/x-www-form-urlencoded', 'application/json']);
  expect(create.requestBody.content['application/json'].example).toMatchObject({ labelType: 'priority' });
  expect(create.parameters).toEqual([expect.objectContaining({ in: 'header', name: 'idempotency-key', required: false })]);
  expect(Object.keys(create.responses).sort()).toEqual(['200', '400', '401', '402', '403', '409', '413', '422', '429', '502']);
  const savePackage = document.paths['/packages'].post;
  expect(savePackage.requestBody.content['application/json'].example).toEqual({
    name: 'Small box',
    weight: 2.5,
    weightUnit: 'lb',
    length: 10,
    width: 8,
    height: 4,
  });
  expect(document.components.schemas.ResellerSavePackageInput.required).toEqual(['name', 'weight']);
  expect(Object.keys(savePackage.responses).sort()).toEqual(['200', '400', '401', '403', '409', '429']);
  // labelType, quoteId or strategy: none of them is required alone.
  expect(document.components.schemas.ResellerCreateOrderInput.required).toEqual(expect.arrayContaining(['Weight', 'FromName', 'ToZip']));
  expect(document.components.schemas.ResellerCreateOrderInput.required).not.toContain('labelType');
  expect(document.paths['/order/read-orders'].get.parameters.map((p: { name: string; required: boolean }) => `${p.name}:${p.required}`).sort()).toEqual([
    'limit:false',
    'page:false',
    'search:false',
    'sort:false',
    'starting_after:false',
    'status:false',
  ]);
  const limit = document.paths['/order/read-orders'].get.parameters.find((p: { name: string }) => p.name === 'limit');
  expect(limit.schema).toMatchObject({ minimum: 1, maximum: 100 });
  expect(document.paths['/order/download/{order_id}'].get.responses['200'].content).toEqual({
    'application/pdf': { schema: { type: 'string', format: 'binary' } },
    'application/zpl': { schema: { type: 'string', format: 'binary' } },
  });
  for (const path of ['/order/download/{order_id}', '/order/download-bulk-order/{bulkorder_id}']) {
    const format = document.paths[path].get.parameters.find((p: { name: string }) => p.name === 'format');
    expect(format).toMatchObject({ in: 'query', required: false, schema: { enum: ['pdf', 'pdf-letter', 'zpl'] } });
    expect(format.description).toContain('Account Setting');
  }
  expect(Object.keys(document.webhooks).sort()).toEqual([
    'bulk.completed',
    'order.cancelled',
    'order.completed',
    'order.refund_rejected',
    'order.refunded',
    'order.tracking',
    'pickup.booked',
    'pickup.cancelled',
    'scan_form.created',
  ]);
  // The refund states are documented on the order.
  expect(document.components.schemas.ResellerOrder.properties.refundStatus.description).toContain('requested');
  expect(
    Object.values<any>(document.webhooks)
      .map((hook) => hook.post.operationId)
      .sort(),
  ).toEqual([
    'onBulkCompleted',
    'onOrderCancelled',
    'onOrderCompleted',
    'onOrderRefundRejected',
    'onOrderRefunded',
    'onOrderTracking',
    'onPickupBooked',
    'onPickupCancelled',
    'onScanFormCreated',
  ]);
  expect(document.info.license).toEqual({ name: expect.any(String), url: 'https://labels.acme-shipping.test/tos' });
  // Every operation has an operationId, and every answer declares the rate limit's headers; a 429 its Retry-After, a create's 200 Idempotent-Replayed.
  expect(new Set(operations.map((o) => o.op.operationId)).size).toBe(operations.length);
  for (const { call, op } of operations) {
    for (const [status, response] of Object.entries<any>(op.responses)) {
      const expected = [
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        ...(status === '429' ? ['Retry-After'] : []),
        ...(['POST /order/create-order', 'POST /order/create-bulk-order', 'POST /order/return-order/{order_id}'].includes(call) && status === '200'
          ? ['Idempotent-Replayed']
          : []),
      ];
      expect(Object.keys(response.headers ?? {}), `${call} ${status}`).toEqual(expected);
    }
  }
  expect(Object.keys(document.components.headers).sort()).toEqual([
    'Idempotent-Replayed',
    'RateLimit-Limit',
    'RateLimit-Remaining',
    'RateLimit-Reset',
    'Retry-After',
  ]);
  expect(document.paths['/openapi.json']).toBeUndefined();
});

it("passes Redocly's recommended rules with no warning and no error", async () => {
  const problems = await lintFromString({
    source: JSON.stringify(document),
    absoluteRef: 'openapi.json',
    config: await createConfig({ extends: ['recommended'] }),
  });
  expect(problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
});

it('matches the checked-in typed client, generated from it by openapi-typescript', async () => {
  const generated = `// Generated by openapi-typescript from GET /api/reseller/v1/openapi.json; openapi.test.ts checks it (UPDATE_RESELLER_CLIENT=1 rewrites it).\n${astToString(await openapiTS(structuredClone(document) as never))}`;
  if (process.env.UPDATE_RESELLER_CLIENT === '1') fs.writeFileSync(GENERATED, generated);
  expect(generated).toBe(fs.readFileSync(GENERATED, 'utf8'));
});

it('drives a whole flow through the generated client over real HTTP', async () => {
  const user = await resellerUser(t.app, t.db, 50_000);
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const client = createClient<paths>({ baseUrl: `${address}/api/reseller/v1`, headers: { 'x-api-key': user.apiKey } });

  const types = await client.GET('/labeltype/read-types');
  expect(types.response.status).toBe(200);
  expect(types.response.headers.get('ratelimit-limit')).toBe('120');
  expect(types.data!.labelTypes.some((type) => type.uid === 'uspsv9')).toBe(true);

  const parties = orderParties();
  const created = await client.POST('/order/create-order', {
    body: { labelType: 'uspsv9', Weight: 2, ...parties },
    params: { header: { 'idempotency-key': 'client-flow-1' } },
  });
  expect(created.error).toBeUndefined();
  const order = created.data!.order;
  expect(order.downloadUrl).toBe(`https://labels.acme-shipping.test/api/reseller/v1/order/download/${order.id}`);

  expect(created.response.headers.get('idempotent-replayed')).toBeNull();
  const replayed = await client.POST('/order/create-order', {
    body: { labelType: 'uspsv9', Weight: 2, ...parties },
    params: { header: { 'idempotency-key': 'client-flow-1' } },
  });
  expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
  expect(replayed.data!.order.id).toBe(order.id);

  const list = await client.GET('/order/read-orders', { params: { query: { page: 1, limit: 5, status: 'completed', search: '' } } });
  expect(list.data!.orders.map((o) => o.id)).toEqual([order.id]);
  expect(list.data!.hasMore).toBe(false);

  // The price of a type and weight, the balance it is charged to, and the webhook URL.
  const price = await client.POST('/order/price', { body: { labelType: 'uspsv9', weight: 2 } });
  expect(price.data).toEqual({ type: 'success', message: 'Price', price: order.price, labelType: { uid: 'uspsv9', name: order.labelType.name }, weight: 2 });
  // The documented example (the body the docs page's curl sends), sent as it is, is priced.
  const example = document.paths['/order/price'].post.requestBody.content['application/json'].example;
  expect(example).toEqual({ labelType: 'priority', weight: 2 });
  const documented = await client.POST('/order/price', { body: example });
  expect(documented.data).toMatchObject({ type: 'success', message: 'Price', price: expect.any(Number), labelType: { uid: 'priority' }, weight: 2 });
  const noPrice = await client.POST('/order/price', { body: { labelType: 'uspsv9', weight: 0 } });
  expect(noPrice.response.status).toBe(400);
  expect(noPrice.error!.errors).toEqual([{ field: 'weight', message: 'Weight must be greater than 0' }]);
  const balance = await client.GET('/account/balance');
  expect(balance.data).toEqual({ type: 'success', message: 'Balance', balance: 500 - order.price });
  expect((await client.GET('/account/webhook')).data).toMatchObject({ type: 'success', url: null, hasSecret: false });
  const hook = await client.PUT('/account/webhook', { body: { url: 'http://localhost:9/labels' } });
  expect(hook.data).toMatchObject({ type: 'success', url: 'http://localhost:9/labels', hasSecret: true, secret: expect.any(String) });
  expect((await client.GET('/account/webhook')).data).toEqual({
    type: 'success',
    message: expect.any(String),
    url: 'http://localhost:9/labels',
    hasSecret: true,
    events: [...WEBHOOK_EVENTS],
  });
  const badHook = await client.PUT('/account/webhook', { body: { url: 'ftp://hooks.example.com' } });
  expect(badHook.response.status).toBe(400);
  expect((await client.PUT('/account/webhook', { body: { url: null } })).data).toMatchObject({ url: null });

  // Saved packages: saved, listed, changed and deleted by the documented calls.
  const saved = await client.POST('/packages', { body: { name: 'Small box', weight: 2.5, weightUnit: 'lb', length: 10, width: 8, height: 4 } });
  expect(saved.data!.package).toEqual({ _id: expect.any(String), name: 'Small box', weight: 2.5, weightUnit: 'lb', length: 10, width: 8, height: 4 });
  const packageId = saved.data!.package._id;
  const taken = await client.POST('/packages', { body: { name: 'SMALL BOX', weight: 1, weightUnit: 'lb' } });
  expect(taken.response.status).toBe(409);
  const changed = await client.PUT('/packages/{package_id}', {
    params: { path: { package_id: packageId } },
    body: { name: 'Letter', weight: 3, weightUnit: 'oz' },
  });
  expect(changed.data!.package).toMatchObject({ name: 'Letter', weight: 3, weightUnit: 'oz', length: null });
  expect((await client.GET('/packages')).data!.packages.map((p) => p.name)).toEqual(['Letter']);
  expect((await client.DELETE('/packages/{package_id}', { params: { path: { package_id: packageId } } })).data!.message).toBe('Package deleted successfully');
  expect((await client.GET('/packages')).data!.packages).toEqual([]);

  const pdf = await client.GET('/order/download/{order_id}', { params: { path: { order_id: order.id } }, parseAs: 'arrayBuffer' });
  expect(
    Buffer.from(pdf.data as ArrayBuffer)
      .subarray(0, 5)
      .toString(),
  ).toBe('%PDF-');
  const zpl = await client.GET('/order/download/{order_id}', { params: { path: { order_id: order.id }, query: { format: 'zpl' } }, parseAs: 'text' });
  expect(zpl.response.headers.get('content-type')).toContain('application/zpl');
  expect(zpl.data).toMatch(/^\^XA[\s\S]*\^XZ\s*$/);

  // A return label of it: the addresses swapped, linked both ways; a second is a 409.
  const returned = await client.POST('/order/return-order/{order_id}', { params: { path: { order_id: order.id } } });
  expect(returned.data).toMatchObject({ type: 'success', order: { returnOf: order.id, returnId: null, status: 'completed' } });
  const again = await client.POST('/order/return-order/{order_id}', { params: { path: { order_id: order.id } } });
  expect(again.response.status).toBe(409);
  const linked = await client.GET('/order/read-orders', { params: { query: { page: 1, limit: 5, status: 'completed', search: '' } } });
  expect(linked.data!.orders.find((o) => o.id === order.id)).toMatchObject({ returnId: returned.data!.order.id });

  // Insured: the declared value and its price (1.5 % of it, at least $1.50, the defaults) on the answer, a part of the price.
  const insured = await client.POST('/order/create-order', { body: { labelType: 'uspsv9', Weight: 2, ...parties, Insurance: 120 } });
  expect(insured.data!.order).toMatchObject({ insurance: { value: 120, price: 1.8 }, price: Math.round(order.price * 100 + 180) / 100 });
  expect(order.insurance).toBeNull();

  // A refund (void) of the label: requested, and the label is no longer downloadable; the list form answers each order.
  const refunded = await client.POST('/order/refund-order/{order_id}', { params: { path: { order_id: order.id } } });
  expect(refunded.data).toEqual({
    type: 'success',
    message: 'Refund requested',
    refund: { orderId: order.id, ok: true, message: 'Refund requested', refundStatus: 'requested' },
  });
  const gone = await client.GET('/order/download/{order_id}', { params: { path: { order_id: order.id } } });
  expect(gone.response.status).toBe(409);
  const many = await client.POST('/order/refund-orders', { body: { order_ids: [order.id, 'no-such-order'] } });
  expect(many.data!.results).toEqual([
    { orderId: order.id, ok: false, message: 'A refund was already requested for this order', refundStatus: 'requested' },
    { orderId: 'no-such-order', ok: false, message: 'Order not found', refundStatus: null },
  ]);
  const listed = await client.GET('/order/read-orders', { params: { query: { page: 1, limit: 5, status: 'completed', search: '' } } });
  expect(listed.data!.orders.find((o) => o.id === order.id)).toMatchObject({ refundStatus: 'requested', downloadUrl: null });

  const bulk = await client.POST('/order/create-bulk-order', {
    body: { labelType: 'uspsv9', data: [1, 2, 3].map((i) => ({ ...parties, ToName: `Receiver ${i}`, Weight: 1 + i, Reference: `R-${i}` })) },
  });
  expect(bulk.data).toMatchObject({ type: 'success', totalOrders: 3 });
  const status = await vi.waitFor(
    async () => {
      const polled = await client.GET('/order/bulk-job-status/{job_id}', { params: { path: { job_id: bulk.data!.job_id } } });
      expect(polled.data!.state).toBe('completed');
      return polled.data!;
    },
    { ...WAIT, timeout: 30_000 },
  );
  expect(status).toMatchObject({ made: 3, failed: 0, progress: 100, stage: 'done' });

  const stats = await client.GET('/order/bulk-queue-stats');
  expect(stats.data!.total).toBeGreaterThanOrEqual(1);

  const zip = await client.GET('/order/download-bulk-order/{bulkorder_id}', {
    params: { path: { bulkorder_id: bulk.data!.bulkorder_id } },
    parseAs: 'arrayBuffer',
  });
  expect(Object.keys(unzipSync(new Uint8Array(zip.data as ArrayBuffer)))).toHaveLength(4);
  const zplZip = await client.GET('/order/download-bulk-order/{bulkorder_id}', {
    params: { path: { bulkorder_id: bulk.data!.bulkorder_id }, query: { format: 'zpl' } },
    parseAs: 'arrayBuffer',
  });
  expect(Object.keys(unzipSync(new Uint8Array(zplZip.data as ArrayBuffer))).filter((name) => name.endsWith('.zpl'))).toHaveLength(3);

  const refused = await createClient<paths>({ baseUrl: `${address}/api/reseller/v1`, headers: { 'x-api-key': 'lp_wrong' } }).GET('/order/bulk-queue-stats');
  expect(refused.response.status).toBe(401);
  expect(refused.error).toEqual({ type: 'error', message: 'Invalid API key' });
});
