import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WAIT, uniqueId } from '../../../test/basics.ts';
import { unzipSync } from 'fflate';
import { BULK_MAX_ROWS, LABEL_CREATED, ORDER_NOT_FOUND } from '@portal/contract';
import { startTestApp, type TestApp, dropRedisPrefix } from '../../../test/harness.ts';
import { ledgerSumCents } from '../billing/service.ts';
import { bulkRow, callApi, labelFields, resellerUser, urlencoded } from '../../../test/reseller-fixtures.ts';

const engines = ['embedded', ...(process.env.TEST_REDIS_URL ? ['bullmq'] : [])] as const;
const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe.each(engines)('the reseller API on the %s queue', (engine) => {
  let t: TestApp;
  const prefix = uniqueId('test-reseller');
  beforeAll(async () => {
    t = await startTestApp(engine === 'bullmq' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix } : {});
  });
  afterAll(async () => {
    await t.close();
    if (engine === 'bullmq') await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  });

  const ledgerOf = (userId: string) =>
    t.db.selectFrom('ledger').select(['kind', 'amount_cents', 'reference']).where('user_id', '=', userId).where('kind', '!=', 'adjustment').execute();
  const ordersOf = (userId: string) => t.db.selectFrom('orders').select(['id', 'status', 'price_cents']).where('user_id', '=', userId).execute();

  it('answers 401 without a key or with a wrong one, and serves the key owner', async () => {
    const user = await resellerUser(t.app, t.db, 0);
    const missing = await callApi(t.app, undefined, 'GET', '/labeltype/read-types');
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({ type: 'error', message: 'Send your API key in the x-api-key header' });
    const wrong = await callApi(t.app, `${user.apiKey}x`, 'GET', '/order/read-orders');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ type: 'error', message: 'Invalid API key' });
    const good = await callApi(t.app, user.apiKey, 'GET', '/labeltype/read-types');
    expect(good.statusCode).toBe(200);
    const types = good.json().labelTypes;
    expect(types.map((type: { uid: string }) => type.uid)).toContain('priority');
    expect(types[0]).toEqual({
      _id: expect.any(String),
      name: expect.any(String),
      uid: expect.any(String),
      maxWeight: expect.any(Number),
      weightUnit: expect.any(String),
      prices: expect.any(Array),
    });
    expect(types[0].prices[0]).toEqual({ price: expect.any(Number), fromWeight: expect.any(Number), toWeight: expect.any(Number) });
  });

  it('stores the key only hashed and sealed, and a regenerated key revokes the old one at once', async () => {
    const user = await resellerUser(t.app, t.db, 0);
    const row = await t.db.selectFrom('users').select(['api_key_sealed', 'api_key_hash']).where('id', '=', user.userId).executeTakeFirstOrThrow();
    expect(row.api_key_sealed).not.toContain(user.apiKey);
    expect(row.api_key_hash).toMatch(/^[0-9a-f]{64}$/);
    const regenerated = await t.app.inject({ method: 'POST', url: '/api/v1/account/api-key', headers: user.headers });
    const newKey = regenerated.json().api_key;
    expect((await callApi(t.app, user.apiKey, 'GET', '/labeltype/read-types')).statusCode).toBe(401);
    expect((await callApi(t.app, newKey, 'GET', '/labeltype/read-types')).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: user.headers })).json().api_key).toBe(newKey);
  });

  it('creates a label from a urlencoded form and from JSON by the web order rules, charged once each', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    const price = (
      await t.app.inject({ method: 'POST', url: '/api/v1/order/price', headers: user.headers, payload: { labelType: 'priority', weight: 2 } })
    ).json().price;
    const viaForm = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', {
      headers: form,
      payload: urlencoded(labelFields({ Date: '2026-11-23' })),
    });
    expect(viaForm.statusCode).toBe(200);
    const answer = viaForm.json();
    expect(answer).toMatchObject({
      type: 'success',
      message: LABEL_CREATED,
      order: { status: 'completed', price, labelType: { uid: 'priority' }, tracking: expect.any(String) },
    });
    expect(answer.order.downloadUrl).toBe(`http://localhost:80/api/reseller/v1/order/download/${answer.order.id}`);
    const viaJson = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', {
      payload: labelFields({ labelType: 'uspsv9', design: '', Weight: '3' }),
    });
    expect(viaJson.statusCode).toBe(200);
    expect(viaJson.json().order.labelType.uid).toBe('uspsv9');
    expect(viaJson.json().order.printedAs).toEqual({});
    // Any script is taken; the answer says what the label prints.
    const unicode = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', {
      payload: labelFields({ ToName: 'Nguyễn Văn Đức 🎉', ToCompany: 'Zoë’s' }),
    });
    expect(unicode.statusCode).toBe(200);
    expect(unicode.json().order).toMatchObject({ toName: 'Nguyễn Văn Đức 🎉', printedAs: { ToName: 'Nguyen Van Duc' } });

    const pdf = await callApi(t.app, user.apiKey, 'GET', `/order/download/${answer.order.id}`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe(`attachment; filename="${answer.order.tracking}.pdf"`);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

    const ledger = await ledgerOf(user.userId);
    expect(ledger.map((l) => l.kind)).toEqual(['order_charge', 'order_charge', 'order_charge']);
    expect(ledger[0]).toEqual({ kind: 'order_charge', amount_cents: -Math.round(price * 100), reference: answer.order.id });
    expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000 + ledger.reduce((sum, l) => sum + Number(l.amount_cents), 0));
  });

  it('answers 400 naming every bad field', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    const res = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', {
      headers: form,
      payload: urlencoded(labelFields({ FromName: '', Weight: 'heavy', Date: 'soon' })),
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.type).toBe('error');
    expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['Date', 'FromName', 'Weight']);
    const rule = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields({ ToZip: 'ABCDE' }) });
    expect(rule.statusCode).toBe(400);
    expect(rule.json()).toEqual({
      type: 'error',
      message: 'To ZIP must be a US ZIP code like 12345 or 12345-6789',
      errors: [{ field: 'ToZip', message: 'To ZIP must be a US ZIP code like 12345 or 12345-6789' }],
    });
    // Every broken rule of the type, not the first.
    const rules = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', {
      payload: labelFields({ labelType: 'fedex_ground', design: '', ToZip: 'ABCDE', FromState: 'Tejas', ToPhone: 'call me' }),
    });
    expect(rules.json().errors).toEqual([
      { field: 'FromState', message: 'From State must be a US state, DC or PR' },
      { field: 'ToZip', message: 'To ZIP must be a US ZIP code like 12345 or 12345-6789' },
      { field: 'ToPhone', message: 'To Phone must be a valid phone number' },
    ]);
    expect(await ordersOf(user.userId)).toEqual([]);
  });

  it('lists the schema problems and the label type rules of one request together', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    const res = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', {
      headers: form,
      payload: urlencoded(labelFields({ FromName: '', ToZip: 'ABCDE', Weight: 'heavy', Date: 'soon' })),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'Weight', message: 'Weight must be a number' },
      { field: 'FromName', message: 'From Name is required' },
      { field: 'ToZip', message: 'To ZIP must be a US ZIP code like 12345 or 12345-6789' },
      { field: 'Date', message: 'Date must be a date like 2026-11-23' },
    ]);
    expect(res.json().message).toMatch(/^4 fields are not valid: /);
    expect(await ordersOf(user.userId)).toEqual([]);
  });

  it('pages by cursor: an order created between two pages neither repeats nor hides one', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    const create = async (name: string) =>
      (await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields({ ToName: name }) })).json().order.id as string;
    for (const name of ['Ann', 'Ben', 'Cat']) await create(name);
    const names = (page: { orders: { toName: string }[] }) => page.orders.map((o) => o.toName);
    const first = (await callApi(t.app, user.apiKey, 'GET', '/order/read-orders?limit=2')).json();
    expect(names(first)).toEqual(['Cat', 'Ben']);
    expect(first.hasMore).toBe(true);
    await create('Dan'); // newest: by page number, Ben would come again on page 2
    const next = (await callApi(t.app, user.apiKey, 'GET', `/order/read-orders?limit=2&starting_after=${first.orders[1].id}`)).json();
    expect(names(next)).toMatchObject(['Ann']);
    expect(next).toMatchObject({ total: 4, hasMore: false });
    const oldestFirst = (await callApi(t.app, user.apiKey, 'GET', `/order/read-orders?sort=asc&limit=2&starting_after=${first.orders[1].id}`)).json();
    expect(names(oldestFirst)).toEqual(['Cat', 'Dan']);
    const searched = (await callApi(t.app, user.apiKey, 'GET', `/order/read-orders?search=dan&starting_after=${next.orders[0].id}&sort=asc`)).json();
    expect(names(searched)).toEqual(['Dan']);
    const other = await resellerUser(t.app, t.db, 0);
    const foreign = await callApi(t.app, other.apiKey, 'GET', `/order/read-orders?starting_after=${first.orders[0].id}`);
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toEqual({ type: 'error', message: 'starting_after names no order of yours' });
  });

  it('takes a phone as people write it and keeps it as E.164, by the web order rules', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    const res = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', {
      headers: form,
      payload: urlencoded(labelFields({ labelType: 'fedex_ground', design: '', FromPhone: '(214) 555-0100', ToPhone: '+1 214 555 0100' })),
    });
    expect(res.statusCode).toBe(200);
    const row = await t.db.selectFrom('orders').select(['from_phone', 'to_phone']).where('user_id', '=', user.userId).executeTakeFirstOrThrow();
    expect(row).toEqual({ from_phone: '+12145550100', to_phone: '+12145550100' });
  });

  it('answers 402 and writes nothing when the balance is short', async () => {
    const user = await resellerUser(t.app, t.db, 100);
    const res = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields() });
    expect(res.statusCode).toBe(402);
    expect(res.json()).toEqual({ type: 'error', message: 'Insufficient balance' });
    expect(await ordersOf(user.userId)).toEqual([]);
    expect(await ledgerOf(user.userId)).toEqual([]);
    const bulk = await callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', { payload: { labelType: 'uspsv9', data: [bulkRow(1), bulkRow(2)] } });
    expect(bulk.statusCode).toBe(402);
    expect(await t.db.selectFrom('bulk_orders').select('id').where('user_id', '=', user.userId).execute()).toEqual([]);
    expect(await ordersOf(user.userId)).toEqual([]);
  });

  it('lists orders a page at a time, filtered and searched', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    for (const name of ['Alice Adams', 'Bob Brown', 'Carol Clark']) {
      expect((await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields({ ToName: name }) })).statusCode).toBe(200);
    }
    const first = (await callApi(t.app, user.apiKey, 'GET', '/order/read-orders?page=1&limit=2')).json();
    expect(first).toMatchObject({ type: 'success', page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(first.orders.map((o: { toName: string }) => o.toName)).toEqual(['Carol Clark', 'Bob Brown']);
    const second = (await callApi(t.app, user.apiKey, 'GET', '/order/read-orders?page=2&limit=2')).json();
    expect(second.orders.map((o: { toName: string }) => o.toName)).toEqual(['Alice Adams']);
    const search = (await callApi(t.app, user.apiKey, 'GET', '/order/read-orders?search=bob&status=completed')).json();
    expect(search.orders.map((o: { toName: string }) => o.toName)).toEqual(['Bob Brown']);
    expect((await callApi(t.app, user.apiKey, 'GET', '/order/read-orders?status=cancelled')).json().orders).toEqual([]);
    const bad = await callApi(t.app, user.apiKey, 'GET', '/order/read-orders?status=lost&page=0');
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['page', 'status']);
  });

  it('turns a bulk order into a queued job, seen going from queued to completed, and serves its ZIP', async () => {
    const user = await resellerUser(t.app, t.db, 50_000);
    const data = Array.from({ length: 30 }, (_, i) => bulkRow(i + 1));
    const created = await callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', { payload: { labelType: 'uspsv9', data } });
    expect(created.statusCode).toBe(200);
    const answer = created.json();
    expect(answer).toMatchObject({ type: 'success', job_id: `bulk-${answer.bulkorder_id}`, totalOrders: 30 });
    expect(await ledgerOf(user.userId)).toEqual([{ kind: 'bulk_charge', amount_cents: -Math.round(answer.total * 100), reference: answer.bulkorder_id }]);

    const seen: { state: string; progress: number; stage: string }[] = [];
    const done = await vi.waitFor(
      async () => {
        const status = await callApi(t.app, user.apiKey, 'GET', `/order/bulk-job-status/${answer.job_id}`);
        expect(status.statusCode).toBe(200);
        const body = status.json();
        const last = seen.at(-1);
        if (!last || last.state !== body.state || last.progress !== body.progress) seen.push({ state: body.state, progress: body.progress, stage: body.stage });
        expect(body.state).toBe('completed');
        return body;
      },
      { ...WAIT, timeout: 30_000 },
    );
    expect(done).toMatchObject({ progress: 100, stage: 'done', totalOrders: 30, made: 30, failed: 0, bulkorder_id: answer.bulkorder_id });
    expect(done.downloadUrl).toBe(`http://localhost:80/api/reseller/v1/order/download-bulk-order/${answer.bulkorder_id}`);
    expect(seen.map((s) => s.progress)).toEqual([...seen.map((s) => s.progress)].sort((a, b) => a - b));
    expect(seen.every((s) => ['waiting', 'active', 'completed'].includes(s.state))).toBe(true);
    expect(seen[0].state).not.toBe('completed'); // polled from queued (or just started) to completed
    expect(seen.length).toBeGreaterThan(1);

    const zip = await callApi(t.app, user.apiKey, 'GET', `/order/download-bulk-order/${answer.bulkorder_id}`);
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    const entries = Object.keys(unzipSync(zip.rawPayload));
    expect(entries).toHaveLength(31);
    expect(entries).toContain('label.csv');
    const report = Buffer.from(unzipSync(zip.rawPayload)['label.csv']).toString();
    expect(report).toContain('REF-30');

    const stats = await callApi(t.app, user.apiKey, 'GET', '/order/bulk-queue-stats');
    expect(stats.statusCode).toBe(200);
    expect(Object.keys(stats.json()).sort()).toEqual(['active', 'completed', 'delayed', 'failed', 'message', 'total', 'type', 'waiting']);
    expect(stats.json().completed).toBeGreaterThanOrEqual(1);
  });

  it('refuses a bulk order with bad rows whole, naming every bad row and field, and charges nothing', async () => {
    const user = await resellerUser(t.app, t.db, 50_000);
    const data = [bulkRow(1), bulkRow(2, { ToZip: 'nope' }), bulkRow(3), bulkRow(4, { Weight: 'x', FromName: '' })];
    const res = await callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', { payload: { labelType: 'uspsv9', data } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.message).toBe('2 rows have errors: fix the file and validate it again');
    expect(body.errors).toEqual(
      expect.arrayContaining([
        { row: 2, field: 'ToZip', message: 'To ZIP must be a US ZIP code like 12345 or 12345-6789' },
        { row: 4, field: 'Weight', message: 'Weight must be a number' },
        { row: 4, field: 'FromName', message: 'From Name is required' },
      ]),
    );
    const tooMany = await callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', {
      payload: { labelType: 'uspsv9', data: Array.from({ length: BULK_MAX_ROWS + 1 }, () => ({})) },
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().errors).toEqual([{ field: 'data', message: 'data may hold at most 5,000 orders' }]);
    expect(await ledgerOf(user.userId)).toEqual([]);
  });

  it("answers 404 for another user's order, bulk order and job", async () => {
    const owner = await resellerUser(t.app, t.db, 50_000);
    const other = await resellerUser(t.app, t.db, 0);
    const order = (await callApi(t.app, owner.apiKey, 'POST', '/order/create-order', { payload: labelFields() })).json().order;
    const bulk = (await callApi(t.app, owner.apiKey, 'POST', '/order/create-bulk-order', { payload: { labelType: 'uspsv9', data: [bulkRow(1)] } })).json();
    const notFound = [
      await callApi(t.app, other.apiKey, 'GET', `/order/download/${order.id}`),
      await callApi(t.app, other.apiKey, 'GET', `/order/bulk-job-status/${bulk.job_id}`),
      await callApi(t.app, other.apiKey, 'GET', `/order/download-bulk-order/${bulk.bulkorder_id}`),
    ];
    expect(notFound.map((r) => r.statusCode)).toEqual([404, 404, 404]);
    expect(notFound[0].json()).toEqual({ type: 'error', message: ORDER_NOT_FOUND });
    expect((await callApi(t.app, other.apiKey, 'GET', '/order/read-orders')).json().orders).toEqual([]);
    expect((await callApi(t.app, owner.apiKey, 'GET', `/order/bulk-job-status/${bulk.job_id}`)).statusCode).toBe(200);
    expect((await callApi(t.app, owner.apiKey, 'GET', '/no/such/call')).json()).toEqual({
      type: 'error',
      message: 'Route GET /api/reseller/v1/no/such/call not found',
    });
  });
});
