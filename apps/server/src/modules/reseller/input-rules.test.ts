import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { bulkRow, callApi, labelFields, resellerUser } from '../../../test/reseller-fixtures.ts';

describe('the reseller API refuses unprintable text and weights in other notations before charging', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const ledgerOf = (userId: string) => t.db.selectFrom('ledger').select('kind').where('user_id', '=', userId).where('kind', '!=', 'adjustment').execute();
  const ordersOf = (userId: string) => t.db.selectFrom('orders').select('id').where('user_id', '=', userId).execute();

  it('answers 400 naming the field to a name holding half a character, with no order and no charge', async () => {
    const user = await resellerUser(t.app, t.db, 50_000);
    const res = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields({ ToName: 'Bob \ud800 Smith' }) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ type: 'error', message: 'To Name holds characters that cannot be printed' });
    expect(res.json().errors).toContainEqual({ field: 'ToName', message: 'To Name holds characters that cannot be printed' });
    expect(await ordersOf(user.userId)).toEqual([]);
    expect(await ledgerOf(user.userId)).toEqual([]);
  });

  it('refuses a bulk order whose rows hold a lone surrogate or weights like 1e-300 and 0x2, naming each, and charges nothing', async () => {
    const user = await resellerUser(t.app, t.db, 50_000);
    const data = [
      bulkRow(1),
      bulkRow(2, { FromCity: 'New \udc00York' }),
      bulkRow(3, { Weight: 1e-300 }),
      bulkRow(4, { Weight: '0x2' }),
      bulkRow(5, { Weight: 1.234 }),
      bulkRow(6, { Weight: -1 }),
      bulkRow(7, { Weight: 0 }),
      bulkRow(8, { Reference: 'A\u0000' }),
    ];
    const res = await callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', { payload: { labelType: 'uspsv9', data } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual(
      expect.arrayContaining([
        { row: 2, field: 'FromCity', message: 'From City holds characters that cannot be printed' },
        { row: 3, field: 'Weight', message: 'Weight must have at most 2 decimal places' },
        { row: 4, field: 'Weight', message: 'Weight must be a number' },
        { row: 5, field: 'Weight', message: 'Weight must have at most 2 decimal places' },
        { row: 6, field: 'Weight', message: 'Weight must be greater than 0' },
        { row: 7, field: 'Weight', message: 'Weight must be greater than 0' },
        { row: 8, field: 'Reference', message: 'Reference holds characters that cannot be printed' },
      ]),
    );
    expect(await ledgerOf(user.userId)).toEqual([]);
  });

  it('prices and takes weights written plainly: 2, 2.5 and "2.50"', async () => {
    const user = await resellerUser(t.app, t.db, 50_000);
    for (const weight of [2, 2.5, '2.50']) {
      const res = await callApi(t.app, user.apiKey, 'POST', '/order/price', { payload: { labelType: 'priority', weight } });
      expect([weight, res.statusCode]).toEqual([weight, 200]);
    }
    const refused = await callApi(t.app, user.apiKey, 'POST', '/order/price', { payload: { labelType: 'priority', weight: '0x2' } });
    expect(refused.statusCode).toBe(400);
    const bulk = await callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', {
      payload: { labelType: 'uspsv9', data: [bulkRow(1, { Weight: 2 }), bulkRow(2, { Weight: 2.5 }), bulkRow(3, { Weight: '2.50' })] },
    });
    expect(bulk.statusCode).toBe(200);
  });
});
