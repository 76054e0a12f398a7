import { ORDER_STATUSES } from '@portal/contract';
import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { isPostgres, type Db, type DbOrTrx } from '../../db/database.ts';
import { containsText, escapeLike } from '../../db/like.ts';
import type { Database, OrdersTable, ShopEventsTable } from '../../db/schema.ts';
import { recordEvents } from '../../lib/shop-events.ts';

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
  'pdf_key',
  'note',
  'created_at',
] as const;
export type OrderListRow = Pick<OrderRow, (typeof LIST_COLUMNS)[number]>;

/** Rows of one multi-row insert: SQLite binds at most 32,766 values, and an order has about 40. */
const INSERT_CHUNK = 200;

/** Inserts many orders (a bulk order's rows), in the caller's transaction. */
export async function insertOrders(trx: DbOrTrx, orders: OrderRow[]): Promise<void> {
  for (let i = 0; i < orders.length; i += INSERT_CHUNK) await trx.insertInto('orders').values(orders.slice(i, i + INSERT_CHUNK)).execute();
}

/** The balance of each of these customers (to refuse an order before its label is made; the charge decides). */
export const balancesOf = (db: DbOrTrx, userIds: string[]) => db.selectFrom('users').select(['id', 'balance_cents']).where('id', 'in', userIds).execute();

/** The order if it belongs to this user; another user's order is not found. */
export const findOwnOrder = (db: DbOrTrx, userId: string, id: string) =>
  db.selectFrom('orders').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();

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
  if (rows.length === 0 && offset > 0) return { rows: [], total: Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n) };
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

/** Orders of the history and the console: the query every filter, order and page is added to. */
export type OrdersQuery = SelectQueryBuilder<Database, 'orders', object>;

/**
 * The orders the search box finds, of one user (the order history) or of everyone (the console; no userId): those
 * whose from_name, to_name or tracking holds the search, case-insensitive, or whose id starts with it; the user's own
 * % and _ match themselves. An empty search finds every order.
 *
 * Every order found passes that test itself ({@link searchTest}); an index only narrows the orders tested: on
 * PostgreSQL a GIN index of the text's trigrams keyed by their owner (see trigramKeys), which the planner uses when
 * it expects few matches, and none for the console's search; on SQLite an FTS5 trigram table, asked first for the
 * candidates (see searchCandidates). Terms an index cannot take (no trigram) and, on SQLite, terms too common to
 * narrow much test the user's orders (or all of them) one by one.
 */
export async function searchedOrders(db: DbOrTrx, search: string, userId?: string): Promise<OrdersQuery> {
  const scoped = (query: OrdersQuery) => (userId === undefined ? query : query.where('user_id', '=', userId));
  const everyOrder = scoped(db.selectFrom('orders'));
  if (!search) return everyOrder;
  const parts = indexedParts(search);
  if (isPostgres(db)) {
    // The console's search over everyone's orders tests them one by one (1.5 s at a million orders): the index keeps
    // no key without an owner, since keeping each trigram a second time cost every new order 0.2 ms. Looking a term's
    // trigrams up behind every customer's id found a rare term in 5-150 ms but took 3-8 s for a common one.
    if (userId === undefined) return everyOrder.where(searchTest(search));
    // A part's likely rarest keys alone: GIN reads every key's entries, a common one's (a heavy customer's 'rec') by the 100,000.
    const keys = parts.map((part) => likelyRarest(trigramKeys(part, userId.slice(0, 8))));
    if (keys.some((k) => k.length === 0)) return everyOrder.where(searchTest(search));
    const ownerKeys = sql`order_search_keys(user_id, lower(left(id, 8) || chr(10) || from_name || chr(10) || to_name || chr(10) || coalesce(tracking, '')))`;
    return everyOrder.where((eb) => eb.or(keys.map((k) => sql<SqlBool>`${ownerKeys} @> ${k}::text[]`))).where(searchTest(search));
  }
  const candidates = await searchCandidates(db, parts, userId);
  if (!candidates) return everyOrder.where(searchTest(search));
  // In a table of its own that SQLite neither merges into the caller's query nor pushes the caller's filters into (it
  // has a LIMIT): the filters, order and page apply to these rows alone, whichever index would otherwise look cheaper.
  const found = db
    .selectFrom('orders')
    .selectAll()
    .where(sql<SqlBool>`rowid in (select value from json_each(${JSON.stringify(candidates)}))`)
    .where(searchTest(search))
    .limit(candidates.length);
  return scoped(db.selectFrom(found.as('orders')) as unknown as OrdersQuery);
}

/**
 * What the indexed text (id[0:8], from_name, to_name, tracking) of every order the search finds holds, lowered: the
 * search itself, or (a longer start of an id, which is a UUID) its first 8 characters.
 */
function indexedParts(search: string): string[] {
  const term = search.toLowerCase();
  return term.length > 8 && /^[0-9a-f]{8}-[0-9a-f-]*$/.test(term) ? [term, term.slice(0, 8)] : [term];
}

/**
 * PostgreSQL: keys every order whose indexed text holds `part` (lowered) has in its order_search_keys (the
 * 2026-11-27-20-order-search-owner-keys migration), each behind `owner`. pg_trgm splits the text into words (runs of
 * letters and digits), pads each with two blanks in front and one behind, and takes every 3 characters. The part's
 * runs of ASCII letters and digits lie inside such words whatever the database's locale, so their trigrams are
 * keys; padded only where the part shows the word's edge by an ASCII character that is neither. Other characters
 * give no key: which are letters depends on the locale. No key (a part of short words): the index cannot help.
 */
export function trigramKeys(part: string, owner: string): string[] {
  const keys = new Set<string>();
  const edge = (at: number) => at >= 0 && at < part.length && part.charCodeAt(at) < 128;
  for (const run of part.matchAll(/[a-z0-9]+/g)) {
    const word = `${edge(run.index - 1) ? '  ' : ''}${run[0]}${edge(run.index + run[0].length) ? ' ' : ''}`;
    for (let i = 0; i + 3 <= word.length; i++) keys.add(owner + word.slice(i, i + 3));
  }
  return [...keys];
}

/** The search's own test: the index queries above only narrow the orders it is applied to. */
export function searchTest(search: string): Expression<SqlBool> {
  const idStart = `${escapeLike(search.toLowerCase())}%`;
  return sql<SqlBool>`(${containsText('from_name', search)} or ${containsText('to_name', search)} or ${containsText('tracking', search)} or id like ${idStart} escape '\\')`;
}

/** An FTS5 rowid of orders_search: the user's rowid times 2^32 plus the order's rowid. */
const USER_SPAN = 4_294_967_296n;
/** Most candidates read from the index; more, and testing the orders one by one costs about as much. */
const MAX_CANDIDATES = 10_000;

/** Orders (of the user) past which a trigram counts as common: counting its orders stops there. */
const COMMON_TRIGRAM = 200;
/** The trigrams (index keys) of a part that an index is asked for. */
const RAREST_TRIGRAMS = 4;

/**
 * The RAREST_TRIGRAMS trigrams (or index keys) of a part that likely match the fewest orders: by their orders counted
 * where known, then those with fewer letters first, since numbers vary from order to order and words repeat. Fewer
 * keys only narrow less: every order found is tested exactly (searchTest). An owner's prefix, the same on each key,
 * leaves the order as it is.
 */
function likelyRarest(trigrams: string[], orders: (trigram: string) => number = () => 0): string[] {
  const letters = (t: string) => t.replace(/[^\p{L}]/gu, '').length;
  return [...trigrams].sort((a, b) => orders(a) - orders(b) || letters(a) - letters(b)).slice(0, RAREST_TRIGRAMS);
}

/** A quoted FTS5 string ("" stands for "). */
const ftsString = (text: string) => `"${text.replaceAll('"', '""')}"`;

/**
 * SQLite: the rowids of the orders whose indexed text holds the trigrams of one of the parts (of this user's orders
 * when given), or undefined when the index cannot narrow the search: a part is shorter than a trigram, or more orders
 * match than testing one by one would cost (a quarter of the user's orders, at least 100, at most MAX_CANDIDATES).
 *
 * FTS5 steps through every trigram's entries in turn to intersect them, so a trigram nearly every order has ('rec'
 * of 'Receiver') costs a seek for each candidate of the others. Each trigram's orders are counted first (trigramCounts), up to
 * COMMON_TRIGRAM, and a part is asked for by its RAREST_TRIGRAMS rarest alone. The candidates are only narrowed
 * less: every one is tested exactly (searchTest).
 */
async function searchCandidates(db: DbOrTrx, parts: string[], userId?: string): Promise<number[] | undefined> {
  const trigramsOf: string[][] = [];
  for (const part of parts) {
    const chars = Array.from(part);
    if (chars.length < 3 || part.includes('\0')) return undefined;
    trigramsOf.push([...new Set(chars.slice(2).map((_, i) => chars.slice(i, i + 3).join('')))]);
  }
  let cap = MAX_CANDIDATES;
  let range = sql``;
  if (userId !== undefined) {
    const user = await sql<{ key: number; total: number | null }>`select u.rowid as key, (select sum(total) from settled_order_counts c where c.user_id = u.id) as total from users u where u.id = ${userId}`
      .execute(db)
      .then((r) => r.rows[0]);
    if (!user) return [];
    cap = Math.min(MAX_CANDIDATES, Math.max(100, Math.ceil(Number(user.total ?? 0) / 4)));
    const first = BigInt(user.key) * USER_SPAN;
    range = sql` and rowid between ${first} and ${first + USER_SPAN - 1n}`;
  }
  const counts = await trigramCounts(db, [...new Set(trigramsOf.flat())], range, userId);
  // AND needs no positions, which the table does not keep.
  const queries = trigramsOf.map((all) => `(${likelyRarest(all, (t) => counts.get(t)!).map(ftsString).join(' AND ')})`);
  // The orders noted for the index and not yet in it (or in it as they were) are candidates too: read from the few
  // noted rows, each order by its rowid, never from the user's orders (a heavy customer has 100,000).
  const ownNoted = userId === undefined ? sql`` : sql` where (select user_id from orders where rowid = order_rowid) = ${userId}`;
  const { rows } = await sql<{ order_rowid: number }>`select rowid & 4294967295 as order_rowid from orders_search where orders_search match ${queries.join(' OR ')}${range}
    union select order_rowid from orders_search_pending${ownNoted} limit ${cap + 1}`.execute(db);
  return rows.length > cap ? undefined : rows.map((r) => r.order_rowid);
}

/**
 * Orders indexed in one pass at most, more wait for the next: a pass of 500 holds SQLite about 10 ms, and at five
 * passes a second it keeps up with 2,500 orders noted a second (a bulk order notes each row twice, at ~600 labels/s).
 */
const INDEX_BATCH = 500;

/**
 * Brings the order search's index up to date with the orders made or changed since the last pass; answers how much
 * it took in (0: nothing waited).
 *
 * SQLite: puts the orders noted in orders_search_pending into the search's FTS5 table, in one transaction; answers
 * how many. Their entries are written once for the batch, not once per commit (the 2026-11-24-50-order-search-later
 * migration). The noted rows are taken first, with a write, so two processes never index the same batch.
 *
 * PostgreSQL: moves the GIN index's pending list into the index; answers the pages moved. Otherwise the insert or
 * update that finds the list past gin_pending_list_limit (4 MB) moves it itself: in the open loop of order creation
 * that statement took up to 130 ms, and the orders waiting behind it with it.
 */
export async function indexPendingOrders(db: Db): Promise<number> {
  if (isPostgres(db)) {
    const { rows } = await sql<{ pages: number }>`select gin_clean_pending_list('orders_search_keys'::regclass) as pages`.execute(db);
    return Number(rows[0].pages);
  }
  // Read first: an idle shop asks five times a second, and a transaction would take the write lock each time.
  if (!(await sql`select 1 from orders_search_pending limit 1`.execute(db)).rows.length) return 0;
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ order_rowid: number }>`delete from orders_search_pending
      where order_rowid in (select order_rowid from orders_search_pending order by order_rowid limit ${INDEX_BATCH}) returning order_rowid`.execute(trx);
    if (rows.length === 0) return 0;
    const noted = sql`(select value from json_each(${JSON.stringify(rows.map((r) => r.order_rowid))}))`;
    const key = sql`u.rowid * ${sql.raw(String(USER_SPAN))} + o.rowid`;
    await sql`delete from orders_search where rowid in (select ${key} from orders o join users u on u.id = o.user_id where o.rowid in ${noted})`.execute(trx);
    await sql`insert into orders_search(rowid, body)
      select ${key}, substr(o.id, 1, 8) || char(10) || o.from_name || char(10) || o.to_name || char(10) || coalesce(o.tracking, '')
      from orders o join users u on u.id = o.user_id where o.rowid in ${noted} order by 1`.execute(trx);
    return rows.length;
  });
}

/** How long a trigram's counted orders are trusted: they only choose which trigrams the index is asked for. */
const TRIGRAM_COUNT_TTL_MS = 60_000;
/** Counts kept per database, the least recently counted dropped past this. */
const TRIGRAM_COUNTS_KEPT = 10_000;
/** Per database (its adapter, which its transactions share): `${user}\n${trigram}` -> orders counted, and when. */
const keptTrigramCounts = new WeakMap<object, Map<string, { n: number; at: number }>>();

/**
 * Each trigram's orders (of the user), up to COMMON_TRIGRAM, kept for TRIGRAM_COUNT_TTL_MS: the search box asks as
 * the customer types, each time with mostly the same trigrams, and counting them was about 40% of a search. A count
 * grown stale meanwhile costs speed only: every candidate is tested exactly.
 */
async function trigramCounts(db: DbOrTrx, trigrams: string[], range: RawBuilder<unknown>, userId?: string): Promise<Map<string, number>> {
  const adapter = db.getExecutor().adapter;
  const kept = keptTrigramCounts.get(adapter) ?? new Map<string, { n: number; at: number }>();
  keptTrigramCounts.set(adapter, kept);
  const now = Date.now();
  const keyOf = (t: string) => `${userId ?? ''}\n${t}`;
  const counts = new Map<string, number>();
  for (const t of trigrams) {
    const count = kept.get(keyOf(t));
    if (count && now - count.at < TRIGRAM_COUNT_TTL_MS) counts.set(t, count.n);
  }
  const unknown = trigrams.filter((t) => !counts.has(t));
  if (unknown.length === 0) return counts;
  const counted = sql.join(
    unknown.map((t) => sql`select ${t} as trigram, (select count(*) from (select 1 from orders_search where orders_search match ${ftsString(t)}${range} limit ${COMMON_TRIGRAM})) as n`),
    sql` union all `,
  );
  for (const { trigram, n } of (await sql<{ trigram: string; n: number }>`${counted}`.execute(db)).rows) {
    counts.set(trigram, Number(n));
    kept.delete(keyOf(trigram));
    kept.set(keyOf(trigram), { n: Number(n), at: now });
  }
  while (kept.size > TRIGRAM_COUNTS_KEPT) kept.delete(kept.keys().next().value!);
  return counts;
}

/**
 * Moves the waiting orders among `done` to completed, and writes the `events` (of those orders: by subject_id) of the
 * orders it moved, together: in one statement on PostgreSQL, one transaction on SQLite. Answers the ids of the orders
 * that were still waiting.
 */
export async function markAllCompleted(db: DbOrTrx, done: { id: string; tracking: string; pdfKey: string }[], at: string, events: ShopEventsTable[] = []): Promise<Set<string>> {
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
    await recordEvents(trx, events.filter((event) => ids.has(event.subject_id)));
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
  ids.length === 0 ? Promise.resolve() : db.updateTable('orders').set({ claimed_until: null }).where('id', 'in', ids).where('status', 'in', WAITING).execute().then(() => {});

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
