// The operator console's read model: counts, sums and lists over every customer's rows. It only
// reads; every change goes through the service that owns the rows (auth, billing, catalog, content,
// orders), which writes the audit row in the same transaction.
import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import { containsText } from '../../db/like.ts';
import type { AuditLogTable } from '../../db/schema.ts';

/** A time range on created_at: from inclusive, to exclusive (ISO strings). */
export type TimeRange = { from?: string; to?: string };
export type Page = { offset: number; limit: number };

/** The ids of the user a filter names: a user id or a Telegram username (with or without @, any case). */
const usersNamed = (db: DbOrTrx, ref: string) =>
  db
    .selectFrom('users')
    .select('id')
    .where((eb) => eb.or([eb('id', '=', ref), eb('tg_id_lower', '=', ref.replace(/^@/, '').toLowerCase())]));

// ---- Overview ---------------------------------------------------------------------------------

/** Users, users active since `activeSince`, and the sum of all balances (on SQLite read from the (last_active_at, balance_cents) index alone). */
export async function userTotals(db: DbOrTrx, activeSince: string): Promise<{ users: number; active: number; balanceCents: number }> {
  const all = await db
    .selectFrom('users')
    .select((eb) => [eb.fn.countAll<number>().as('users'), eb.fn.coalesce(eb.fn.sum<number>('balance_cents'), sql<number>`0`).as('balance')])
    .executeTakeFirstOrThrow();
  const active = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('last_active_at', '>=', activeSince)
    .executeTakeFirstOrThrow();
  return { users: Number(all.users), active: Number(active.n), balanceCents: Number(all.balance) };
}

/**
 * Sums of these ledger kinds per day, the days given as their [from, until) bounds in the shop's zone (oldest first):
 * each row is given its day in a subquery, so PostgreSQL and SQLite group the same value (a CASE with parameters in GROUP BY is another expression to PostgreSQL). Read from the (kind, created_at,
 * amount_cents) index alone.
 */
export async function ledgerByDay(
  db: DbOrTrx,
  kinds: string[],
  days: { day: string; from: string; until: string }[],
): Promise<{ day: string; kind: string; cents: number }[]> {
  if (days.length === 0) return [];
  const day = sql<string>`case ${sql.join(
    days.map((d) => sql`when created_at >= ${d.from} and created_at < ${d.until} then ${d.day}`),
    sql` `,
  )} end`;
  const rows = await db
    .selectFrom((qb) =>
      qb
        .selectFrom('ledger')
        .select([day.as('day'), 'kind', 'amount_cents'])
        .where('kind', 'in', kinds)
        .where('created_at', '>=', days[0].from)
        .where('created_at', '<', days.at(-1)!.until)
        .as('stamped'),
    )
    .select((eb) => ['stamped.day', 'stamped.kind', eb.fn.sum<number>('stamped.amount_cents').as('cents')])
    .groupBy(['stamped.day', 'stamped.kind'])
    .execute();
  return rows.map((r) => ({ day: r.day, kind: r.kind, cents: Number(r.cents) }));
}

// ---- Users ------------------------------------------------------------------------------------

const USER_COLUMNS = ['id', 'username', 'tg_id', 'email', 'email_verified', 'role', 'disabled_at', 'balance_cents', 'created_at', 'last_active_at'] as const;

export const findUser = (db: DbOrTrx, id: string) => db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst();
export type AdminUserRow = NonNullable<Awaited<ReturnType<typeof findUser>>>;

/** Users whose name, Telegram username or email holds the search, newest first. */
export async function listUsers(db: DbOrTrx, search: string | undefined, page: Page): Promise<{ rows: AdminUserRow[]; total: number }> {
  let query = db.selectFrom('users');
  if (search) {
    const term = search.replace(/^@/, '');
    query = query.where((eb) => eb.or([containsText('username', term), containsText('tg_id_lower', term), containsText('email', term)]));
  }
  const rows = await query.select(USER_COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute();
  const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}

/** Id, Telegram username and name of these users (who a listed row belongs to). */
export const userRefs = (db: DbOrTrx, ids: string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('users')
        .select(['id', 'tg_id', 'username'])
        .where('id', 'in', [...new Set(ids)])
        .execute();

// ---- Orders, bulk orders, invoices ------------------------------------------------------------

export type OrderListFilter = {
  search?: string;
  status?: 'pending' | 'processing' | 'completed' | 'cancelled';
  type?: string;
  user?: string;
} & TimeRange;

/** The ids of the user a filter names (a user id or a Telegram username): none, one, or two. */
export const userIdsNamed = async (db: DbOrTrx, ref: string): Promise<string[]> => (await usersNamed(db, ref).execute()).map((u) => u.id);

/** Every customer's bulk (CSV) orders, newest first. */
export async function listBulkOrders(db: DbOrTrx, filter: { status?: string; user?: string }, page: Page) {
  let query = db.selectFrom('bulk_orders');
  if (filter.status) query = query.where('status', '=', filter.status as 'processing' | 'completed');
  if (filter.user) query = query.where('user_id', 'in', usersNamed(db, filter.user));
  const rows = await query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute();
  const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}

/** Every customer's invoices, newest first. A pending invoice past its time counts as expired (as the customer's list shows it). */
export async function listInvoices(db: DbOrTrx, filter: { status?: string; user?: string; now: string }, page: Page) {
  let query = db.selectFrom('invoices');
  if (filter.status === 'pending') query = query.where('status', '=', 'pending').where('expires_at', '>', filter.now);
  else if (filter.status === 'expired')
    query = query.where((eb) => eb.or([eb('status', '=', 'expired'), eb.and([eb('status', '=', 'pending'), eb('expires_at', '<=', filter.now)])]));
  else if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.user) query = query.where('user_id', 'in', usersNamed(db, filter.user));
  const rows = await query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute();
  const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}

// ---- Audit log and outbox ---------------------------------------------------------------------

export const insertAudit = (db: DbOrTrx, row: AuditLogTable) => db.insertInto('audit_log').values(row).execute();

export type AuditFilter = { admin?: string; target?: string } & TimeRange;

/** Audit rows, newest first, with the admin who made each (null: the command line). */
export async function listAudit(db: DbOrTrx, filter: AuditFilter, page: Page) {
  let query = db.selectFrom('audit_log');
  if (filter.admin) query = query.where('admin_id', 'in', usersNamed(db, filter.admin));
  if (filter.target) {
    const target = filter.target;
    query = query.where((eb) => eb.or([eb('target_id', '=', target), eb('target_type', '=', target)]));
  }
  if (filter.from) query = query.where('created_at', '>=', filter.from);
  if (filter.to) query = query.where('created_at', '<', filter.to);
  const rows = await query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute();
  const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}

/** Mails kept by the outbox mailer (no SMTP_URL), newest first. */
export async function listOutbox(db: DbOrTrx, page: Page) {
  const rows = await db
    .selectFrom('outbox_mail')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  const count = await db
    .selectFrom('outbox_mail')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}

/**
 * Labels bought upstream and completed since `since`, net of those voided (refunded: the customer has the price back,
 * the shop its cost): how many, their upstream cost (insurance included) and their price, in cents; and of those, the
 * insured ones: how many, the insurance sold and what it cost upstream.
 */
export async function upstreamTotals(
  db: DbOrTrx,
  since: string,
): Promise<{ labels: number; costCents: number; priceCents: number; insured: number; insuranceCents: number; insuranceCostCents: number }> {
  const row = await db
    .selectFrom('orders')
    .select((eb) => [
      eb.fn.countAll().as('labels'),
      eb.fn.sum<number>(sql`upstream_cost_cents + coalesce(insurance_cost_cents, 0)`).as('cost'),
      eb.fn.sum<number>('price_cents').as('price'),
      eb.fn.count('insured_cents').as('insured'),
      eb.fn.sum<number>('insurance_cents').as('insurance'),
      eb.fn.sum<number>('insurance_cost_cents').as('insurance_cost'),
    ])
    .where('status', '=', 'completed')
    .where('created_at', '>=', since)
    .where('upstream_cost_cents', 'is not', null)
    .where((eb) => eb.or([eb('refund_status', 'is', null), eb('refund_status', '<>', 'refunded')]))
    .executeTakeFirstOrThrow();
  return {
    labels: Number(row.labels),
    costCents: Number(row.cost ?? 0),
    priceCents: Number(row.price ?? 0),
    insured: Number(row.insured),
    insuranceCents: Number(row.insurance ?? 0),
    insuranceCostCents: Number(row.insurance_cost ?? 0),
  };
}
