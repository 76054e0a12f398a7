import type { Kysely } from 'kysely';

/**
 * Insurance bought with a label (issue 51, part 2): the declared value insured (cents, null when none), what the
 * customer paid for it (cents, a part of price_cents: every refund of the order gives it back with the label) and what
 * the upstream charged for it (cents, once bought).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').addColumn('insured_cents', 'integer').execute();
  await db.schema
    .alterTable('orders')
    .addColumn('insurance_cents', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('orders').addColumn('insurance_cost_cents', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').dropColumn('insurance_cost_cents').execute();
  await db.schema.alterTable('orders').dropColumn('insurance_cents').execute();
  await db.schema.alterTable('orders').dropColumn('insured_cents').execute();
}
