import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * catalog_version: one row whose version every change to label_types or label_type_prices raises, by triggers, so a
 * process can keep the catalog it read and read it again only when the number moved (every order prices itself
 * against it). The database raises it, whichever process or statement changes the catalog.
 *
 * - SQLite: a row trigger per table and kind of change.
 * - PostgreSQL: a statement trigger per table (one raise for a statement that replaces every tier).
 */
const TABLES = ['label_types', 'label_type_prices'];
const CHANGES = ['insert', 'update', 'delete'];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('catalog_version')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await db.insertInto('catalog_version').values({ id: 1, version: 1 }).execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create function raise_catalog_version() returns trigger language plpgsql as $$
      begin
        update catalog_version set version = version + 1 where id = 1;
        return null;
      end $$`.execute(db);
    for (const table of TABLES) {
      await sql`create trigger ${sql.id(`${table}_catalog_version`)} after insert or update or delete on ${sql.table(table)} for each statement execute function raise_catalog_version()`.execute(
        db,
      );
    }
    return;
  }
  for (const table of TABLES) {
    for (const change of CHANGES) {
      await sql`create trigger ${sql.id(`${table}_${change}_catalog_version`)} after ${sql.raw(change)} on ${sql.table(table)} begin
        update catalog_version set version = version + 1 where id = 1;
      end`.execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const table of TABLES) {
    if (postgres) await sql`drop trigger ${sql.id(`${table}_catalog_version`)} on ${sql.table(table)}`.execute(db);
    else for (const change of CHANGES) await sql`drop trigger ${sql.id(`${table}_${change}_catalog_version`)}`.execute(db);
  }
  if (postgres) await sql`drop function raise_catalog_version()`.execute(db);
  await db.schema.dropTable('catalog_version').execute();
}
