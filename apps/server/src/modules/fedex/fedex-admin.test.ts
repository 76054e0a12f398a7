import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_ONLY,
  FEDEX_LABEL_MAX_BYTES,
  FEDEX_LABEL_NOT_PDF,
  FEDEX_LABEL_REQUIRED,
  FEDEX_LABEL_TOO_LARGE,
  FEDEX_LINK_INVALID,
  FEDEX_ORDER_CANCELLED,
  FEDEX_ORDER_COMPLETED,
  FEDEX_ORDER_NOT_FOUND,
  FEDEX_ORDER_NOT_PENDING,
} from '@portal/contract';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { ledgerSumCents } from '../billing/service.ts';
import {
  balanceCents,
  customer,
  fedexPayload,
  labelPdf,
  multipartBody,
  operator,
  setFedexPrice,
  withPickup,
  type Customer,
} from '../../../test/fedex-fixtures.ts';
import { signFileLink } from './service.ts';

const JWT_SECRET = 'fedex-admin-test-secret-0123456789abcdef';
const PRICE_CENTS = 2500;

let t: TestApp;
let admin: Customer;
let buyer: Customer;
beforeAll(async () => {
  t = await startTestApp({ JWT_SECRET });
  admin = await operator(t.app, t.db);
  await setFedexPrice(t.app, admin, PRICE_CENTS / 100);
  buyer = await customer(t.app, t.db, 60 * PRICE_CENTS);
});
afterAll(() => t.close());

/** Places an order for the user and answers it as listed. */
async function placeOrder(user: Customer, payload = fedexPayload()) {
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/fed/create-order', payload, headers: user.headers });
  expect(res.statusCode).toBe(200);
  return (await listOf(user))[0];
}
const listOf = async (user: Customer, query = '') =>
  (await t.app.inject({ method: 'GET', url: `/api/v1/fed/read${query}`, headers: user.headers })).json().docs as any[];
const orderOf = async (user: Customer, id: string) => (await listOf(user, `?search=${id}`)).find((o) => o._id === id);
const queue = (headers: Record<string, string> = admin.headers, query = '') =>
  t.app.inject({ method: 'GET', url: `/api/v1/admin/fedex-orders${query}`, headers });
const complete = (id: string, fields: Record<string, string>, files: Parameters<typeof multipartBody>[1], headers: Record<string, string> = admin.headers) => {
  const body = multipartBody(fields, files);
  return t.app.inject({ method: 'POST', url: `/api/v1/admin/fedex-orders/${id}/complete`, payload: body.payload, headers: { ...headers, ...body.headers } });
};
const pdfFile = (data: Buffer) => [{ field: 'label', name: 'label.pdf', type: 'application/pdf', data }];
const cancel = (id: string, payload: object, headers: Record<string, string> = admin.headers) =>
  t.app.inject({ method: 'POST', url: `/api/v1/admin/fedex-orders/${id}/cancel`, payload, headers });
const auditOf = async (id: string) =>
  (await t.db.selectFrom('audit_log').selectAll().where('target_id', '=', id).orderBy('created_at').execute()).map((row) => ({
    ...row,
    before: row.before_json && JSON.parse(row.before_json),
    after: row.after_json && JSON.parse(row.after_json),
  }));
const fedexFiles = () => {
  const dir = path.join(t.config.dataDir, 'files', 'fedex');
  return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.pdf')) : [];
};

describe('the operator FedEx queue', () => {
  it('refuses visitors (401) and customers (403) on every call', async () => {
    const order = await placeOrder(buyer);
    const calls = [
      { method: 'GET', url: '/api/v1/admin/fedex-orders' },
      { method: 'GET', url: `/api/v1/admin/fedex-orders/${order._id}/invoice` },
      { method: 'POST', url: `/api/v1/admin/fedex-orders/${order._id}/cancel`, payload: { note: 'no' } },
      { method: 'POST', url: `/api/v1/admin/fedex-orders/${order._id}/complete`, ...multipartBody({}, pdfFile(await labelPdf())) },
    ] as const;
    for (const call of calls) {
      const headers = 'headers' in call ? call.headers : {};
      const visitor = await t.app.inject({ ...call, headers });
      expect(visitor.statusCode, call.url).toBe(401);
      const customerCall = await t.app.inject({ ...call, headers: { ...headers, ...buyer.headers } });
      expect(customerCall.statusCode, call.url).toBe(403);
      expect(customerCall.json()).toEqual({ message: ADMIN_ONLY });
    }
    expect((await orderOf(buyer, order._id)).status).toBe('pending');
  });

  it('lists pending orders oldest first with every detail and the owner, pages them, and counts them on the overview', async () => {
    const first = await placeOrder(buyer, withPickup('Europe/London'));
    const second = await placeOrder(buyer);
    const res = await queue(admin.headers, '?limit=100');
    expect(res.statusCode).toBe(200);
    const { orders, total } = res.json();
    const ids = orders.map((o: any) => o._id);
    expect(ids.indexOf(first._id)).toBeLessThan(ids.indexOf(second._id));
    expect(orders.every((o: any) => o.status === 'pending')).toBe(true);
    const listed = orders.find((o: any) => o._id === first._id);
    expect(listed).toEqual({
      ...first,
      invoice: `/api/v1/admin/fedex-orders/${first._id}/invoice`,
      owner: { _id: buyer.userId, tgId: buyer.tgId, username: 'Test User' },
      updatedAt: first.createdAt,
    });
    const page = (await queue(admin.headers, '?page=2&limit=1')).json();
    expect(page).toMatchObject({ total, totalPages: total });
    expect(page.orders.map((o: any) => o._id)).toEqual([ids[1]]);
    const overview = await t.app.inject({ method: 'GET', url: '/api/v1/admin/overview', headers: admin.headers });
    expect(overview.json().fedexWaiting).toBe(total);
    expect(total).toBe(
      await t.db
        .selectFrom('fedex_orders')
        .select('id')
        .where('status', '=', 'pending')
        .execute()
        .then((rows) => rows.length),
    );
  });

  it('lists the history apart (state=done): completed and cancelled orders newest first, a completed one with its label link; never in the queue', async () => {
    const done = await placeOrder(buyer);
    const dropped = await placeOrder(buyer);
    const waiting = await placeOrder(buyer);
    expect((await complete(done._id, { note: 'Tracking 7946' }, pdfFile(await labelPdf()))).statusCode).toBe(200);
    expect((await cancel(dropped._id, { note: 'No pickup there' })).statusCode).toBe(200);
    const history = (await queue(admin.headers, '?state=done&limit=100')).json();
    const ids = history.orders.map((o: any) => o._id);
    expect(ids).not.toContain(waiting._id);
    expect(ids.indexOf(dropped._id)).toBeGreaterThan(-1);
    // Newest first.
    const created = history.orders.map((o: any) => o.createdAt as string);
    expect(created).toEqual([...created].sort().reverse());
    expect(history.orders.every((o: any) => o.status === 'completed' || o.status === 'cancelled')).toBe(true);
    expect(history.orders.find((o: any) => o._id === done._id)).toMatchObject({ status: 'completed', note: 'Tracking 7946', owner: { _id: buyer.userId } });
    expect(history.orders.find((o: any) => o._id === done._id).file).toMatch(/^\/api\/v1\/fed\/file\/.+\?expires=\d+&signature=/);
    expect(history.orders.find((o: any) => o._id === dropped._id)).toMatchObject({ status: 'cancelled', note: 'No pickup there', file: null });
    const pending = (await queue(admin.headers, '?limit=100')).json().orders.map((o: any) => o._id);
    expect(pending).toContain(waiting._id);
    expect(pending).not.toContain(done._id);
    expect(pending).not.toContain(dropped._id);
    expect((await queue(admin.headers, '?state=everything')).statusCode).toBe(400);
  });

  it('gives the operator the commercial invoice of any order', async () => {
    const order = await placeOrder(buyer);
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/admin/fedex-orders/${order._id}/invoice`, headers: admin.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/admin/fedex-orders/nope/invoice', headers: admin.headers })).statusCode).toBe(404);
  });
});

describe('completing an order', () => {
  it('stores the label, shows Completed with the note and a download link that needs no sign-in, and writes an audit row', async () => {
    const order = await placeOrder(buyer);
    const label = await labelPdf();
    const res = await complete(order._id, { note: 'Tracking 7946 0958 1234' }, pdfFile(label));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: FEDEX_ORDER_COMPLETED });

    const done = await orderOf(buyer, order._id);
    expect(done).toMatchObject({ status: 'completed', note: 'Tracking 7946 0958 1234' });
    expect(done.file).toMatch(new RegExp(`^/api/v1/fed/file/${done._id}\\?expires=\\d+&signature=[\\w-]+$`));
    const expires = Number(new URL(done.file, 'http://x').searchParams.get('expires'));
    expect(expires * 1000 - Date.now()).toBeGreaterThanOrEqual(3600_000 - 5_000);

    const download = await t.app.inject({ method: 'GET', url: done.file });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/pdf');
    expect(download.headers['content-disposition']).toBe(`attachment; filename="fedex-${done._id.slice(0, 8).toUpperCase()}.pdf"`);
    expect(Buffer.compare(download.rawPayload, label)).toBe(0);

    expect(await auditOf(order._id)).toMatchObject([
      {
        admin_id: admin.userId,
        action: 'fedex_order.complete',
        target_type: 'fedex_order',
        before: { status: 'pending' },
        after: { status: 'completed', note: 'Tracking 7946 0958 1234' },
      },
    ]);
    const waiting = (await queue()).json();
    expect(waiting.orders.map((o: any) => o._id)).not.toContain(order._id);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/admin/overview', headers: admin.headers })).json().fedexWaiting).toBe(waiting.total);
  });

  it('takes the note as optional', async () => {
    const order = await placeOrder(buyer);
    expect((await complete(order._id, {}, pdfFile(await labelPdf()))).statusCode).toBe(200);
    expect(await orderOf(buyer, order._id)).toMatchObject({ status: 'completed', note: null });
  });

  it.each<[string, () => Promise<Parameters<typeof multipartBody>[1]>, string]>([
    ['a text file renamed .pdf', async () => pdfFile(Buffer.from('this is not a pdf at all')), FEDEX_LABEL_NOT_PDF],
    ['a file with the PDF magic bytes but no document', async () => pdfFile(Buffer.from('%PDF-1.7\n%garbage that no reader can parse\n')), FEDEX_LABEL_NOT_PDF],
    ['a PNG renamed .pdf', async () => pdfFile(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')), FEDEX_LABEL_NOT_PDF],
    ['a file over 10 MB', async () => pdfFile(Buffer.concat([await labelPdf(), Buffer.alloc(FEDEX_LABEL_MAX_BYTES)])), FEDEX_LABEL_TOO_LARGE],
    ['no file', async () => [], FEDEX_LABEL_REQUIRED],
    [
      'the file under another field name',
      async () => [{ field: 'pdf', name: 'label.pdf', type: 'application/pdf', data: await labelPdf() }],
      FEDEX_LABEL_REQUIRED,
    ],
  ])('refuses %s with 400, keeps no file and leaves the order pending', async (_, files, message) => {
    const order = await placeOrder(buyer);
    const before = fedexFiles().length;
    const res = await complete(order._id, { note: 'x' }, await files());
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ message });
    expect(fedexFiles().length).toBe(before);
    expect(await orderOf(buyer, order._id)).toMatchObject({ status: 'pending', file: null, note: null });
    expect(await auditOf(order._id)).toEqual([]);
  });

  it('refuses a note over 500 characters', async () => {
    const order = await placeOrder(buyer);
    const res = await complete(order._id, { note: 'n'.repeat(501) }, pdfFile(await labelPdf()));
    expect(res.json()).toEqual({ message: 'Note must be at most 500 characters' });
  });

  it('answers 404 for an unknown order', async () => {
    const res = await complete('00000000-0000-4000-8000-000000000000', {}, pdfFile(await labelPdf()));
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ message: FEDEX_ORDER_NOT_FOUND });
  });

  it('lets only one of two operators acting at once complete it; the other gets 409 and its file is not kept', async () => {
    const order = await placeOrder(buyer);
    const filesBefore = fedexFiles().length;
    const label = await labelPdf();
    const results = await Promise.all([complete(order._id, { note: 'one' }, pdfFile(label)), complete(order._id, { note: 'two' }, pdfFile(label))]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.statusCode === 409)!.json()).toEqual({ message: FEDEX_ORDER_NOT_PENDING });
    expect(fedexFiles().length).toBe(filesBefore + 1);
    expect(await auditOf(order._id)).toHaveLength(1);
    const done = await orderOf(buyer, order._id);
    expect((await t.app.inject({ method: 'GET', url: done.file })).statusCode).toBe(200);
  });
});

describe('cancelling an order', () => {
  it('refunds the price with one fedex_refund ledger row, shows the note, and writes an audit row', async () => {
    const user = await customer(t.app, t.db, PRICE_CENTS);
    const order = await placeOrder(user);
    expect(await balanceCents(t.db, user.userId)).toBe(0);
    const res = await cancel(order._id, { note: 'The receiver address is a P.O. box' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: FEDEX_ORDER_CANCELLED });
    expect(await orderOf(user, order._id)).toMatchObject({ status: 'cancelled', note: 'The receiver address is a P.O. box', file: null });
    expect(await balanceCents(t.db, user.userId)).toBe(PRICE_CENTS);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(PRICE_CENTS);
    const ledger = await t.db.selectFrom('ledger').selectAll().where('reference', '=', order._id).orderBy('created_at').execute();
    expect(ledger).toMatchObject([
      { kind: 'fedex_charge', amount_cents: -PRICE_CENTS },
      { kind: 'fedex_refund', amount_cents: PRICE_CENTS, balance_after_cents: PRICE_CENTS },
    ]);
    expect(await auditOf(order._id)).toMatchObject([
      {
        admin_id: admin.userId,
        action: 'fedex_order.cancel',
        target_type: 'fedex_order',
        before: { status: 'pending' },
        after: { status: 'cancelled', note: 'The receiver address is a P.O. box', refunded: PRICE_CENTS / 100 },
      },
    ]);
  });

  it('needs a note', async () => {
    const order = await placeOrder(buyer);
    for (const payload of [{}, { note: '   ' }]) {
      const res = await cancel(order._id, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ message: 'Note is required' });
    }
    expect(await orderOf(buyer, order._id)).toMatchObject({ status: 'pending' });
  });

  it('refunds once when two operators cancel at once', async () => {
    const user = await customer(t.app, t.db, PRICE_CENTS);
    const order = await placeOrder(user);
    const results = await Promise.all([cancel(order._id, { note: 'one' }), cancel(order._id, { note: 'two' })]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(await balanceCents(t.db, user.userId)).toBe(PRICE_CENTS);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(PRICE_CENTS);
    expect(await t.db.selectFrom('ledger').select('id').where('reference', '=', order._id).where('kind', '=', 'fedex_refund').execute()).toHaveLength(1);
    expect(await auditOf(order._id)).toHaveLength(1);
  });

  it('answers 409 for an order that is no longer pending, whichever way it went', async () => {
    const completed = await placeOrder(buyer);
    expect((await complete(completed._id, {}, pdfFile(await labelPdf()))).statusCode).toBe(200);
    const cancelled = await placeOrder(buyer);
    expect((await cancel(cancelled._id, { note: 'no' })).statusCode).toBe(200);
    for (const res of [
      await cancel(completed._id, { note: 'too late' }),
      await complete(completed._id, {}, pdfFile(await labelPdf())),
      await cancel(cancelled._id, { note: 'again' }),
      await complete(cancelled._id, {}, pdfFile(await labelPdf())),
    ]) {
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ message: FEDEX_ORDER_NOT_PENDING });
    }
    expect(await ledgerSumCents(t.db, buyer.userId)).toBe(await balanceCents(t.db, buyer.userId));
  });
});

describe('the signed download link', () => {
  let order: any;
  let stranger: Customer;
  beforeAll(async () => {
    stranger = await customer(t.app, t.db, 0);
    const placed = await placeOrder(buyer);
    expect((await complete(placed._id, {}, pdfFile(await labelPdf()))).statusCode).toBe(200);
    order = await orderOf(buyer, placed._id);
  });
  const get = (url: string) => t.app.inject({ method: 'GET', url });
  const forbidden = async (url: string) => {
    const res = await get(url);
    expect(res.statusCode, url).toBe(403);
    expect(res.json()).toEqual({ message: FEDEX_LINK_INVALID });
  };

  it('is refused when missing, tampered, expired or made for another order', async () => {
    const base = `/api/v1/fed/file/${order._id}`;
    const { searchParams } = new URL(order.file, 'http://x');
    const expires = Number(searchParams.get('expires'));
    const signature = searchParams.get('signature')!;
    expect((await get(order.file)).statusCode).toBe(200);
    await forbidden(base);
    await forbidden(`${base}?expires=${expires}`);
    await forbidden(`${base}?signature=${signature}`);
    await forbidden(`${base}?expires=${expires}&signature=${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`);
    await forbidden(`${base}?expires=${expires + 3600}&signature=${signature}`);
    await forbidden(`${base}?expires=${expires}&signature=`);
    await forbidden(`${base}?expires=soon&signature=${signature}`);
    // Signed with the server's own secret, but expired a second ago.
    const past = Math.floor(Date.now() / 1000) - 1;
    await forbidden(`${base}?expires=${past}&signature=${signFileLink(JWT_SECRET, order._id, past)}`);
    // Signed with another secret.
    const later = past + 7200;
    await forbidden(`${base}?expires=${later}&signature=${signFileLink('another-secret-0123456789abcdef0123', order._id, later)}`);
    // This order's signature on another completed order.
    const other = await placeOrder(buyer);
    expect((await complete(other._id, {}, pdfFile(await labelPdf()))).statusCode).toBe(200);
    await forbidden(`/api/v1/fed/file/${other._id}?expires=${expires}&signature=${signature}`);
    // The server's secret and a future expiry make a good link.
    expect((await get(`${base}?expires=${later}&signature=${signFileLink(JWT_SECRET, order._id, later)}`)).statusCode).toBe(200);
  });

  it('is renewed on each list load, and another user can neither list, view nor download the order', async () => {
    const again = await orderOf(buyer, order._id);
    expect(again.file).toMatch(/expires=\d+&signature=/);
    expect((await get(again.file)).statusCode).toBe(200);
    expect(await listOf(stranger, `?search=${order._id}`)).toEqual([]);
    expect((await t.app.inject({ method: 'GET', url: order.invoice, headers: stranger.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/fed/file/${order._id}`, headers: stranger.headers })).statusCode).toBe(403);
  });

  it('gives no link for pending or cancelled orders', async () => {
    const pending = await placeOrder(buyer);
    const cancelled = await placeOrder(buyer);
    expect((await cancel(cancelled._id, { note: 'no' })).statusCode).toBe(200);
    expect((await orderOf(buyer, pending._id)).file).toBeNull();
    expect((await orderOf(buyer, cancelled._id)).file).toBeNull();
    const expires = Math.floor(Date.now() / 1000) + 3600;
    expect((await get(`/api/v1/fed/file/${cancelled._id}?expires=${expires}&signature=${signFileLink(JWT_SECRET, cancelled._id, expires)}`)).statusCode).toBe(
      404,
    );
  });
});
