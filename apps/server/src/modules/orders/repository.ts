import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import type { OrdersTable } from '../../db/schema.ts';

export type OrderRow = OrdersTable;
type Status = OrdersTable['status'];
const WAITING: Status[] = ['pending', 'processing'];

/** The columns the order history (and the console's order list) shows. */
export const LIST_COLUMNS = [
  'id',
  'user_id',
  'label_type_uid',
  'label_type_name',
  'design',
  'from_name',
  'to_name',
  'weight',
  'price_cents',
  'status',
  'tracking',
  'pdf_key',
  'note',
  'created_at',
] as const;
export type OrderListRow = Pick<OrderRow, (typeof LIST_COLUMNS)[number]>;

/** Inserts the order and counts it in the user's total, in the caller's transaction. */
export async function insertOrder(trx: DbOrTrx, order: OrderRow): Promise<void> {
  await trx.insertInto('orders').values(order).execute();
  await trx
    .insertInto('order_counts')
    .values({ user_id: order.user_id, total: 1 })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ total: sql`order_counts.total + 1` }))
    .execute();
}

/** Rows of one multi-row insert: SQLite binds at most 32,766 values, and an order has about 40. */
const INSERT_CHUNK = 200;

/** Inserts many orders (a bulk order's rows) and counts them in their user's total, in the caller's transaction. */
export async function insertOrders(trx: DbOrTrx, orders: OrderRow[]): Promise<void> {
  if (orders.length === 0) return;
  for (let i = 0; i < orders.length; i += INSERT_CHUNK) await trx.insertInto('orders').values(orders.slice(i, i + INSERT_CHUNK)).execute();
  await trx
    .insertInto('order_counts')
    .values({ user_id: orders[0].user_id, total: orders.length })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ total: sql`order_counts.total + ${orders.length}` }))
    .execute();
}

/** The order if it belongs to this user; another user's order is not found. */
export const findOwnOrder = (db: DbOrTrx, userId: string, id: string) =>
  db.selectFrom('orders').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();

export type OrderFilter = { search: string; status: 'all' | Status; sort: 'asc' | 'desc'; page: number; limit: number };

export async function listOwnOrders(db: DbOrTrx, userId: string, filter: OrderFilter): Promise<{ rows: OrderListRow[]; total: number }> {
  let query = db.selectFrom('orders').where('user_id', '=', userId);
  if (filter.status !== 'all') query = query.where('status', '=', filter.status);
  if (filter.search) {
    // Case-insensitive on both dialects; the user's own % and _ match themselves.
    const term = filter.search.toLowerCase().replace(/[\\%_]/g, '\\$&');
    const contains = `%${term}%`;
    query = query.where((eb) =>
      eb.or([
        sql<boolean>`lower(from_name) like ${contains} escape '\\'`,
        sql<boolean>`lower(to_name) like ${contains} escape '\\'`,
        sql<boolean>`lower(tracking) like ${contains} escape '\\'`,
        sql<boolean>`id like ${`${term}%`} escape '\\'`,
      ]),
    );
  }
  const rows = await query
    .select(LIST_COLUMNS)
    .orderBy('created_at', filter.sort)
    .orderBy('id', filter.sort)
    .limit(filter.limit)
    .offset((filter.page - 1) * filter.limit)
    .execute();
  // Unfiltered, the total is the kept count: counting a heavy user's rows would cost more than the page itself.
  const count =
    filter.status === 'all' && !filter.search
      ? await db.selectFrom('order_counts').select('total as n').where('user_id', '=', userId).executeTakeFirst()
      : await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(count?.n ?? 0) };
}

/** Moves a waiting order to completed; false when it was no longer waiting. */
export async function markCompleted(db: DbOrTrx, id: string, done: { tracking: string; pdfKey: string; at: string }): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set({ status: 'completed', tracking: done.tracking, pdf_key: done.pdfKey, provider_ref: null, updated_at: done.at })
    .where('id', '=', id)
    .where('status', 'in', WAITING)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * The ledger rows an order caused, oldest first: a single order's charge and refund (referenced by
 * its id); a bulk row's refund (referenced as bulk order id:row; its charge is the bulk order's).
 */
export function ledgerOfOrder(db: DbOrTrx, order: Pick<OrderRow, 'id' | 'user_id' | 'bulk_order_id' | 'bulk_row'>) {
  const references = [order.id, ...(order.bulk_order_id ? [`${order.bulk_order_id}:${order.bulk_row}`] : [])];
  return db.selectFrom('ledger').selectAll().where('user_id', '=', order.user_id).where('reference', 'in', references).orderBy('created_at').orderBy('id').execute();
}

/** Any customer's order (the operator console), or undefined. */
export const findOrder = (db: DbOrTrx, id: string) => db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();

/** The provider makes the label later: the order is processing, and due for a check at `checkAt`. */
export const markProcessing = (db: DbOrTrx, id: string, providerRef: string, at: string, checkAt: string) =>
  db.updateTable('orders').set({ status: 'processing', provider_ref: providerRef, updated_at: at, claimed_until: checkAt }).where('id', '=', id).where('status', 'in', WAITING).execute();

/** Cancels a waiting order; false when it was no longer waiting (so it is refunded at most once). */
export async function cancelOrder(db: DbOrTrx, id: string, note: string, at: string): Promise<boolean> {
  const result = await db.updateTable('orders').set({ status: 'cancelled', note, updated_at: at }).where('id', '=', id).where('status', 'in', WAITING).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Takes a waiting order until `until`: only the holder asks the provider about it, so two processes
 * never buy the same label. Undefined when another process holds it or it is no longer waiting.
 */
export const claimOrder = (db: DbOrTrx, id: string, until: string, now: string): Promise<OrderRow | undefined> =>
  db
    .updateTable('orders')
    .set({ claimed_until: until })
    .where('id', '=', id)
    .where('status', 'in', WAITING)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .returningAll()
    .executeTakeFirst();

/** Takes, in one statement, the waiting orders among `ids` that nobody holds, until `until`; answers those taken. */
export const claimOrders = (db: DbOrTrx, ids: string[], until: string, now: string): Promise<OrderRow[]> =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .updateTable('orders')
        .set({ claimed_until: until })
        .where('id', 'in', ids)
        .where('status', 'in', WAITING)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
        .returningAll()
        .execute();

/** Lets go of claims this process holds (its attempt failed); anyone may take the orders again. */
export const releaseOrders = (db: DbOrTrx, ids: string[]) =>
  ids.length === 0 ? Promise.resolve() : db.updateTable('orders').set({ claimed_until: null }).where('id', 'in', ids).where('status', 'in', WAITING).execute().then(() => {});

/** Lets go of a claim this process holds (its attempt failed); anyone may take the order again. */
export const releaseOrder = (db: DbOrTrx, id: string) => db.updateTable('orders').set({ claimed_until: null }).where('id', '=', id).execute();

/** A processing order is not due for another check before `at`. */
export const checkAgainAt = (db: DbOrTrx, id: string, at: string) =>
  db.updateTable('orders').set({ claimed_until: at }).where('id', '=', id).where('status', '=', 'processing').execute();

/** Single orders still waiting whose claim has run out (a bulk order's rows are its job's to finish), longest waiting first. */
export const claimableOrders = (db: DbOrTrx, now: string, limit: number) =>
  db
    .selectFrom('orders')
    .selectAll()
    .where('status', 'in', WAITING)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .where('bulk_order_id', 'is', null)
    .orderBy('claimed_until')
    .limit(limit)
    .execute();
