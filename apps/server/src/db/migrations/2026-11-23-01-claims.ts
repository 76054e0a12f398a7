import type { Kysely } from 'kysely';

/** Leases: a waiting order is asked about only by the process that claimed it, and a running job is held while its worker lives. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').addColumn('claimed_until', 'text').execute();
  await db.schema.createIndex('orders_claimable').on('orders').columns(['status', 'claimed_until']).execute();
  await db.schema.alterTable('jobs').addColumn('locked_until', 'text').execute();
  // Runs of a bulk order's job, counted on the order itself: the last try is known whatever the queue engine counted.
  await db.schema
    .alterTable('bulk_orders')
    .addColumn('job_attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('orders_claimable').execute();
  await db.schema.alterTable('orders').dropColumn('claimed_until').execute();
  await db.schema.alterTable('jobs').dropColumn('locked_until').execute();
  await db.schema.alterTable('bulk_orders').dropColumn('job_attempts').execute();
}
