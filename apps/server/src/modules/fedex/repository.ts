import type { DbOrTrx } from '../../db/database.ts';
import { containsText } from '../../db/like.ts';
import type { FedexOrdersTable } from '../../db/schema.ts';

export type FedexOrderRow = FedexOrdersTable;
/** An order with who placed it, as the operator's queue lists it. */
export type FedexOrderWithOwner = FedexOrderRow & { owner_tg_id: string; owner_username: string };

export const insertFedexOrder = (trx: DbOrTrx, order: FedexOrderRow) => trx.insertInto('fedex_orders').values(order).execute();

/** The order if it belongs to this user; another user's order is not found. */
export const findOwnFedexOrder = (db: DbOrTrx, userId: string, id: string) =>
  db.selectFrom('fedex_orders').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();

export const findFedexOrder = (db: DbOrTrx, id: string) => db.selectFrom('fedex_orders').selectAll().where('id', '=', id).executeTakeFirst();

export type FedexFilter = { search: string; page: number; limit: number };

/** The user's orders, newest first; search is case-insensitive over the id, both names and both cities. */
export async function listOwnFedexOrders(db: DbOrTrx, userId: string, filter: FedexFilter): Promise<{ rows: FedexOrderRow[]; total: number }> {
  let query = db.selectFrom('fedex_orders').where('user_id', '=', userId);
  if (filter.search) {
    const search = filter.search;
    query = query.where((eb) => eb.or(['id', 'from_name', 'to_name', 'from_city', 'to_city'].map((column) => containsText(column, search))));
  }
  const rows = await query
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .offset((filter.page - 1) * filter.limit)
    .execute();
  const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}

/** The statuses of an operator's list: the queue (pending) or the history (done: completed and cancelled). */
const STATUSES_OF: Record<'pending' | 'done', FedexOrderRow['status'][]> = { pending: ['pending'], done: ['completed', 'cancelled'] };

/** Orders with their owners: the queue (pending) oldest first, or the history (completed and cancelled) newest first. */
export async function listFedexOrdersIn(
  db: DbOrTrx,
  state: keyof typeof STATUSES_OF,
  page: number,
  limit: number,
): Promise<{ rows: FedexOrderWithOwner[]; total: number }> {
  const direction = state === 'pending' ? 'asc' : 'desc';
  const rows = await db
    .selectFrom('fedex_orders')
    .innerJoin('users', 'users.id', 'fedex_orders.user_id')
    .selectAll('fedex_orders')
    .select(['users.tg_id as owner_tg_id', 'users.username as owner_username'])
    .where('fedex_orders.status', 'in', STATUSES_OF[state])
    .orderBy('fedex_orders.created_at', direction)
    .orderBy('fedex_orders.id', direction)
    .limit(limit)
    .offset((page - 1) * limit)
    .execute();
  return { rows, total: await countFedexOrdersIn(db, STATUSES_OF[state]) };
}

async function countFedexOrdersIn(db: DbOrTrx, statuses: FedexOrderRow['status'][]): Promise<number> {
  const row = await db
    .selectFrom('fedex_orders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', 'in', statuses)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const countPendingFedexOrders = (db: DbOrTrx): Promise<number> => countFedexOrdersIn(db, ['pending']);

/** Moves a pending order to completed with its label; false when it was no longer pending (another operator acted first). */
export async function markFedexCompleted(db: DbOrTrx, id: string, done: { fileKey: string; note: string | null; at: string }): Promise<boolean> {
  const result = await db
    .updateTable('fedex_orders')
    .set({ status: 'completed', file_key: done.fileKey, note: done.note, updated_at: done.at })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Moves a pending order to cancelled; false when it was no longer pending, so it is refunded at most once. */
export async function markFedexCancelled(db: DbOrTrx, id: string, note: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('fedex_orders')
    .set({ status: 'cancelled', note, updated_at: at })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
