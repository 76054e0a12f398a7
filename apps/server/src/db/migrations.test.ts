import path from 'node:path';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { createTestDb, testDbKind } from '../../test/harness.ts';
import { orderPayload } from '../../test/order-fixtures.ts';
import { fundedCustomer } from '../../test/customers.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { isPostgres, migrateToLatest, withMigrator, type Db } from './database.ts';

/** Every table, column, index, trigger and function of the database (Kysely's own migration tables left out), as text to compare. */
async function schemaOf(db: Db): Promise<string[]> {
  if (!isPostgres(db)) {
    const rows = await sql<{
      type: string;
      name: string;
      sql: string | null;
    }>`select type, name, sql from sqlite_master where name not like 'sqlite_%' and name not like 'kysely_%' order by type, name`.execute(db);
    return rows.rows.map((r) => `${r.type} ${r.name}: ${r.sql}`);
  }
  const lists = await Promise.all([
    sql<{ line: string }>`select table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') as line
      from information_schema.columns where table_schema = current_schema() and table_name not like 'kysely_%'`.execute(db),
    sql<{ line: string }>`select 'index ' || indexdef as line from pg_indexes where schemaname = current_schema() and tablename not like 'kysely_%'`.execute(
      db,
    ),
    sql<{ line: string }>`select 'trigger ' || trigger_name || ' ' || event_manipulation || ' on ' || event_object_table || ': ' || action_statement as line
      from information_schema.triggers where trigger_schema = current_schema()`.execute(db),
    sql<{ line: string }>`select 'function ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' as line
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = current_schema()`.execute(db),
  ]);
  return lists.flatMap((list) => list.rows.map((r) => r.line)).sort();
}

it(`on ${testDbKind}, every migration's down() runs, newest first, down to an empty database, and the migrations then make the same schema again`, async () => {
  const { db, dataDir, drop } = await createTestDb();
  try {
    // Rows in the tables, as a shop has them: a customer, a deposit, an order (and its search and count rows), an address.
    const app = await buildApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ALTCHA_MAX_NUMBER: '1000', WEB_DIST: path.join(dataDir, 'no-web') }), {
      db,
      logger: false,
    });
    try {
      const user = await fundedCustomer(app, 10_000, db);
      expect((await app.inject({ method: 'POST', url: '/api/v1/order/create', headers: user.headers, payload: orderPayload('priority') })).statusCode).toBe(
        200,
      );
      const address = { name: 'Home', street: '1 Main Street', street2: '', city: 'Austin', state: 'TX', zip: '78701', country: 'United States' };
      expect((await app.inject({ method: 'POST', url: '/api/v1/address/create', headers: user.headers, payload: address })).statusCode).toBe(200);
      expect(
        (await app.inject({ method: 'POST', url: '/api/v1/invoices/create-invoice', headers: user.headers, payload: { amount: 25, type: 'crypto' } }))
          .statusCode,
      ).toBe(200);
    } finally {
      await app.close();
    }
    const latest = await schemaOf(db);
    expect(latest.length).toBeGreaterThan(50);
    const migrations = await withMigrator(db, (migrator) => migrator.getMigrations());
    expect(migrations.length).toBeGreaterThan(0);
    expect(migrations.filter((m) => !m.executedAt)).toEqual([]);

    for (const { name } of [...migrations].reverse()) {
      const { error, results } = await withMigrator(db, (migrator) => migrator.migrateDown());
      expect([name, error]).toEqual([name, undefined]);
      expect(results).toEqual([{ migrationName: name, direction: 'Down', status: 'Success' }]);
    }
    expect(await schemaOf(db)).toEqual([]);
    expect((await withMigrator(db, (migrator) => migrator.getMigrations())).filter((m) => m.executedAt)).toEqual([]);

    await migrateToLatest(db);
    expect(await schemaOf(db)).toEqual(latest);
  } finally {
    await drop();
  }
  // Over 60 migrations down and up again: 3 s at rest, past 30 s on a loaded CI machine.
}, 180_000);

it(`on ${testDbKind}, the UPS (Canada) types still on their first defaults (US services) are moved to EasyPost's Canadian ones, an operator's own mapping left alone`, async () => {
  const { db, drop } = await createTestDb();
  try {
    const name = '2026-11-29-50-ups-canada-services';
    const names = (await withMigrator(db, (migrator) => migrator.getMigrations())).map((m) => m.name);
    const before = names[names.indexOf(name) - 1];
    await migrateToLatest(db, before);
    // A shop as the first defaults left it, but for two types its operator mapped otherwise.
    const rows: [uid: string, carrier: string, service: string, account: string | null][] = [
      ['priority', 'USPS', 'Priority', null],
      ['ups_standard', 'UPS', 'Ground', null],
      ['ups_express', 'UPS', 'NextDayAir', 'ca_ups_1'],
      ['ups_express_saver', 'UPS', 'NextDayAirSaver', null],
      ['ups_express_early', 'UPS', 'Express', null],
      ['ups_expedited', 'Canpar', '2ndDayAir', null],
    ];
    for (const [uid, carrier, service, account] of rows)
      await sql`insert into label_types (id, uid, name, max_weight, status, position, created_at, upstream_carrier, upstream_service, upstream_carrier_account)
        values (${uid}, ${uid}, ${uid}, 150, 1, 0, '2026-11-29T00:00:00.000Z', ${carrier}, ${service}, ${account})`.execute(db);
    const mapping = async () =>
      Object.fromEntries(
        (
          await sql<{
            uid: string;
            c: string;
            s: string;
            a: string | null;
          }>`select uid, upstream_carrier as c, upstream_service as s, upstream_carrier_account as a from label_types`.execute(db)
        ).rows.map((r) => [r.uid, [r.c, r.s, r.a]]),
      );

    await migrateToLatest(db, name);
    expect(await mapping()).toEqual({
      priority: ['USPS', 'Priority', null],
      ups_standard: ['UPS', 'UPSStandard', null],
      ups_express: ['UPS', 'Express', 'ca_ups_1'],
      ups_express_saver: ['UPS', 'UPSSaver', null],
      ups_express_early: ['UPS', 'Express', null],
      ups_expedited: ['Canpar', '2ndDayAir', null],
    });

    // Several upstreams: each mapping moves, as it was, to EasyPost's row of upstream_services; Shippo's defaults join it.
    await migrateToLatest(db);
    const moved = await sql<{ uid: string; upstream: string; carrier: string; service: string; account: string | null }>`
      select t.uid, u.upstream, u.carrier, u.service, u.carrier_account as account
      from upstream_services u join label_types t on t.id = u.label_type_id order by t.uid, u.upstream`.execute(db);
    const easypost = Object.fromEntries(moved.rows.filter((r) => r.upstream === 'easypost').map((r) => [r.uid, [r.carrier, r.service, r.account]]));
    expect(easypost).toEqual({
      priority: ['USPS', 'Priority', null],
      ups_standard: ['UPS', 'UPSStandard', null],
      ups_express: ['UPS', 'Express', 'ca_ups_1'],
      ups_express_saver: ['UPS', 'UPSSaver', null],
      ups_express_early: ['UPS', 'Express', null],
      ups_expedited: ['Canpar', '2ndDayAir', null],
    });
    expect(moved.rows.find((r) => r.uid === 'ups_standard' && r.upstream === 'shippo')).toMatchObject({ carrier: 'UPS', service: 'ups_standard' });
    expect(moved.rows.filter((r) => r.upstream === 'shippo')).toHaveLength(rows.length);

    await withMigrator(db, (migrator) => migrator.migrateTo(before));
    expect(await mapping()).toEqual(Object.fromEntries(rows.map(([uid, carrier, service, account]) => [uid, [carrier, service, account]])));
  } finally {
    await drop();
  }
});
