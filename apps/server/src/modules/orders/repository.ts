import { ORDER_STATUSES } from '@portal/contract';
import { sql, type RawBuilder } from 'kysely';
import { isPostgres, type Db, type DbOrTrx } from '../../db/database.ts';
import type { OrdersTable, ShopEventsTable } from '../../db/schema.ts';
import { recordEvents } from '../../lib/shop-events.ts';
import { searchedOrders, type OrdersQuery } from './order-search.ts';

export type OrderRow = OrdersTable;
type Status = OrdersTable['status'];
export const WAITING: Status[] = ['pending', 'processing'];

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
  'tracking_status',
  'pdf_key',
  'note',
  'created_at',
  'refund_status',
  'refund_note',
  'ship_date',
  'reference1',
  'reference2',
  'scan_form_id',
  'pickup_id',
  'tracking_token',
  'return_of',
  'return_order_id',
  'is_return',
  'insured_cents',
  'insurance_cents',
] as const;
export type OrderListRow = Pick<OrderRow, (typeof LIST_COLUMNS)[number]>;

/** Rows of one multi-row insert: SQLite binds at most 32,766 values, and an order has about 70. */
const INSERT_CHUNK = 200;

/** Inserts many orders (a bulk order's rows), in the caller's transaction. */
export async function insertOrders(trx: DbOrTrx, orders: OrderRow[]): Promise<void> {
  for (let i = 0; i < orders.length; i += INSERT_CHUNK)
    await trx
      .insertInto('orders')
      .values(orders.slice(i, i + INSERT_CHUNK))
      .execute();
}

/** The balance of each of these customers (to refuse an order before its label is made; the charge decides). */
export const balancesOf = (db: DbOrTrx, userIds: string[]) => db.selectFrom('users').select(['id', 'balance_cents']).where('id', 'in', userIds).execute();

/** The order if it belongs to this user; another user's order is not found. */
export const findOwnOrder = (db: DbOrTrx, userId: string, id: string) =>
  db.selectFrom('orders').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();

/** The user's own orders among `ids` (others' and unknown ids are left out). */
export const findOwnOrders = (db: DbOrTrx, userId: string, ids: string[]) =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('orders').selectAll().where('id', 'in', ids).where('user_id', '=', userId).execute();

/** What an order shows of the pickups it is on, by pickup id: one read for a page of orders. */
export const pickupsByIds = (db: DbOrTrx, ids: string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db.selectFrom('pickups').select(['id', 'status', 'confirmation', 'min_datetime', 'max_datetime']).where('id', 'in', ids).execute();

export type OrderFilter = { search: string; status: 'all' | Status; sort: 'asc' | 'desc'; page: number; limit: number };

export async function listOwnOrders(db: DbOrTrx, userId: string, filter: OrderFilter): Promise<{ rows: OrderListRow[]; total: number }> {
  let query = await searchedOrders(db, filter.search, userId);
  if (filter.status !== 'all') query = query.where('status', '=', filter.status);
  const offset = (filter.page - 1) * filter.limit;
  if (filter.search) return searchPage(query, filter, offset);
  // The total is the kept count: counting a heavy user's rows would cost more than the page itself.
  const counted = { userId, status: filter.status === 'all' ? undefined : filter.status };
  if (offset <= NEAR_START) return pageWithTotal(db, query, filter, offset, counted);
  const total = await countOrders(db, counted);
  if (offset >= total) return { rows: [], total };
  // A page past the middle is read from the other end, in the opposite order: an offset skips index entries one by
  // one, and a heavy user's last page would skip all but ten of them. (created_at, id) orders the rows totally.
  const fromEnd = offset > total / 2;
  const sort = fromEnd ? (filter.sort === 'asc' ? 'desc' : 'asc') : filter.sort;
  const rows = await query
    .select(LIST_COLUMNS)
    .orderBy('created_at', sort)
    .orderBy('id', sort)
    .limit(fromEnd ? Math.min(filter.limit, total - offset) : filter.limit)
    .offset(fromEnd ? Math.max(0, total - offset - filter.limit) : offset)
    .execute();
  return { rows: fromEnd ? rows.reverse() : rows, total };
}

/**
 * Keyset paging: up to `limit` of the user's orders that follow `after` (one of theirs) in the list's
 * order, and whether more follow. An order created between two pages neither repeats nor hides one,
 * as an offset would. `total` counts every order the filter matches.
 */
export async function listOwnOrdersAfter(
  db: DbOrTrx,
  userId: string,
  filter: OrderFilter,
  after: { created_at: string; id: string },
): Promise<{ rows: OrderListRow[]; total: number; hasMore: boolean }> {
  let query = await searchedOrders(db, filter.search, userId);
  if (filter.status !== 'all') query = query.where('status', '=', filter.status);
  const beyond = filter.sort === 'desc' ? '<' : '>';
  const rows = await query
    .select(LIST_COLUMNS)
    .where((eb) => eb.or([eb('created_at', beyond, after.created_at), eb.and([eb('created_at', '=', after.created_at), eb('id', beyond, after.id)])]))
    .orderBy('created_at', filter.sort)
    .orderBy('id', filter.sort)
    .limit(filter.limit + 1)
    .execute();
  const total = filter.search
    ? Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst())?.n ?? 0)
    : await countOrders(db, { userId, status: filter.status === 'all' ? undefined : filter.status });
  return { rows: rows.slice(0, filter.limit), total, hasMore: rows.length > filter.limit };
}

/** Offsets up to this are read from the start with the total in the same statement; skipping this many index entries costs little. */
const NEAR_START = 1_000;

/**
 * A page near the start with the total beside each row, one round trip to PostgreSQL instead of two (the total's
 * subquery is run once); an empty page is counted on its own.
 */
async function pageWithTotal(db: DbOrTrx, query: OrdersQuery, filter: OrderFilter, offset: number, counted: { userId: string; status?: Status }) {
  const found = await query
    .select(LIST_COLUMNS)
    .select(sql<number | string>`(select ${orderCount(counted)})`.as('total'))
    .orderBy('created_at', filter.sort)
    .orderBy('id', filter.sort)
    .limit(filter.limit)
    .offset(offset)
    .execute();
  if (found.length === 0) return { rows: [], total: await countOrders(db, counted) };
  return { rows: found.map(({ total: _total, ...row }) => row), total: Number(found[0].total) };
}

/**
 * A page of the orders a search found, and how many it found, counted in the same pass (count(*) over ()): the
 * orders found are read whole either way, to be counted. Only a page past the last is counted on its own.
 */
async function searchPage(query: OrdersQuery, filter: OrderFilter, offset: number): Promise<{ rows: OrderListRow[]; total: number }> {
  const rows = await query
    .select(LIST_COLUMNS)
    .select(sql<number>`count(*) over ()`.as('found'))
    .orderBy('created_at', filter.sort)
    .orderBy('id', filter.sort)
    .limit(filter.limit)
    .offset(offset)
    .execute();
  if (rows.length === 0 && offset > 0)
    return { rows: [], total: Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n) };
  return { rows: rows.map(({ found: _found, ...row }) => row), total: rows.length > 0 ? Number(rows[0].found) : 0 };
}

/**
 * Orders of one user (or everyone's), in one status (or all), in one statement: the settled ones from the counts the
 * database keeps (settled_order_counts), the few waiting ones counted on an index.
 */
export async function countOrders(db: DbOrTrx, filter: { userId?: string; status?: Status }): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select ${orderCount(filter)} as n`.execute(db);
  return Number(rows[0].n);
}

/** Every status with its orders (0 when none): the settled ones from the kept counts, the few waiting ones counted on the status index. */
export async function countByStatus(db: DbOrTrx): Promise<Record<Status, number>> {
  const counts = Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0])) as Record<Status, number>;
  const [settled, waiting] = await Promise.all([
    db
      .selectFrom('settled_order_counts')
      .select((eb) => ['status', eb.fn.sum<number>('total').as('n')])
      .groupBy('status')
      .execute(),
    db
      .selectFrom('orders')
      .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
      .where('status', 'in', WAITING)
      .groupBy('status')
      .execute(),
  ]);
  for (const row of [...settled, ...waiting]) counts[row.status as Status] = Number(row.n);
  return counts;
}

/** The console's filters of everyone's orders: all optional; `userIds` the owners to keep. */
export type AllOrdersFilter = { search?: string; status?: Status; type?: string; userIds?: string[]; from?: string; to?: string };

/**
 * Every customer's label orders, newest first (the console). Unfiltered or by status alone, the total comes from
 * countOrders (counting 100,000 rows would cost more than the page).
 */
export async function listAllOrders(
  db: DbOrTrx,
  filter: AllOrdersFilter,
  page: { offset: number; limit: number },
): Promise<{ rows: OrderListRow[]; total: number }> {
  if (filter.userIds?.length === 0) return { rows: [], total: 0 };
  const { status, ...others } = filter;
  const keptTotal = Object.values(others).every((v) => v === undefined || v === '');
  let query = await searchedOrders(db, filter.search ?? '');
  if (status) query = query.where('status', '=', status);
  if (filter.type) query = query.where('label_type_uid', '=', filter.type);
  if (filter.userIds) query = query.where('user_id', 'in', filter.userIds);
  if (filter.from) query = query.where('created_at', '>=', filter.from);
  if (filter.to) query = query.where('created_at', '<', filter.to);
  const rows = await query.select(LIST_COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute();
  const total = keptTotal
    ? await countOrders(db, { status })
    : Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  return { rows, total };
}

/** The expression countOrders answers, to put in a statement of its own or another's. */
function orderCount(filter: { userId?: string; status?: Status }): RawBuilder<number | string> {
  const statuses = filter.status ? [filter.status] : ORDER_STATUSES;
  const settled = statuses.filter((s) => !WAITING.includes(s));
  const waiting = statuses.filter((s) => WAITING.includes(s));
  const ofUser = filter.userId === undefined ? sql`` : sql` and user_id = ${filter.userId}`;
  const kept = settled.length === 0 ? sql`0` : sql`coalesce((select sum(total) from settled_order_counts where status in (${sql.join(settled)})${ofUser}), 0)`;
  const counted = waiting.length === 0 ? sql`0` : sql`(select count(*) from orders where status in (${sql.join(waiting)})${ofUser})`;
  return sql<number | string>`${kept} + ${counted}`;
}

/**
 * Moves the waiting orders among `done` to completed, and writes the `events` (of those orders: by subject_id) of the
 * orders it moved, together: in one statement on PostgreSQL, one transaction on SQLite. Answers the ids of the orders
 * that were still waiting.
 */
export async function markAllCompleted(
  db: DbOrTrx,
  done: { id: string; tracking: string; pdfKey: string }[],
  at: string,
  events: ShopEventsTable[] = [],
): Promise<Set<string>> {
  if (done.length === 0) return new Set();
  // A VALUES list's columns are column1, column2... on SQLite and on PostgreSQL alike.
  const labels = sql.join(done.map((d) => sql`(${d.id}, ${d.tracking}, ${d.pdfKey})`));
  const completed = sql`update orders set status = 'completed', tracking = made.column2, pdf_key = made.column3, provider_ref = null, updated_at = ${at}
    from (values ${labels}) as made
    where orders.id = made.column1 and orders.status in (${sql.join(WAITING)})
    returning orders.id`;
  if (isPostgres(db)) {
    const announced =
      events.length === 0
        ? sql``
        : sql`, announced as (insert into shop_events select e.* from jsonb_populate_recordset(null::shop_events, ${JSON.stringify(events)}::jsonb) e
            where e.subject_id in (select id from done) on conflict do nothing)`;
    const { rows } = await sql<{ id: string }>`with done as (${completed})${announced} select id from done`.execute(db);
    return new Set(rows.map((row) => row.id));
  }
  const write = async (trx: DbOrTrx) => {
    const ids = new Set((await sql<{ id: string }>`${completed}`.execute(trx)).rows.map((row) => row.id));
    await recordEvents(
      trx,
      events.filter((event) => ids.has(event.subject_id)),
    );
    return ids;
  };
  // A bulk order's rows have no events: their one statement needs no transaction.
  return events.length === 0 || db.isTransaction ? write(db) : (db as Db).transaction().execute(write);
}

/**
 * The ledger rows an order caused, oldest first: a single order's charge and refund (referenced by
 * its id); a bulk row's refund (referenced as bulk order id:row; its charge is the bulk order's).
 */
export function ledgerOfOrder(db: DbOrTrx, order: Pick<OrderRow, 'id' | 'user_id' | 'bulk_order_id' | 'bulk_row'>) {
  const references = [order.id, ...(order.bulk_order_id ? [`${order.bulk_order_id}:${order.bulk_row}`] : [])];
  return db
    .selectFrom('ledger')
    .selectAll()
    .where('user_id', '=', order.user_id)
    .where('reference', 'in', references)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Any customer's order (the operator console), or undefined. */
export const findOrder = (db: DbOrTrx, id: string) => db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();

/** The provider makes the label later: the order is processing, and due for a check at `checkAt`. */
export const markProcessing = (db: DbOrTrx, id: string, providerRef: string, at: string, checkAt: string) =>
  db
    .updateTable('orders')
    .set({ status: 'processing', provider_ref: providerRef, updated_at: at, claimed_until: checkAt })
    .where('id', '=', id)
    .where('status', 'in', WAITING)
    .execute();

/**
 * An order whose purchase ended in an error other than a refusal shows Processing with no provider reference, due for
 * the sweep at `checkAt`, which asks the provider for the label bought under its id before anything else.
 */
export const markUnsure = (db: DbOrTrx, id: string, at: string, checkAt: string) =>
  db
    .updateTable('orders')
    .set({ status: 'processing', provider_ref: null, updated_at: at, claimed_until: checkAt })
    .where('id', '=', id)
    .where('status', 'in', WAITING)
    .execute();

/** A pending order whose purchase takes longer than its request waits shows Processing; its claim stays its buyer's. */
export const markStillBuying = (db: DbOrTrx, id: string, at: string) =>
  db.updateTable('orders').set({ status: 'processing', updated_at: at }).where('id', '=', id).where('status', '=', 'pending').execute();

/** Cancels a waiting order; false when it was no longer waiting (so it is refunded at most once). */
export async function cancelOrder(db: DbOrTrx, id: string, note: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set({ status: 'cancelled', note, updated_at: at })
    .where('id', '=', id)
    .where('status', 'in', WAITING)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Takes a waiting order until `until`: only the holder asks the provider about it, so two processes
 * never buy the same label. Undefined when another process holds it or it is no longer waiting.
 */
export const claimOrder = (db: DbOrTrx, id: string, until: string, now: string): Promise<OrderRow | undefined> =>
  claimOrders(db, [id], until, now).then((taken) => taken[0]);

/**
 * Takes, in one statement, the waiting orders among `ids` that nobody holds, until `until`; answers those taken. Each
 * take is counted (claims) in that statement, committed before the taker asks the provider: see OrdersTable.claims.
 */
export const claimOrders = (db: DbOrTrx, ids: string[], until: string, now: string): Promise<OrderRow[]> =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .updateTable('orders')
        .set((eb) => ({ claimed_until: until, claims: eb('claims', '+', 1) }))
        .where('id', 'in', ids)
        .where('status', 'in', WAITING)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
        .returningAll()
        .execute();

/** Lets go of claims this process holds (its attempt failed); anyone may take the orders again. */
export const releaseOrders = (db: DbOrTrx, ids: string[]) =>
  ids.length === 0
    ? Promise.resolve()
    : db
        .updateTable('orders')
        .set({ claimed_until: null })
        .where('id', 'in', ids)
        .where('status', 'in', WAITING)
        .execute()
        .then(() => {});

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

// ---- label refunds (refunds.ts) ---------------------------------------------------------------

/** Marks a completed order's refund requested, held until `dueAt` (null: an operator decides); the row, or undefined when it was asked already. */
export const requestRefund = (db: DbOrTrx, id: string, at: string, dueAt: string | null, automatic = false): Promise<OrderRow | undefined> =>
  db
    .updateTable('orders')
    .set({
      refund_status: 'requested',
      refund_note: null,
      refund_requested_at: at,
      refund_updated_at: at,
      refund_due_at: dueAt,
      refund_claims: 1,
      refund_auto: automatic ? 1 : 0,
    })
    .where('id', '=', id)
    .where('status', '=', 'completed')
    .where('refund_status', 'is', null)
    .where('scan_form_id', 'is', null)
    .returningAll()
    .executeTakeFirst();

/** Names an order's return label, once: false when it has one already. */
export async function linkReturn(db: DbOrTrx, orderId: string, returnId: string): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set({ return_order_id: returnId })
    .where('id', '=', orderId)
    .where('return_order_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A window of purchase times: bought before `before` and after `after` (ISO). */
export type BoughtBetween = { before: string; after: string };

/**
 * Labels the automatic voids ask about, oldest first: completed, never asked to be refunded, on no SCAN form or
 * pickup, no carrier scan, of an account that did not turn them off, USPS ones bought in `usps` and the others in
 * `others` (a null window: none of that kind).
 */
export function autoVoidCandidates(
  db: DbOrTrx,
  windows: { usps: BoughtBetween | null; others: BoughtBetween | null },
  scanned: readonly string[],
  limit: number,
) {
  return db
    .selectFrom('orders')
    .innerJoin('users', 'users.id', 'orders.user_id')
    .selectAll('orders')
    .where('orders.status', '=', 'completed')
    .where('orders.refund_status', 'is', null)
    .where('orders.scan_form_id', 'is', null)
    .where('orders.pickup_id', 'is', null)
    .where('users.auto_void', '=', 1)
    .where((eb) => eb.or([eb('orders.tracking_status', 'is', null), eb('orders.tracking_status', 'not in', [...scanned])]))
    .where((eb) => {
      // The carrier as carrierOf tells it: as bought upstream, else by the label type (ups_*, fedex*; USPS otherwise).
      const usps = eb.or([
        eb('orders.upstream_carrier', '=', 'USPS'),
        eb.and([
          eb('orders.upstream_carrier', 'is', null),
          eb(eb.fn('substr', ['orders.label_type_uid', eb.lit(1), eb.lit(4)]), '!=', 'ups_'),
          eb(eb.fn('substr', ['orders.label_type_uid', eb.lit(1), eb.lit(5)]), '!=', 'fedex'),
        ]),
      ]);
      const within = (w: BoughtBetween) => eb.and([eb('orders.created_at', '<', w.before), eb('orders.created_at', '>', w.after)]);
      const kinds = [];
      if (windows.usps) kinds.push(eb.and([usps, within(windows.usps)]));
      if (windows.others) kinds.push(eb.and([eb.not(usps), within(windows.others)]));
      return kinds.length ? eb.or(kinds) : eb.val(false);
    })
    .orderBy('orders.created_at')
    .limit(limit)
    .execute();
}

/** What the automatic voids credited a user since a moment: the refunded labels' prices, and how many. */
export async function autoVoidSaved(db: DbOrTrx, userId: string, since: string): Promise<{ cents: number; count: number }> {
  const row = await db
    .selectFrom('orders')
    .select((eb) => [eb.fn.coalesce(eb.fn.sum<number>('price_cents'), eb.val(0)).as('cents'), eb.fn.countAll<number>().as('count')])
    .where('user_id', '=', userId)
    .where('refund_auto', '=', 1)
    .where('refund_status', '=', 'refunded')
    .where('refund_updated_at', '>=', since)
    .executeTakeFirstOrThrow();
  return { cents: Number(row.cents), count: Number(row.count) };
}

/** Moves a refund from one of `from` to its decision; false when it was no longer in `from`. */
export async function settleRefund(
  db: DbOrTrx,
  id: string,
  from: NonNullable<OrderRow['refund_status']>[],
  set: Partial<Pick<OrderRow, 'refund_status' | 'refund_note' | 'refund_updated_at' | 'refund_due_at' | 'refund_upstream'>>,
): Promise<boolean> {
  const result = await db.updateTable('orders').set(set).where('id', '=', id).where('refund_status', 'in', from).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A requested refund is not asked about again before `at` (and the upstream's last answer, when given). */
export const refundCheckAt = (db: DbOrTrx, id: string, at: string, upstream?: string) =>
  db
    .updateTable('orders')
    .set({ refund_due_at: at, ...(upstream ? { refund_upstream: upstream } : {}) })
    .where('id', '=', id)
    .where('refund_status', '=', 'requested')
    .execute();

/** Requested refunds due for a question to the provider, longest due first. */
export const dueRefunds = (db: DbOrTrx, now: string, limit: number) =>
  db
    .selectFrom('orders')
    .select('id')
    .where('refund_status', '=', 'requested')
    .where('refund_due_at', '<=', now)
    .orderBy('refund_due_at')
    .limit(limit)
    .execute();

/** Takes a due refund until `until`, counting the take; undefined when another process took it or it was decided. */
export const claimRefund = (db: DbOrTrx, id: string, until: string, now: string): Promise<OrderRow | undefined> =>
  db
    .updateTable('orders')
    .set((eb) => ({ refund_due_at: until, refund_claims: eb('refund_claims', '+', 1) }))
    .where('id', '=', id)
    .where('refund_status', '=', 'requested')
    .where('refund_due_at', '<=', now)
    .returningAll()
    .executeTakeFirst();

/** The order bought at an upstream as this shipment. */
export const findByUpstreamRef = (db: DbOrTrx, upstream: string, ref: string) =>
  db.selectFrom('orders').selectAll().where('upstream_ref', '=', ref).where('provider', '=', upstream).executeTakeFirst();

/**
 * Records the upstream, shipment and rate an order buys, only while it still holds `from` (null: none chosen yet), so
 * two processes never record two; `chosen` null lets go of one known to have bought nothing. False: it held another.
 */
export async function chooseUpstream(
  db: DbOrTrx,
  orderId: string,
  upstream: string,
  chosen: { shipmentRef: string; rateId: string | null } | null,
  from: { shipmentRef: string } | null,
): Promise<boolean> {
  const updated = await db
    .updateTable('orders')
    .set({ provider: upstream, upstream_ref: chosen?.shipmentRef ?? null, upstream_rate_id: chosen?.rateId ?? null, upstream_asked_at: null })
    .where('id', '=', orderId)
    .where((eb) => (from ? eb('upstream_ref', '=', from.shipmentRef) : eb('upstream_ref', 'is', null)))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/**
 * Marks the order's purchase asked at `now`, unless one was asked after `settledBefore` (it may still land upstream):
 * false then. See UpstreamChoiceStore.askPurchase.
 */
export async function askPurchase(db: DbOrTrx, orderId: string, now: string, settledBefore: string): Promise<boolean> {
  const updated = await db
    .updateTable('orders')
    .set({ upstream_asked_at: now })
    .where('id', '=', orderId)
    .where((eb) => eb.or([eb('upstream_asked_at', 'is', null), eb('upstream_asked_at', '<=', settledBefore)]))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** What the order's label cost upstream, with the carrier and service bought. */
export const recordPurchase = (db: DbOrTrx, orderId: string, bought: { costCents: number; carrier: string; service: string; insuranceCostCents?: number }) =>
  db
    .updateTable('orders')
    .set({
      upstream_cost_cents: bought.costCents,
      upstream_carrier: bought.carrier,
      upstream_service: bought.service,
      insurance_cost_cents: bought.insuranceCostCents ?? null,
    })
    .where('id', '=', orderId)
    .execute();

/** The columns of the console's refund queue. */
const REFUND_COLUMNS = [
  ...LIST_COLUMNS,
  'refund_status',
  'refund_note',
  'refund_requested_at',
  'refund_updated_at',
  'refund_upstream',
  'tracking_status',
  'bulk_order_id',
] as const;
export type RefundListRow = Pick<OrderRow, (typeof REFUND_COLUMNS)[number]>;

/** Orders in one refund state (requested before `before` when given: stuck), oldest request first, a page and the total. */
export async function listRefunds(
  db: DbOrTrx,
  status: NonNullable<OrderRow['refund_status']>,
  page: { offset: number; limit: number },
  before?: string,
): Promise<{ rows: RefundListRow[]; total: number }> {
  let query = db.selectFrom('orders').where('refund_status', '=', status);
  if (before) query = query.where('refund_requested_at', '<', before);
  const [rows, counted] = await Promise.all([
    query
      .select(REFUND_COLUMNS)
      .orderBy('refund_requested_at', status === 'requested' ? 'asc' : 'desc')
      .orderBy('id')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(counted.n) };
}

/** How many refunds are in each state, and how many requested ones are older than `stuckBefore`. */
export async function refundCounts(db: DbOrTrx, stuckBefore: string): Promise<{ requested: number; stuck: number; refunded: number; rejected: number }> {
  const rows = await db
    .selectFrom('orders')
    .select((eb) => [
      'refund_status',
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>(eb.case().when('refund_requested_at', '<', stuckBefore).then(1).else(0).end()).as('old'),
    ])
    .where('refund_status', 'is not', null)
    .groupBy('refund_status')
    .execute();
  const counts = { requested: 0, stuck: 0, refunded: 0, rejected: 0 };
  for (const row of rows) {
    counts[row.refund_status as 'requested' | 'refunded' | 'rejected'] = Number(row.n);
    if (row.refund_status === 'requested') counts.stuck = Number(row.old ?? 0);
  }
  return counts;
}

// ---- tracking (EasyPost's tracker events and the sandbox's timer) ----

/** The orders a tracking change is about: enough to tell their owners. */
export type TrackedOrder = Pick<OrderRow, 'id' | 'user_id' | 'bulk_order_id' | 'tracking_status'>;
const TRACKED_COLUMNS = ['id', 'user_id', 'bulk_order_id', 'tracking_status'] as const;

export const insertTrackingEvents = (db: DbOrTrx, rows: { id: string; order_id: string; status: string; received_at: string }[]) =>
  db.insertInto('tracking_events').values(rows).execute();

/** Sets the status on those of the orders whose status is none or one of `from`; answers the ids it moved. */
export const moveTracking = (db: DbOrTrx, ids: string[], from: string[], status: string, at: string) =>
  db
    .updateTable('orders')
    .set({ tracking_status: status, updated_at: at })
    .where('id', 'in', ids)
    .where((eb) => eb.or([eb('tracking_status', 'is', null), ...(from.length > 0 ? [eb('tracking_status', 'in', from)] : [])]))
    .returning('id')
    .execute();

/** Completed sandbox labels last changed in (after, upTo] whose status is none or one of `statuses`, oldest first. */
export const sandboxTrackingDue = (db: DbOrTrx, due: { after: string; upTo: string; statuses: readonly string[]; limit: number }) =>
  db
    .selectFrom('orders')
    .select(TRACKED_COLUMNS)
    .where('status', '=', 'completed')
    .where('updated_at', '>', due.after)
    .where('updated_at', '<=', due.upTo)
    .where('provider', '=', 'sandbox')
    // A label whose void was asked or made never reaches the carrier: its tracking stays where it was.
    .where((eb) => eb.or([eb('refund_status', 'is', null), eb('refund_status', '=', 'rejected')]))
    .where((eb) => eb.or([eb('tracking_status', 'is', null), eb('tracking_status', 'in', due.statuses)]))
    .orderBy('updated_at')
    .limit(due.limit)
    .execute();

/** The completed orders an upstream's webhook names: by its shipment, or by the tracking number it sold. */
export const trackedAt = (db: DbOrTrx, upstream: string, by: { shipmentRef?: string; trackingNumber?: string }) =>
  db
    .selectFrom('orders')
    .select(TRACKED_COLUMNS)
    .where('provider', '=', upstream)
    .where((eb) => (by.shipmentRef ? eb('upstream_ref', '=', by.shipmentRef) : eb('tracking', '=', by.trackingNumber ?? '')))
    .execute();

/** Whether an upstream's event (`upstream:eventId`) was taken before. */
export async function upstreamEventSeen(db: DbOrTrx, id: string): Promise<boolean> {
  return (await db.selectFrom('upstream_events').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** Keeps an upstream's event id (`upstream:eventId`); false when it was kept before (a replay). */
export async function takeUpstreamEvent(db: DbOrTrx, id: string, at: string): Promise<boolean> {
  const inserted = await db
    .insertInto('upstream_events')
    .values({ id, received_at: at })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
}
