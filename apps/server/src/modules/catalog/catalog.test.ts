import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_TYPE_DISABLED, LABEL_TYPE_NOT_FOUND, LABEL_TYPE_UIDS, WEIGHT_NOT_POSITIVE } from '@portal/contract';
import { signUp, startTestApp, type TestApp } from '../../../test/harness.ts';
import { seedCatalog } from './seed-catalog.ts';

let t: TestApp;
let headers: { authorization: string };
beforeAll(async () => {
  t = await startTestApp();
  headers = (await signUp(t.app)).headers;
});
afterAll(() => t.close());

const price = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/v1/order/price', payload, headers });
const labelTypes = async () => (await t.app.inject({ method: 'GET', url: '/api/v1/labeltype/read', headers })).json().labelTypes as any[];

describe('label types', () => {
  it('lists the nine seeded types with the spec fields, ground_oz in ounces', async () => {
    const types = await labelTypes();
    expect(types.map((lt) => lt.uid).sort()).toEqual([...LABEL_TYPE_UIDS].sort());
    for (const lt of types) {
      expect(lt).toMatchObject({ _id: expect.any(String), name: expect.any(String), maxWeight: expect.any(Number), status: true });
      expect(lt.prices.length).toBeGreaterThan(0);
      expect(lt.weightUnit).toBe(lt.uid === 'ground_oz' ? 'oz' : 'lb');
      for (const tier of lt.prices) expect(tier).toEqual({ price: expect.any(Number), fromWeight: expect.any(Number), toWeight: expect.any(Number) });
    }
  });

  it('seeds once: starting again adds nothing and keeps an operator edit', async () => {
    await t.db.updateTable('label_types').set({ name: 'Priority (edited)' }).where('uid', '=', 'priority').execute();
    await seedCatalog(t.db);
    const types = await labelTypes();
    expect(types).toHaveLength(9);
    expect(types.find((lt) => lt.uid === 'priority').name).toBe('Priority (edited)');
    const tiers = await t.db
      .selectFrom('label_type_prices')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(tiers.n)).toBe(types.reduce((sum, lt) => sum + lt.prices.length, 0));
  });

  it('needs a signed-in user', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/labeltype/read' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/order/price', payload: { labelType: 'priority', weight: 1 } })).statusCode).toBe(401);
  });
});

describe('POST /order/price', () => {
  it('answers the price of the tier holding the weight, by _id or uid; where two tiers meet the lower wins', async () => {
    const priority = (await labelTypes()).find((lt) => lt.uid === 'priority');
    const [first, second] = priority.prices;
    expect((await price({ labelType: priority._id, weight: first.toWeight })).json()).toEqual({ price: first.price });
    expect((await price({ labelType: 'priority', weight: first.toWeight + 0.01 })).json()).toEqual({ price: second.price });
    expect((await price({ labelType: 'priority', weight: '0.5' })).json()).toEqual({ price: first.price });
  });

  it('weighs ground_oz in ounces', async () => {
    const res = await price({ labelType: 'ground_oz', weight: 15.99 });
    expect(res.statusCode).toBe(200);
    expect((await price({ labelType: 'ground_oz', weight: 16 })).json().message).toBe('Weight must be at most 15.99 oz for USPS Ground Advantage (oz)');
  });

  it.each([
    [{ labelType: 'priority', weight: 0 }, WEIGHT_NOT_POSITIVE],
    [{ labelType: 'priority', weight: -2 }, WEIGHT_NOT_POSITIVE],
    [{ labelType: 'priority', weight: 'heavy' }, 'Weight must be a number'],
    [{ labelType: 'priority' }, 'Weight is required'],
    [{ weight: 1 }, 'Label type is required'],
    [{ labelType: 'no_such_type', weight: 1 }, LABEL_TYPE_NOT_FOUND],
    [{ labelType: 'fedex_ground', weight: 150.5 }, 'Weight must be at most 150 lb for FedEx Ground'],
  ])('rejects %j with a clear 400', async (payload, message) => {
    const res = await price(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(message);
  });

  it('rejects a weight outside every tier', async () => {
    const type = await t.db.selectFrom('label_types').select('id').where('uid', '=', 'ups_expedited').executeTakeFirstOrThrow();
    // Leave a gap between 5 and 20 lb.
    await t.db.deleteFrom('label_type_prices').where('label_type_id', '=', type.id).where('from_weight', '=', 5).execute();
    const res = await price({ labelType: 'ups_expedited', weight: 10 });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('No price is set for 10 lb with UPS Expedited (Canada)');
  });

  it('prices with a change made outside this process at once: any write to the catalog moves its version', async () => {
    const version = async () => Number((await t.db.selectFrom('catalog_version').select('version').executeTakeFirstOrThrow()).version);
    const priority = (await labelTypes()).find((lt) => lt.uid === 'priority');
    const [first] = priority.prices;
    expect((await price({ labelType: 'priority', weight: first.toWeight })).json()).toEqual({ price: first.price });
    const before = await version();
    // As another process would: a statement on the database, not through this app.
    await t.db
      .updateTable('label_type_prices')
      .set({ price_cents: 12_345 })
      .where('label_type_id', '=', priority._id)
      .where('from_weight', '=', first.fromWeight)
      .execute();
    expect(await version()).toBeGreaterThan(before);
    expect((await price({ labelType: 'priority', weight: first.toWeight })).json()).toEqual({ price: 123.45 });
    const renamed = await version();
    await t.db.updateTable('label_types').set({ name: 'Priority (again)' }).where('uid', '=', 'priority').execute();
    expect(await version()).toBeGreaterThan(renamed);
    expect((await labelTypes()).find((lt) => lt.uid === 'priority').name).toBe('Priority (again)');
  });

  it('hides a disabled type and refuses to price it', async () => {
    await t.db.updateTable('label_types').set({ status: 0 }).where('uid', '=', 'ups_express_early').execute();
    expect((await labelTypes()).map((lt) => lt.uid)).not.toContain('ups_express_early');
    const res = await price({ labelType: 'ups_express_early', weight: 1 });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(LABEL_TYPE_DISABLED);
  });
});
