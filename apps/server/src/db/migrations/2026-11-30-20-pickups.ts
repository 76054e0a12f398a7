import type { Kysely } from 'kysely';

/**
 * Carrier pickups of a customer's labels (one carrier, one from address): rated (the upstream's offers kept as JSON),
 * booking (the fee charged, the purchase asked), booked (its confirmation), failed, cancelling, cancelled. A booked
 * pickup's labels name it (orders.pickup_id). Its fee and the fee's refund are ledger rows of their own kinds
 * (pickup_fee, pickup_refund) with the pickup's id as reference: unique per kind, so each moves money once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('pickups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('from_json', 'text', (c) => c.notNull())
    .addColumn('min_datetime', 'text', (c) => c.notNull())
    .addColumn('max_datetime', 'text', (c) => c.notNull())
    .addColumn('instructions', 'text', (c) => c.notNull())
    .addColumn('order_ids_json', 'text', (c) => c.notNull())
    .addColumn('label_count', 'integer', (c) => c.notNull())
    .addColumn('upstream_ref', 'text')
    .addColumn('rates_json', 'text', (c) => c.notNull())
    .addColumn('service', 'text')
    .addColumn('fee_cents', 'integer')
    .addColumn('confirmation', 'text')
    .addColumn('message', 'text')
    .addColumn('due_at', 'text')
    .addColumn('claims', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pickups_user').on('pickups').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('pickups_due').on('pickups').columns(['status', 'due_at']).execute();
  await db.schema.alterTable('orders').addColumn('pickup_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').dropColumn('pickup_id').execute();
  await db.schema.dropTable('pickups').execute();
}
