import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFileStore } from '../src/providers/storage/from-config.ts';
import { readLabel } from '../src/modules/orders/label-files.ts';
import { createFromCsv, csvText, readBulkOrders, usRows, validateCsv } from './bulk-fixtures.ts';
import { signUp, startTestApp } from './harness.ts';
import { startLocalS3, type LocalS3 } from './local-s3.ts';
import { orderPayload } from './order-fixtures.ts';
import { fundedCustomer } from './customers.ts';

let s3: LocalS3;
beforeAll(async () => {
  s3 = await startLocalS3();
});
afterAll(() => s3?.close());

it('with S3_BUCKET set, the shop keeps labels in the bucket: an order made is downloaded from there', async () => {
  const t = await startTestApp(s3.env);
  try {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const made = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', headers: user.headers, payload: orderPayload('priority') });
    expect(made.statusCode, made.body).toBe(200);
    const order = await t.db.selectFrom('orders').select(['id', 'pdf_key']).where('user_id', '=', user.userId).executeTakeFirstOrThrow();
    const label = await t.app.inject({ method: 'GET', url: `/api/v1/order/download/${order.id}`, headers: user.headers });
    expect([label.statusCode, label.rawPayload.subarray(0, 5).toString()]).toEqual([200, '%PDF-']);
    expect((await readLabel(await createFileStore(t.config), order.pdf_key!))?.equals(label.rawPayload)).toBe(true);
    expect(fs.existsSync(path.join(t.config.dataDir, 'files'))).toBe(false);
  } finally {
    await t.close();
  }
});

it('with S3_SIGNED_DOWNLOADS, a bulk file download is checked against its owner, then sent to a short-lived signed link of the bucket', async () => {
  const t = await startTestApp({ ...s3.env, S3_SIGNED_DOWNLOADS: 'true' });
  try {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const csv = csvText(usRows(2));
    const { totalPrice } = (await validateCsv(t.app, user.headers, 'uspsv9', csv)).json();
    expect((await createFromCsv(t.app, user.headers, { type: 'uspsv9', total_price: totalPrice }, csv)).statusCode).toBe(200);
    const [bulk] = await readBulkOrders(t.app, user.headers);
    expect(bulk.status).toBe('completed');

    const stranger = await signUp(t.app);
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/order/bulk-download/${bulk._id}`, headers: stranger.headers })).statusCode).toBe(404);
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/order/bulk-download/${bulk._id}`, headers: user.headers });
    expect(res.statusCode).toBe(302);
    const link = new URL(res.headers.location as string);
    expect(link.origin).toBe(s3.env.S3_ENDPOINT);
    expect(link.searchParams.get('X-Amz-Expires')).toBe('300');
    const zip = await fetch(link);
    expect([
      zip.status,
      Buffer.from(await zip.arrayBuffer())
        .subarray(0, 2)
        .toString(),
    ]).toEqual([200, 'PK']);
  } finally {
    await t.close();
  }
});
