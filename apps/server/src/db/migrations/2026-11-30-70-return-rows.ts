import type { Kysely } from 'kysely';

/**
 * A return label made on its own (a CSV row or an API order with Return: yes) has no original order to name, so the
 * label's being a return is a column of its own: orders.is_return (1: a return, bought upstream as one), set too for
 * the returns of orders (return_of). The returns made before it are marked.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('orders')
    .addColumn('is_return', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.updateTable('orders').set({ is_return: 1 }).where('return_of', 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').dropColumn('is_return').execute();
}
