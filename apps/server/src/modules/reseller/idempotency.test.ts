import { afterAll, beforeAll, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_IN_PROGRESS, IDEMPOTENCY_KEY_REUSED } from '@portal/contract';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { fundUser } from '../../../test/harness.ts';
import { newId } from '../../lib/ids.ts';
import { IDEMPOTENCY_LEASE_MS } from './service.ts';
import { bulkRow, callApi, labelFields, resellerUser, urlencoded } from '../../../test/reseller-fixtures.ts';
import { uniqueId } from '../../../test/basics.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const charges = (userId: string) =>
  t.db.selectFrom('ledger').select(['kind', 'reference']).where('user_id', '=', userId).where('kind', 'in', ['order_charge', 'bulk_charge']).execute();
const orderCount = async (userId: string) => (await t.db.selectFrom('orders').select('id').where('user_id', '=', userId).execute()).length;
const create = (apiKey: string, key: string, fields = labelFields()) =>
  callApi(t.app, apiKey, 'POST', '/order/create-order', {
    headers: { 'idempotency-key': key, 'content-type': 'application/x-www-form-urlencoded' },
    payload: urlencoded(fields),
  });

it('answers a repeat with the same key and body with the first answer, without a new order or charge', async () => {
  const user = await resellerUser(t.app, t.db, 10_000);
  const key = uniqueId('order');
  const first = await create(user.apiKey, key);
  expect(first.statusCode).toBe(200);
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  const again = await create(user.apiKey, key);
  expect(again.statusCode).toBe(200);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(again.json()).toEqual(first.json());
  expect(await orderCount(user.userId)).toBe(1);
  expect(await charges(user.userId)).toEqual([{ kind: 'order_charge', reference: first.json().order.id }]);
  // The key belongs to this account: another account's same key is its own.
  const other = await resellerUser(t.app, t.db, 10_000);
  expect((await create(other.apiKey, key)).json().order.id).not.toBe(first.json().order.id);
});

it('answers 422 to the same key with another body, and 400 to a malformed key', async () => {
  const user = await resellerUser(t.app, t.db, 10_000);
  const key = uniqueId('order');
  expect((await create(user.apiKey, key)).statusCode).toBe(200);
  const reused = await create(user.apiKey, key, labelFields({ ToName: 'Someone Else' }));
  expect(reused.statusCode).toBe(422);
  expect(reused.json()).toEqual({ type: 'error', message: IDEMPOTENCY_KEY_REUSED });
  expect(await orderCount(user.userId)).toBe(1);
  const malformed = await create(user.apiKey, 'has spaces in it');
  expect(malformed.statusCode).toBe(400);
  expect(malformed.json().errors[0].field).toBe('idempotency-key');
});

it('makes one order and one charge of 20 concurrent requests carrying one key', async () => {
  const user = await resellerUser(t.app, t.db, 10_000);
  const key = uniqueId('order');
  const answers = await Promise.all(Array.from({ length: 20 }, () => create(user.apiKey, key)));
  const statuses = answers.map((a) => a.statusCode);
  expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
  const ok = answers.filter((a) => a.statusCode === 200);
  expect(ok.length).toBeGreaterThanOrEqual(1);
  expect(new Set(ok.map((a) => a.json().order.id)).size).toBe(1);
  for (const conflict of answers.filter((a) => a.statusCode === 409)) expect(conflict.json()).toEqual({ type: 'error', message: IDEMPOTENCY_KEY_IN_PROGRESS });
  expect(await orderCount(user.userId)).toBe(1);
  expect(await charges(user.userId)).toHaveLength(1);
  // Once finished, the key answers everyone the same.
  expect((await create(user.apiKey, key)).json().order.id).toBe(ok[0].json().order.id);
});

it('frees a key whose request was refused before anything was charged', async () => {
  const user = await resellerUser(t.app, t.db, 100);
  const key = uniqueId('order');
  expect((await create(user.apiKey, key)).statusCode).toBe(402);
  await fundUser(t.db, user.userId, 10_000);
  const paid = await create(user.apiKey, key);
  expect(paid.statusCode).toBe(200);
  expect(await orderCount(user.userId)).toBe(1);
});

it('answers 409 while a claim runs, and takes over a claim whose request died', async () => {
  const user = await resellerUser(t.app, t.db, 10_000);
  const first = await create(user.apiKey, uniqueId('seed'));
  const row = await t.db.selectFrom('idempotency_keys').selectAll().where('user_id', '=', user.userId).executeTakeFirstOrThrow();
  const claim = async (key: string, ageMs: number, resourceId: string | null) => {
    const at = new Date(Date.now() - ageMs).toISOString();
    await t.db
      .insertInto('idempotency_keys')
      .values({ ...row, id: newId(), key, state: 'running', resource_id: resourceId, status_code: null, response: null, created_at: at, updated_at: at })
      .execute();
  };
  await claim('running-now', 0, null);
  expect((await create(user.apiKey, 'running-now')).statusCode).toBe(409);

  // Died before paying: the repeat runs it.
  await claim('died-unpaid', IDEMPOTENCY_LEASE_MS + 1000, null);
  const rerun = await create(user.apiKey, 'died-unpaid');
  expect(rerun.statusCode).toBe(200);
  expect(rerun.json().order.id).not.toBe(first.json().order.id);

  // Died after paying for an order: the repeat answers that order, and nothing new is bought.
  await claim('died-paid', IDEMPOTENCY_LEASE_MS + 1000, first.json().order.id);
  const before = await orderCount(user.userId);
  const recovered = await create(user.apiKey, 'died-paid');
  expect(recovered.statusCode).toBe(200);
  expect(recovered.json().order.id).toBe(first.json().order.id);
  expect(await orderCount(user.userId)).toBe(before);
});

it('makes a bulk order once per key', async () => {
  const user = await resellerUser(t.app, t.db, 50_000);
  const key = uniqueId('bulk');
  const send = () =>
    callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', {
      headers: { 'idempotency-key': key },
      payload: { labelType: 'uspsv9', data: [bulkRow(1), bulkRow(2)] },
    });
  const answers = await Promise.all([send(), send(), send()]);
  const ok = answers.filter((a) => a.statusCode === 200);
  expect(new Set(ok.map((a) => a.json().bulkorder_id)).size).toBe(1);
  const later = await send();
  expect(later.json().job_id).toBe(ok[0].json().job_id);
  expect((await charges(user.userId)).filter((c) => c.kind === 'bulk_charge')).toHaveLength(1);
  expect(await t.db.selectFrom('bulk_orders').select('id').where('user_id', '=', user.userId).execute()).toHaveLength(1);
});
