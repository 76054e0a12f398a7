import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** The order search's indexed text: the order number, both names, the tracking number, and (from here) the reference lines. */
const INDEXED = `left(id, 8) || chr(10) || from_name || chr(10) || to_name || chr(10) || coalesce(tracking, '')`;
const WITH_REFERENCES = `${INDEXED} || chr(10) || reference1 || chr(10) || reference2`;

/**
 * An order's ship date (YYYY-MM-DD; null for the orders made before it, which shipped the day they were made) and the
 * two reference lines its label prints ('' when none). The order search finds an order by its reference too:
 * - PostgreSQL: the GIN index of the search's trigrams is made again over the text with the references.
 * - SQLite: the FTS5 table is filled with the same text from now on (orders/order-search.ts); the orders before have no
 *   reference, so their entries stay as they are. An order noted again when a reference changes, as for a name.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').addColumn('ship_date', 'text').execute();
  await db.schema
    .alterTable('orders')
    .addColumn('reference1', 'text', (col) => col.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('orders')
    .addColumn('reference2', 'text', (col) => col.notNull().defaultTo(''))
    .execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await indexOver(db, WITH_REFERENCES);
    return;
  }
  await noteUpdatesOf(db, 'id, from_name, to_name, tracking, reference1, reference2');
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await indexOver(db, INDEXED);
  // SQLite drops no column a trigger names.
  else await noteUpdatesOf(db, 'id, from_name, to_name, tracking');
  for (const column of ['reference2', 'reference1', 'ship_date']) await db.schema.alterTable('orders').dropColumn(column).execute();
}

async function indexOver(db: Kysely<any>, text: string): Promise<void> {
  await sql`set local maintenance_work_mem = '256MB'`.execute(db);
  await db.schema.dropIndex('orders_search_keys').execute();
  await sql`create index orders_search_keys on orders using gin (order_search_keys(user_id, search_fold(lower(${sql.raw(text)}))))`.execute(db);
}

/** SQLite: the trigger that notes an order for the search's index when its indexed text changes (2026-11-24-50-order-search-later). */
async function noteUpdatesOf(db: Kysely<any>, columns: string): Promise<void> {
  await sql`drop trigger orders_search_update`.execute(db);
  await sql`create trigger orders_search_update after update of ${sql.raw(columns)} on orders begin
    insert or ignore into orders_search_pending (order_rowid) values (new.rowid);
  end`.execute(db);
}
