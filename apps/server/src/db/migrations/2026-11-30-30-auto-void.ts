import type { Kysely } from 'kysely';

/**
 * Automatic voids of unused labels: each customer may turn them off (users.auto_void, on by default), and a refund the
 * shop asked for by itself is marked (orders.refund_auto) so the dashboard can say what they saved. The index serves
 * the run's pick: completed labels never asked to be refunded, oldest first.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('auto_void', 'integer', (col) => col.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('orders')
    .addColumn('refund_auto', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('orders_auto_void').on('orders').columns(['status', 'refund_status', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('orders_auto_void').execute();
  await db.schema.alterTable('orders').dropColumn('refund_auto').execute();
  await db.schema.alterTable('users').dropColumn('auto_void').execute();
}
