import { sql, type Kysely } from 'kysely';

/**
 * The index that keeps one order per bulk row holds bulk rows only. Whole, it held every single order under a NULL
 * key, and SQLite (which keeps no NULL statistics) took `bulk_order_id is null` for a selective lookup: the completion
 * sweep's search for waiting single orders read every single order through it (275 ms at 1,000,000 orders, every
 * ORDER_POLL_INTERVAL_MS, blocking the server) instead of the few waiting ones through (status, claimed_until). A
 * lookup of a bulk order's rows (`bulk_order_id = ?`) still uses it; a single order's insert no longer writes to it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('orders_bulk_row').execute();
  await db.schema
    .createIndex('orders_bulk_row')
    .on('orders')
    .columns(['bulk_order_id', 'bulk_row'])
    .unique()
    .where(sql.ref('bulk_order_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('orders_bulk_row').execute();
  await db.schema.createIndex('orders_bulk_row').on('orders').columns(['bulk_order_id', 'bulk_row']).unique().execute();
}
