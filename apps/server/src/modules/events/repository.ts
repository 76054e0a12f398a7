import type { DbOrTrx } from '../../db/database.ts';

/** The oldest events written before `before`, at most `limit`. */
export const eventsBefore = (db: DbOrTrx, before: string, limit: number) =>
  db.selectFrom('shop_events').selectAll().where('created_at', '<', before).orderBy('created_at').limit(limit).execute();

/** Events whose deliveries and messages are recorded. */
export async function deleteEvents(db: DbOrTrx, ids: string[]): Promise<void> {
  if (ids.length > 0) await db.deleteFrom('shop_events').where('id', 'in', ids).execute();
}
