import type { Kysely } from 'kysely';

/**
 * quotes: what POST /order/rates answered (each type's price, days and upstream rate, as JSON), its package's
 * fingerprint and the upstream shipment that priced it, held 15 minutes and used by one order at most.
 * orders.quote_id / upstream_rate_id: the quote an order was bought under and the rate of the quote's shipment it buys.
 * audit_log.actor: 'system' for a row the shop wrote by itself (a label refused for its cost), else null (an admin, or
 * the command line when admin_id is null).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('quotes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('package_json', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('shipment_ref', 'text')
    .addColumn('rates_json', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text')
    .execute();
  // Expired quotes are deleted by age.
  await db.schema.createIndex('quotes_expires').on('quotes').column('expires_at').execute();
  await db.schema.alterTable('orders').addColumn('quote_id', 'text').execute();
  await db.schema.alterTable('orders').addColumn('upstream_rate_id', 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('actor', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_log').dropColumn('actor').execute();
  await db.schema.alterTable('orders').dropColumn('upstream_rate_id').execute();
  await db.schema.alterTable('orders').dropColumn('quote_id').execute();
  await db.schema.dropTable('quotes').execute();
}
