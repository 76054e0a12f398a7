import type { DbOrTrx } from '../../db/database.ts';
import type { QuotesTable } from '../../db/schema.ts';

export type QuoteRow = QuotesTable;

export const insertQuote = (db: DbOrTrx, row: QuoteRow) => db.insertInto('quotes').values(row).execute();

/** The user's own quote, or undefined (another user's is not found). */
export const findOwnQuote = (db: DbOrTrx, userId: string, id: string) =>
  db.selectFrom('quotes').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();

/** Gives the quote to one order, if it is still unused and unexpired at `now`: false otherwise. */
export async function useQuote(db: DbOrTrx, id: string, orderId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('quotes')
    .set({ order_id: orderId })
    .where('id', '=', id)
    .where('order_id', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes quotes that expired before `before` and were never used (a used one stays with its order). */
export async function deleteExpiredQuotes(db: DbOrTrx, before: string): Promise<number> {
  const result = await db.deleteFrom('quotes').where('expires_at', '<', before).where('order_id', 'is', null).executeTakeFirst();
  return Number(result.numDeletedRows);
}
