import type { Kysely } from 'kysely';

/**
 * What an upstream label provider (EasyPost) keeps on an order: its Shipment's id, recorded before the Shipment is
 * bought (a retry retrieves it instead of buying again), and what the label cost upstream with the carrier and service
 * bought, beside the order's price (the margin).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').addColumn('shipment_id', 'text').execute();
  await db.schema.alterTable('orders').addColumn('upstream_cost_cents', 'integer').execute();
  await db.schema.alterTable('orders').addColumn('upstream_carrier', 'text').execute();
  await db.schema.alterTable('orders').addColumn('upstream_service', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['upstream_service', 'upstream_carrier', 'upstream_cost_cents', 'shipment_id']) await db.schema.alterTable('orders').dropColumn(column).execute();
}
