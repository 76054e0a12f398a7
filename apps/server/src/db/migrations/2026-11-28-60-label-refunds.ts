import { sql, type Kysely } from 'kysely';

/**
 * A completed label's refund (void), beside its status: refund_status requested -> refunded | rejected (with
 * refund_note). refund_due_at: when the refund sweep next asks the label provider (also the claim of the process that
 * asks, as claimed_until is for labels); refund_claims counts the takes, so a take after a crash asks the upstream
 * what it did before asking again; refund_upstream is the upstream's last answer (EasyPost's refund_status).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').addColumn('refund_status', 'text').execute();
  await db.schema.alterTable('orders').addColumn('refund_note', 'text').execute();
  await db.schema.alterTable('orders').addColumn('refund_requested_at', 'text').execute();
  await db.schema.alterTable('orders').addColumn('refund_updated_at', 'text').execute();
  await db.schema.alterTable('orders').addColumn('refund_due_at', 'text').execute();
  await db.schema
    .alterTable('orders')
    .addColumn('refund_claims', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('orders').addColumn('refund_upstream', 'text').execute();
  // The sweep's and the console's reads: the few orders with a refund, by state and time.
  await db.schema
    .createIndex('orders_refund')
    .on('orders')
    .columns(['refund_status', 'refund_due_at'])
    .where(sql.ref('refund_status'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('orders_refund').execute();
  for (const column of ['refund_upstream', 'refund_claims', 'refund_due_at', 'refund_updated_at', 'refund_requested_at', 'refund_note', 'refund_status'])
    await db.schema.alterTable('orders').dropColumn(column).execute();
}
