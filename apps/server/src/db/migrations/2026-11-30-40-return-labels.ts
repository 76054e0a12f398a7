import type { Kysely } from 'kysely';

/**
 * Return labels: a return order names the order it returns (orders.return_of), and that order names its return
 * (orders.return_order_id), set in the return's charge transaction by a conditional update: one return an order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').addColumn('return_of', 'text').execute();
  await db.schema.alterTable('orders').addColumn('return_order_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').dropColumn('return_order_id').execute();
  await db.schema.alterTable('orders').dropColumn('return_of').execute();
}
