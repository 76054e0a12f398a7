import type { DbOrTrx } from '../../db/database.ts';
import type { RecipientMailsTable } from '../../db/schema.ts';

// The SQL of the recipient's side of a label: its public tracking page (orders.tracking_token) and its status mails.

/** What the public page shows of a label, found by its token: never a name, street, ZIP, phone or price. */
export const findByToken = (db: DbOrTrx, token: string) =>
  db
    .selectFrom('orders')
    .select([
      'id',
      'user_id',
      'label_type_uid',
      'label_type_name',
      'upstream_carrier',
      'tracking',
      'tracking_status',
      'refund_status',
      'from_city',
      'from_state',
      'to_city',
      'to_state',
      'ship_date',
      'created_at',
      'quote_id',
      'to_email',
    ])
    .where('tracking_token', '=', token)
    .where('status', '=', 'completed')
    .executeTakeFirst();
export type TrackedLabel = NonNullable<Awaited<ReturnType<typeof findByToken>>>;

/** The tracking statuses told about an order, oldest first. */
export const trackingHistory = (db: DbOrTrx, orderId: string) =>
  db.selectFrom('tracking_events').select(['status', 'received_at']).where('order_id', '=', orderId).orderBy('received_at').orderBy('id').execute();

/** The orders whose recipient may be mailed: a ToEmail, the customer turned recipient mails on, and not unsubscribed. */
export const mailableOrders = (db: DbOrTrx, ids: string[]) =>
  db
    .selectFrom('orders')
    .innerJoin('users', 'users.id', 'orders.user_id')
    .select([
      'orders.id',
      'orders.user_id',
      'orders.to_email',
      'orders.tracking_token',
      'orders.label_type_uid',
      'orders.label_type_name',
      'orders.upstream_carrier',
      'orders.tracking',
      'orders.refund_status',
    ])
    .where('orders.id', 'in', ids)
    .where('orders.to_email', 'is not', null)
    .where('users.recipient_emails', '=', 1)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('recipient_unsubscribes')
            .select('recipient_unsubscribes.email')
            .whereRef('recipient_unsubscribes.user_id', '=', 'orders.user_id')
            .whereRef('recipient_unsubscribes.email', '=', 'orders.to_email'),
        ),
      ),
    )
    .execute();

/** Records mails, each once per order and status: answers the ids inserted (a mail recorded before keeps its row). */
export async function insertMails(db: DbOrTrx, rows: RecipientMailsTable[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = await db
    .insertInto('recipient_mails')
    .values(rows)
    .onConflict((oc) => oc.columns(['order_id', 'status']).doNothing())
    .returning('id')
    .execute();
  return inserted.map((row) => row.id);
}

/** The mails of these orders and statuses recorded and never tried (a process stopped before queueing them). */
export const untriedMails = (db: DbOrTrx, keys: { orderId: string; status: string }[]) =>
  db
    .selectFrom('recipient_mails')
    .select('id')
    .where((eb) => eb.or(keys.map((k) => eb.and([eb('order_id', '=', k.orderId), eb('status', '=', k.status)]))))
    .where('state', '=', 'pending')
    .execute();

/** Mails waiting to be sent (never tried, or to be tried again) recorded before `before`. */
export const waitingMails = (db: DbOrTrx, before: string, limit: number) =>
  db
    .selectFrom('recipient_mails')
    .select('id')
    .where('state', 'in', ['pending', 'retrying'])
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit)
    .execute();

export const findMail = (db: DbOrTrx, id: string) => db.selectFrom('recipient_mails').selectAll().where('id', '=', id).executeTakeFirst();

/**
 * Takes a mail to send it: one run alone moves it from pending or retrying to sending. A run that dies while sending
 * leaves it there, and nothing takes it again: a status is mailed at most once.
 */
export async function takeMail(db: DbOrTrx, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('recipient_mails')
    .set({ state: 'sending', updated_at: at })
    .where('id', '=', id)
    .where('state', 'in', ['pending', 'retrying'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const updateMail = (
  db: DbOrTrx,
  id: string,
  changes: Partial<Pick<RecipientMailsTable, 'state' | 'attempts' | 'last_error' | 'sent_at' | 'updated_at'>>,
) => db.updateTable('recipient_mails').set(changes).where('id', '=', id).execute();

/** The order a mail is about, when its recipient may still be mailed (setting on, not unsubscribed). */
export const mailOrder = async (db: DbOrTrx, orderId: string) => (await mailableOrders(db, [orderId]))[0];

/** The recipient address asks this customer's labels to mail it no more (kept once). */
export const unsubscribe = (db: DbOrTrx, userId: string, email: string, at: string) =>
  db
    .insertInto('recipient_unsubscribes')
    .values({ user_id: userId, email, created_at: at })
    .onConflict((oc) => oc.columns(['user_id', 'email']).doNothing())
    .execute();
