import type { FastifyBaseLogger } from 'fastify';
import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { isPostgres, type Db, type DbOrTrx } from '../../db/database.ts';
import { escapeLike } from '../../db/like.ts';
import { searchFold } from '../../db/fold.ts';
import type { Database } from '../../db/schema.ts';

// The order search box (the order history's and the console's): which orders a search finds, and the trigram indexes
// that narrow it, kept up to date off the requests that make orders (indexPendingOrders).

/** Orders of the history and the console: the query every filter, order and page is added to. */
export type OrdersQuery = SelectQueryBuilder<Database, 'orders', object>;

/**
 * The orders the search box finds, of one user (the order history) or of everyone (the console; no userId): those
 * whose from_name, to_name, reference lines or tracking holds the search, case-insensitive, or whose id starts with it; the user's own
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
  const postgres = isPostgres(db);
  const searchTest = (term: string) => searchTestOf(term, postgres);
  const parts = indexedParts(search);
  if (postgres) {
    // The console's search over everyone's orders tests them one by one (1.5 s at a million orders): the index keeps
    // no key without an owner, since keeping each trigram a second time cost every new order 0.2 ms. Looking a term's
    // trigrams up behind every customer's id found a rare term in 5-150 ms but took 3-8 s for a common one.
    if (userId === undefined) return everyOrder.where(searchTest(search));
    // A part's likely rarest keys alone: GIN reads every key's entries, a common one's (a heavy customer's 'rec') by the 100,000.
    // The index holds the text folded (search_fold: 'Núñez' as 'nunez'), so the keys are made of the search folded alike.
    const keys = parts.map((part) => likelyRarest(trigramKeys(searchFold(part), userId.slice(0, 8))));
    if (keys.some((k) => k.length === 0)) return everyOrder.where(searchTest(search));
    // As the index is made (the 2026-11-29-40-ship-date-reference migration).
    const ownerKeys = sql`order_search_keys(user_id, search_fold(lower(left(id, 8) || chr(10) || from_name || chr(10) || to_name || chr(10) || coalesce(tracking, '') || chr(10) || reference1 || chr(10) || reference2)))`;
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
 * What the indexed text (id[0:8], from_name, to_name, tracking, reference1, reference2) of every order the search finds holds, lowered: the
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

/**
 * The search's own test: the index queries above only narrow the orders it is applied to. Names are compared folded
 * (searchFold: accents and case set aside, so 'nunez' finds 'Núñez' and 'Núñez' finds 'Nunez'): PostgreSQL by
 * search_fold in SQL; SQLite by lower() for plain ASCII names and by the registered search_fold only for the others,
 * which keeps a JavaScript call off nearly every order a long search tests.
 */
export function searchTestOf(search: string, postgres: boolean): Expression<SqlBool> {
  const idStart = `${escapeLike(search.toLowerCase())}%`;
  const pattern = `%${escapeLike(searchFold(search))}%`;
  const name = (column: 'from_name' | 'to_name' | 'reference1' | 'reference2') =>
    postgres
      ? sql<SqlBool>`search_fold(lower(${sql.ref(column)})) like ${pattern} escape '\\'`
      : sql<SqlBool>`(lower(${sql.ref(column)}) like ${pattern} escape '\\' or (${sql.ref(column)} glob '*[^ -~]*' and search_fold(${sql.ref(column)}) like ${pattern} escape '\\'))`;
  return sql<SqlBool>`(${name('from_name')} or ${name('to_name')} or ${name('reference1')} or ${name('reference2')} or lower(tracking) like ${pattern} escape '\\' or id like ${idStart} escape '\\')`;
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
    const user = await sql<{
      key: number;
      total: number | null;
    }>`select u.rowid as key, (select sum(total) from settled_order_counts c where c.user_id = u.id) as total from users u where u.id = ${userId}`
      .execute(db)
      .then((r) => r.rows[0]);
    if (!user) return [];
    cap = Math.min(MAX_CANDIDATES, Math.max(100, Math.ceil(Number(user.total ?? 0) / 4)));
    const first = BigInt(user.key) * USER_SPAN;
    range = sql` and rowid between ${first} and ${first + USER_SPAN - 1n}`;
  }
  const counts = await trigramCounts(db, [...new Set(trigramsOf.flat())], range, userId);
  // AND needs no positions, which the table does not keep.
  const queries = trigramsOf.map(
    (all) =>
      `(${likelyRarest(all, (t) => counts.get(t)!)
        .map(ftsString)
        .join(' AND ')})`,
  );
  // The orders noted for the index and not yet in it (or in it as they were) are candidates too: read from the few
  // noted rows, each order by its rowid, never from the user's orders (a heavy customer has 100,000).
  const ownNoted = userId === undefined ? sql`` : sql` where (select user_id from orders where rowid = order_rowid) = ${userId}`;
  const { rows } = await sql<{
    order_rowid: number;
  }>`select rowid & 4294967295 as order_rowid from orders_search where orders_search match ${queries.join(' OR ')}${range}
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
        || char(10) || o.reference1 || char(10) || o.reference2
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
    unknown.map(
      (t) =>
        sql`select ${t} as trigram, (select count(*) from (select 1 from orders_search where orders_search match ${ftsString(t)}${range} limit ${COMMON_TRIGRAM})) as n`,
    ),
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

/** How often the order search's index takes in the orders made or changed since its last pass. */
const SEARCH_INDEX_EVERY_MS = 200;

/**
 * Brings the order search's index up to date every SEARCH_INDEX_EVERY_MS (indexPendingOrders), off the requests
 * that make orders; answers a stop that waits for a pass under way. Every process on the database may run one.
 */
export function keepSearchIndexed(db: Db, log: FastifyBaseLogger): () => Promise<void> {
  let pass: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    pass ??= indexPendingOrders(db)
      .catch((error) => log.error({ err: error }, 'the order search index could not be brought up to date'))
      .finally(() => (pass = null));
  }, SEARCH_INDEX_EVERY_MS).unref();
  return async () => {
    clearInterval(timer);
    await pass;
  };
}
