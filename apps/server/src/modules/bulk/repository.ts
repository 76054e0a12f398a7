import type { DbOrTrx } from '../../db/database.ts';
import type { BulkOrdersTable } from '../../db/schema.ts';

export type BulkOrderRow = BulkOrdersTable;

export const insertBulkOrder = (trx: DbOrTrx, row: BulkOrderRow) => trx.insertInto('bulk_orders').values(row).execute();

export const findBulkOrder = (db: DbOrTrx, id: string) => db.selectFrom('bulk_orders').selectAll().where('id', '=', id).executeTakeFirst();

/** The bulk order of this job id if it belongs to this user. */
export const findOwnBulkOrderByJob = (db: DbOrTrx, userId: string, jobId: string) =>
  db.selectFrom('bulk_orders').selectAll().where('job_id', '=', jobId).where('user_id', '=', userId).executeTakeFirst();

/** The bulk order if it belongs to this user; another user's is not found. */
export const findOwnBulkOrder = (db: DbOrTrx, userId: string, id: string) =>
  db.selectFrom('bulk_orders').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();

export const listOwnBulkOrders = (db: DbOrTrx, userId: string, limit: number) =>
  db.selectFrom('bulk_orders').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();

/** The orders a bulk order's rows became, in file order. */
export const bulkRows = (db: DbOrTrx, bulkOrderId: string) =>
  db.selectFrom('orders').selectAll().where('bulk_order_id', '=', bulkOrderId).orderBy('bulk_row').execute();

/** Whether a row of the bulk order has its refund asked or made (its label then leaves the bulk order's files). */
export const hasRefundHeldRows = async (db: DbOrTrx, bulkOrderId: string) =>
  !!(await db
    .selectFrom('orders')
    .select('id')
    .where('bulk_order_id', '=', bulkOrderId)
    .where('refund_status', 'in', ['requested', 'refunded'])
    .limit(1)
    .executeTakeFirst());

/** The rows of a bulk order still waiting for their label (pending or processing). */
export const findBulkRow = (db: DbOrTrx, id: string) => db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();

export const waitingBulkRows = (db: DbOrTrx, bulkOrderId: string) =>
  db.selectFrom('orders').selectAll().where('bulk_order_id', '=', bulkOrderId).where('status', 'in', ['pending', 'processing']).orderBy('bulk_row').execute();

/** Ids of the labels made so far in these bulk orders, in file order. */
export const madeOrderIds = (db: DbOrTrx, bulkOrderIds: string[]) =>
  bulkOrderIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('orders')
        .select(['id', 'bulk_order_id'])
        .where('bulk_order_id', 'in', bulkOrderIds)
        .where('status', '=', 'completed')
        .orderBy('bulk_order_id')
        .orderBy('bulk_row')
        .execute();

/** A bulk order's rows by status: how many, and what they cost (one grouped count, not the rows: job status is polled). */
export const rowStatusTotals = (db: DbOrTrx, bulkOrderId: string) =>
  db
    .selectFrom('orders')
    .select((eb) => ['status', eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('price_cents').as('cents')])
    .where('bulk_order_id', '=', bulkOrderId)
    .groupBy('status')
    .execute();

/** Failed rows and their refunded prices of bulk orders still running (a completed one keeps its own figures). */
export const failedRowTotals = (db: DbOrTrx, bulkOrderIds: string[]) =>
  bulkOrderIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('orders')
        .select((eb) => ['bulk_order_id', eb.fn.countAll<number>().as('failed'), eb.fn.sum<number>('price_cents').as('refunded')])
        .where('bulk_order_id', 'in', bulkOrderIds)
        .where('status', '=', 'cancelled')
        .groupBy('bulk_order_id')
        .execute();

/** Counts one more run of the bulk order's job and answers how many there have been. */
export async function countJobAttempt(db: DbOrTrx, id: string, at: string): Promise<number> {
  const row = await db
    .updateTable('bulk_orders')
    .set((eb) => ({ job_attempts: eb('job_attempts', '+', 1), updated_at: at }))
    .where('id', '=', id)
    .returning('job_attempts')
    .executeTakeFirst();
  return Number(row?.job_attempts ?? 0);
}

export const setProgress = (db: DbOrTrx, id: string, progress: number, at: string) =>
  db.updateTable('bulk_orders').set({ progress, updated_at: at }).where('id', '=', id).where('status', '=', 'processing').execute();

export async function markBulkFinished(
  db: DbOrTrx,
  id: string,
  done: {
    status: 'completed' | 'failed';
    reportKey: string | null;
    pdfKey: string | null;
    zipKey: string | null;
    made: number;
    failed: number;
    refundedCents: number;
    note: string | null;
    at: string;
  },
): Promise<void> {
  await db
    .updateTable('bulk_orders')
    .set({
      status: done.status,
      progress: 100,
      report_key: done.reportKey,
      pdf_key: done.pdfKey,
      zip_key: done.zipKey,
      made_orders: done.made,
      failed_orders: done.failed,
      refunded_cents: done.refundedCents,
      note: done.note,
      updated_at: done.at,
      completed_at: done.at,
    })
    .where('id', '=', id)
    .execute();
}

/** Bulk orders still processing that nothing has moved since `before`. */
export const stalledBulkOrders = (db: DbOrTrx, before: string, limit: number) =>
  db
    .selectFrom('bulk_orders')
    .select(['id', 'job_id'])
    .where('status', '=', 'processing')
    .where('updated_at', '<', before)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
