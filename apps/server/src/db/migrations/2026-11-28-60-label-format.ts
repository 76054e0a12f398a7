import type { Kysely } from 'kysely';

/** The label file format each customer chose in Account Setting (pdf, pdf-letter or zpl); downloads follow it. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('label_format', 'text', (col) => col.notNull().defaultTo('pdf'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('label_format').execute();
}
