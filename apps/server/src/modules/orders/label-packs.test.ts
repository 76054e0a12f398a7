import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WAIT } from '../../../test/basics.ts';
import { createOrderBody } from '@portal/contract';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { orderPayload } from '../../../test/order-fixtures.ts';
import { fundedCustomer } from '../../../test/customers.ts';
import { inlineRenderer } from '../../providers/labels/render-pool.ts';
import { createSandboxLabelProvider } from '../../providers/labels/sandbox.ts';
import type { LabelProvider } from '../../providers/labels/label-provider.ts';
import { createLocalFileStore, type FileStore } from '../../providers/storage/file-store.ts';
import { insertOrders, markAllCompleted } from './repository.ts';
import { orderRowFor } from './placing.ts';

let dir: string;
let local: FileStore;
// The first pack written waits for the test; meanwhile the labels of other orders are made and wait for the next one.
let releaseFirstPack!: () => void;
const firstPackHeld = new Promise<void>((resolve) => (releaseFirstPack = resolve));
const packsWritten: { key: string; offset: number; length: number }[] = [];
const packsHeldFirst = (): FileStore => ({
  ...local,
  async appendToPack(prefix, data) {
    const first = packsWritten.length === 0;
    if (first) packsWritten.push({ key: '', offset: 0, length: data.length });
    if (first) await firstPackHeld;
    const stored = await local.appendToPack(prefix, data);
    if (first) packsWritten[0] = { ...stored, length: data.length };
    else packsWritten.push({ ...stored, length: data.length });
    return stored;
  },
});
const sandbox = createSandboxLabelProvider({ mode: 'instant', delayMs: 0, renderer: inlineRenderer() });
let labelsMade = 0;
const labels: LabelProvider = { ...sandbox, createLabel: (request) => sandbox.createLabel(request).finally(() => void labelsMade++) };

let t: TestApp;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-packs-'));
  local = createLocalFileStore(dir);
  t = await startTestApp({}, { files: packsHeldFirst(), labels });
});
afterAll(async () => {
  try {
    await t?.close();
    await local?.close();
  } finally {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('stores the labels of single orders made while a pack is written together in the next pack; each order downloads its own', async () => {
  const user = await fundedCustomer(t.app, 10_000, t.db);
  const place = (i: number) =>
    t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority', { ToName: `Packed ${i}` }), headers: user.headers });
  const first = place(0);
  await expect.poll(() => packsWritten.length, { ...WAIT, interval: 5 }).toBeGreaterThan(0);
  const others = [1, 2, 3, 4].map(place);
  await expect.poll(() => labelsMade, { ...WAIT, interval: 5 }).toBeGreaterThanOrEqual(5);
  await new Promise((r) => setImmediate(r)); // the last label joins the waiting ones
  releaseFirstPack();
  const answers = await Promise.all([first, ...others]);
  expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);

  // Two appends to one file, the second after the first's bytes; each order's label lies within its own append.
  expect(packsWritten).toHaveLength(2);
  const [firstPack, secondPack] = packsWritten;
  expect([secondPack.key, secondPack.offset]).toEqual([firstPack.key, firstPack.length]);
  const orders = await t.db.selectFrom('orders').select(['id', 'to_name', 'pdf_key', 'status']).where('user_id', '=', user.userId).orderBy('to_name').execute();
  const within = (pdfKey: string, append: (typeof packsWritten)[number]) => {
    const [, key, offset, length] = /^(.+)#(\d+)\+(\d+)$/.exec(pdfKey)!;
    return key === append.key && Number(offset) >= append.offset && Number(offset) + Number(length) <= append.offset + append.length;
  };
  expect(orders.map((o) => [o.to_name, o.status, within(o.pdf_key!, o.to_name === 'Packed 0' ? firstPack : secondPack)])).toEqual(
    [0, 1, 2, 3, 4].map((i) => [`Packed ${i}`, 'completed', true]),
  );
  const pack = fs.readFileSync(path.join(dir, firstPack.key));
  for (const order of orders) {
    const label = await t.app.inject({ method: 'GET', url: `/api/v1/order/download/${order.id}`, headers: user.headers });
    expect(label.statusCode).toBe(200);
    expect(label.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const [, offset, length] = /#(\d+)\+(\d+)$/.exec(order.pdf_key!)!.map(Number);
    expect(label.rawPayload.equals(pack.subarray(offset, offset + length))).toBe(true);
  }
});

it('records in one statement only the orders still waiting: one cancelled meanwhile keeps its status and gets no label', async () => {
  const user = await fundedCustomer(t.app, 0, t.db);
  const type = await t.db.selectFrom('label_types').select(['id', 'uid', 'name']).where('uid', '=', 'priority').executeTakeFirstOrThrow();
  const [waiting, cancelled] = ['Waiting', 'Cancelled'].map((ToName) =>
    orderRowFor(user.userId, createOrderBody.parse({ ...orderPayload('priority', { ToName }), labelType: type.id }), type, 675, {
      provider: 'sandbox',
      createdAt: new Date().toISOString(),
    }),
  );
  await insertOrders(t.db, [waiting, { ...cancelled, status: 'cancelled' }]);
  const recorded = await markAllCompleted(
    t.db,
    [waiting, cancelled].map((o, i) => ({ id: o.id, tracking: `TRACK${i}`, pdfKey: `labels/packs/xx/p.bin#${i * 10}+10` })),
    new Date().toISOString(),
  );
  expect(recorded).toEqual(new Set([waiting.id]));
  const rows = await t.db
    .selectFrom('orders')
    .select(['id', 'status', 'tracking', 'pdf_key'])
    .where('user_id', '=', user.userId)
    .orderBy('to_name', 'desc')
    .execute();
  expect(rows).toEqual([
    { id: waiting.id, status: 'completed', tracking: 'TRACK0', pdf_key: 'labels/packs/xx/p.bin#0+10' },
    { id: cancelled.id, status: 'cancelled', tracking: null, pdf_key: null },
  ]);
});
