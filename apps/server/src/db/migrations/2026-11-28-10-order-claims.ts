import { sql, type Kysely } from 'kysely';

/**
 * orders.claims: how many times a process took a waiting order to ask the label provider about it, counted by the
 * statement that takes it (or, for an order written already held, its insert), so it is committed before the ask.
 * An order taken a second time may have had its label bought by a process that died before recording it: the
 * provider is asked for that label by the order's id before anything is bought again.
 *
 * A waiting order some process holds or held may have been asked about already: it starts at 1.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('orders')
    .addColumn('claims', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`update orders set claims = 1 where status in ('pending', 'processing') and claimed_until is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').dropColumn('claims').execute();
}
