import type { Kysely } from 'kysely';

/**
 * tracking_events: every tracking status told about an order (EasyPost's tracker.updated, the sandbox's steps), in the
 * order it arrived, late ones included. The order's tracking_status only moves forwards (orders/tracking.ts); this is
 * its history.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tracking_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tracking_events_order').on('tracking_events').columns(['order_id', 'received_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('tracking_events').execute();
}
