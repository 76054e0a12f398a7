import type { DbOrTrx } from '../../db/database.ts';
import type { FaqsTable } from '../../db/schema.ts';

export type FaqRow = FaqsTable;

// ---- content: one value a key (the terms, the announcement, the FedEx price) ----

export async function readContent(db: DbOrTrx, key: string): Promise<string | undefined> {
  return (await db.selectFrom('content').select('value').where('key', '=', key).executeTakeFirst())?.value;
}

export const writeContent = (db: DbOrTrx, key: string, value: string) =>
  db
    .insertInto('content')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();

/** Writes the value only when the key has none yet. */
export const insertContentIfMissing = (db: DbOrTrx, key: string, value: string) =>
  db
    .insertInto('content')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();

// ---- FAQs, in their position order ----

export const listFaqs = (db: DbOrTrx) => db.selectFrom('faqs').selectAll().orderBy('position').execute();

export const findFaq = (db: DbOrTrx, id: string) => db.selectFrom('faqs').selectAll().where('id', '=', id).executeTakeFirst();

export async function countFaqs(db: DbOrTrx): Promise<number> {
  const row = await db
    .selectFrom('faqs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The last FAQ's position, or -1 when there is none. */
export async function lastFaqPosition(db: DbOrTrx): Promise<number> {
  const row = await db
    .selectFrom('faqs')
    .select((eb) => eb.fn.max('position').as('p'))
    .executeTakeFirst();
  return Number(row?.p ?? -1);
}

export const insertFaqs = (db: DbOrTrx, rows: FaqRow[]) => db.insertInto('faqs').values(rows).execute();

export const updateFaq = (db: DbOrTrx, id: string, fields: Partial<Omit<FaqRow, 'id'>>) => db.updateTable('faqs').set(fields).where('id', '=', id).execute();

export const deleteFaq = (db: DbOrTrx, id: string) => db.deleteFrom('faqs').where('id', '=', id).execute();
