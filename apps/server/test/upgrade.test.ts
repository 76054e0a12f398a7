import path from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrateToLatest } from '../src/db/database.ts';
import { readOrCreateSecret } from '../src/lib/secrets.ts';
import { createTokenService } from '../src/modules/auth/tokens.ts';
import { createTestDb, testDbKind } from './harness.ts';

/** The last migration of the first release: accounts, orders, deposits and bulk orders. */
const FIRST_RELEASE = '2026-11-21-05-bulk';

let test: Awaited<ReturnType<typeof createTestDb>>;
beforeAll(async () => {
  test = await createTestDb(FIRST_RELEASE);
});
afterAll(() => test?.drop());

describe(`upgrading a ${testDbKind} database the first release made`, () => {
  it('keeps accounts, money, orders, deposits and bulk orders, and the old API key still works', async () => {
    // Rows as the first release wrote them (its columns only), through an untyped handle.
    const old = test.db as unknown as Kysely<any>;
    const at = '2026-11-21T12:00:00.000Z';
    await old
      .insertInto('label_types')
      .values({ id: 'lt-priority', uid: 'priority', name: 'USPS Priority Mail', max_weight: 70, status: 1, position: 1, created_at: at })
      .execute();
    await old.insertInto('label_type_prices').values({ id: 'p1', label_type_id: 'lt-priority', from_weight: 0.1, to_weight: 70, price_cents: 675 }).execute();
    await old
      .insertInto('users')
      .values({
        id: 'u1',
        username: 'Early Customer',
        tg_id: 'early_one',
        tg_id_lower: 'early_one',
        password_hash: 'x',
        email: 'early@example.com',
        email_verified: 1,
        balance_cents: 9325,
        api_key: 'lp_release_one_key_0123456789abcdef',
        token_version: 0,
        created_at: at,
      })
      .execute();
    await old
      .insertInto('ledger')
      .values([
        { id: 'l1', user_id: 'u1', amount_cents: 10_000, balance_after_cents: 10_000, kind: 'deposit', reference: 'inv1', note: 'Deposit', created_at: at },
        {
          id: 'l2',
          user_id: 'u1',
          amount_cents: -675,
          balance_after_cents: 9325,
          kind: 'order_charge',
          reference: 'o1',
          note: 'Order',
          created_at: '2026-11-21T12:05:00.000Z',
        },
      ])
      .execute();
    await old
      .insertInto('invoices')
      .values({
        id: 'inv1',
        user_id: 'u1',
        amount_cents: 10_000,
        bonus_percent: 0,
        bonus_cents: 0,
        payment_method: 'crypto',
        status: 'paid',
        provider: 'sandbox',
        provider_invoice_id: 'sb1',
        hosted_url: 'http://x/pay/sb1',
        expires_at: at,
        paid_at: at,
        created_at: at,
      })
      .execute();
    const side = (prefix: string, name: string) => ({
      [`${prefix}_name`]: name,
      [`${prefix}_company`]: '',
      [`${prefix}_street`]: '1 Main Street',
      [`${prefix}_street2`]: '',
      [`${prefix}_city`]: 'Austin',
      [`${prefix}_state`]: 'TX',
      [`${prefix}_zip`]: '78701',
      [`${prefix}_country`]: 'United States',
      [`${prefix}_phone`]: '',
    });
    await old
      .insertInto('bulk_orders')
      .values({
        id: 'b1',
        user_id: 'u1',
        label_type_id: 'lt-priority',
        label_type_uid: 'priority',
        label_type_name: 'USPS Priority Mail',
        design: 'normal',
        status: 'completed',
        total_orders: 1,
        total_cents: 675,
        progress: 100,
        job_id: 'bulk-b1',
        input_key: 'bulk-input/b1.csv',
        report_key: 'bulk/b1/label.csv',
        pdf_key: 'bulk/b1/label.pdf',
        zip_key: 'bulk/b1/label.zip',
        made_orders: 1,
        failed_orders: 0,
        refunded_cents: 0,
        note: null,
        created_at: at,
        updated_at: at,
        completed_at: at,
      })
      .execute();
    await old
      .insertInto('orders')
      .values({
        id: 'o1',
        user_id: 'u1',
        label_type_id: 'lt-priority',
        label_type_uid: 'priority',
        label_type_name: 'USPS Priority Mail',
        design: 'normal',
        weight: 2,
        length: null,
        width: null,
        height: null,
        ...side('from', 'Early Sender'),
        ...side('to', 'Early Receiver'),
        price_cents: 675,
        status: 'completed',
        tracking: '9405500000000000000001',
        pdf_key: 'labels/o1.pdf',
        provider: 'sandbox',
        provider_ref: null,
        note: null,
        created_at: '2026-11-21T12:05:00.000Z',
        updated_at: '2026-11-21T12:05:00.000Z',
        bulk_order_id: 'b1',
        bulk_row: 1,
      })
      .execute();
    await old.insertInto('order_counts').values({ user_id: 'u1', total: 1 }).execute();

    await migrateToLatest(test.db);

    const config = loadConfig({ DATA_DIR: test.dataDir, LOG_LEVEL: 'silent', WEB_DIST: path.join(test.dataDir, 'no-web') });
    const app = await buildApp(config, { db: test.db, logger: false });
    try {
      const token = await createTokenService(readOrCreateSecret(test.dataDir, 'jwt-secret', undefined), 1).issue({ userId: 'u1', tokenVersion: 0 });
      const get = (url: string) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      expect((await get('/api/v1/auth/access')).json()).toMatchObject({ tgId: 'early_one', balance: 93.25, role: 'customer' });
      const history = (await get('/api/v1/order/read?page=1&limit=10')).json();
      expect(history.orders.map((o: { _id: string; status: string; tracking: string; price: number }) => [o._id, o.status, o.tracking, o.price])).toEqual([
        ['o1', 'completed', '9405500000000000000001', 6.75],
      ]);
      // The label made before the tracking pages has one too (the migration's token: 128 random bits, in hex).
      expect(history.orders[0].trackingPage).toMatch(/^\/t\/[0-9a-f]{32}$/);
      const page = await app.inject({ method: 'GET', url: `/api/v1/track/${history.orders[0].trackingPage.slice(3)}` });
      expect([page.statusCode, page.json().trackingNumber]).toEqual([200, '9405500000000000000001']);
      expect(
        (await get('/api/v1/order/read-bulk-orders')).json().orders.map((b: { _id: string; status: string; orders: string[] }) => [b._id, b.status, b.orders]),
      ).toEqual([['b1', 'completed', ['o1']]]);
      const user = await test.db.selectFrom('users').selectAll().where('id', '=', 'u1').executeTakeFirstOrThrow();
      expect([user.disabled_at, user.api_key_hash !== null, user.api_key_sealed.startsWith('lp_release')]).toEqual([null, true, false]);
      // The key the first release showed is sealed at start and still lets the customer's program in.
      const api = await app.inject({
        method: 'GET',
        url: '/api/reseller/v1/order/read-orders?page=1&limit=10',
        headers: { 'x-api-key': 'lp_release_one_key_0123456789abcdef' },
      });
      expect(api.statusCode, api.body).toBe(200);
      expect(api.json().orders.map((o: { id: string }) => o.id)).toEqual(['o1']);
    } finally {
      await app.close();
    }
  });
});
