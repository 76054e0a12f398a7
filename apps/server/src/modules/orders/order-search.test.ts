import { CompiledQuery, sql, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, startTestApp, type TestApp } from '../../../test/harness.ts';
import { orderPayload } from '../../../test/order-fixtures.ts';
import { fundedCustomer } from '../../../test/customers.ts';
import { newId } from '../../lib/ids.ts';
import { isPostgres, type Db } from '../../db/database.ts';
import { searchFold } from '../../db/fold.ts';
import { indexPendingOrders, searchedOrders, trigramKeys } from './order-search.ts';
import { insertOrders, listAllOrders, markAllCompleted, type OrderRow } from './repository.ts';

// The search finds through an index (a trigram GIN index on PostgreSQL, an FTS5 trigram table on SQLite) and must
// find exactly what the plain contains test found before it: these tests compare both on tricky names and terms.
let t: TestApp;
// Processing labels: an order has no tracking number until its label is made, as with a slow provider.
beforeAll(async () => {
  t = await startTestApp({ LABEL_SANDBOX_MODE: 'processing', LABEL_SANDBOX_DELAY_MS: '3600000' });
});
afterAll(() => t.close());

type User = Awaited<ReturnType<typeof fundedCustomer>>;
const list = (user: User, query: string) => t.app.inject({ method: 'GET', url: `/api/v1/order/read${query}`, headers: user.headers });
const found = async (user: User, search: string, extra = '') =>
  ((await list(user, `?limit=100&search=${encodeURIComponent(search)}${extra}`)).json().orders as { _id: string; toName: string }[]).map((o) => o.toName);

/**
 * The search's rule tested plainly, order by order, without any index: a name holds the term with accents and case set
 * aside (searchFold: 'nunez' finds 'Núñez'), the tracking number holds it, or the id starts with it; newest first.
 */
async function before(search: string, userId?: string, db: Db = t.db): Promise<string[]> {
  const term = searchFold(search);
  let query = db.selectFrom('orders').select(['id', 'from_name', 'to_name', 'tracking']);
  if (userId) query = query.where('user_id', '=', userId);
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  return rows
    .filter(
      (r) =>
        searchFold(r.from_name).includes(term) ||
        searchFold(r.to_name).includes(term) ||
        (r.tracking ?? '').toLowerCase().includes(term) ||
        r.id.startsWith(search.toLowerCase()),
    )
    .map((r) => r.id);
}

const now = async (search: string, userId?: string, db: Db = t.db) =>
  (await (await searchedOrders(db, search, userId)).select('id').orderBy('created_at', 'desc').orderBy('id', 'desc').execute()).map((r) => r.id);

const NAMES = [
  'John Receiver',
  'JOHN SMITH',
  'josé álvarez',
  'ÉMILE ZOLA',
  'Straße Müller',
  'Fedex 100% Person',
  'snake_case Co',
  'Ab',
  'O\'Brien "Quoted"',
  'Zoë 😀 Emoji',
];

let user: User;
let other: User;
let ids: Record<string, string>;
beforeAll(async () => {
  user = await fundedCustomer(t.app, 100_000, t.db);
  other = await fundedCustomer(t.app, 100_000, t.db);
  for (const name of NAMES) {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority', { ToName: name }), headers: user.headers });
    expect(res.statusCode, res.body).toBe(200);
  }
  await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority', { ToName: 'John Receiver' }), headers: other.headers });
  const rows = await t.db.selectFrom('orders').select(['id', 'to_name']).where('user_id', '=', user.userId).execute();
  ids = Object.fromEntries(rows.map((r) => [r.to_name, r.id]));
});

describe('order search', () => {
  it('finds what the contains test found, term by term (case, accents, wildcards, short terms, quotes)', async () => {
    const terms = [
      'john',
      'JOHN',
      'ohn s',
      'José',
      'JOSÉ',
      'álvarez',
      'alvarez',
      'émile',
      'emile',
      'ÉMILE',
      'zola',
      'straße',
      'STRASSE',
      'müller',
      '100%',
      '%',
      '0%',
      '_',
      'e_c',
      'snake_',
      'ab',
      'a',
      'b',
      "o'b",
      '"quoted"',
      '"',
      'zoë',
      '😀',
      'oë 😀',
      'receiver\njane',
      'jane',
      'sender',
      'nobody here',
      'Receiver Co',
      '\\',
      'john r',
      ' john',
      'john ',
      'smith ',
      'e z',
      'é zola',
      'josé á',
      'straße m',
      'e m',
      'o\'brien "q',
      '100% p',
      'x 100',
    ];
    for (const term of terms) {
      const expected = await before(term, user.userId);
      expect(await now(term, user.userId), term).toEqual(expected);
      expect(await now(term), `${term} (everyone's)`).toEqual(await before(term));
    }
  });

  it('keys every substring of a text by trigrams pg_trgm itself takes from the text (PostgreSQL)', async (ctx) => {
    if (!isPostgres(t.db)) ctx.skip();
    const texts = [
      'John Receiver',
      'josé álvarez',
      'Straße Müller-Lüdenscheidt',
      'O\'Brien "Quoted" 100%',
      'a b c',
      'Zoë 😀 Emoji',
      'x9\ny 42-7a',
      'İstanbul KELVIN',
    ];
    for (const text of texts) {
      const lowered = (await sql<{ l: string }>`select lower(${text}) as l`.execute(t.db)).rows[0].l;
      const { rows } = await sql<{ t: string[] }>`select order_search_keys('abcdefgh-user', ${lowered}) as t`.execute(t.db);
      const indexed = new Set(rows[0].t);
      for (let start = 0; start < lowered.length; start++) {
        for (let end = start + 1; end <= lowered.length; end++) {
          const part = lowered.slice(start, end);
          for (const key of trigramKeys(part, 'abcdefgh')) expect(indexed.has(key), `${key} of '${part}' in '${text}'`).toBe(true);
        }
      }
      // Every key is the owner's: the console's search over everyone's orders has no keys of its own.
      expect(
        [...indexed].filter((key) => !key.startsWith('abcdefgh')),
        text,
      ).toEqual([]);
    }
    // A text without a trigram has no key, not the owner's prefix alone.
    expect((await sql<{ t: string[] }>`select order_search_keys('abcdefgh-user', '!?') as t`.execute(t.db)).rows[0].t).toEqual([]);
  });

  it('finds names whatever their accents, both ways, through the index: nunez finds Núñez, Núñez finds Nunez', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    for (const ToName of ['Ana Núñez', 'Bob Nunez', 'Zoë Ångström', 'ŁUKASZ Dvořák', 'Plain Person'])
      expect(
        (await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority', { ToName }), headers: user.headers })).statusCode,
      ).toBe(200);
    const search = async () => {
      expect((await found(user, 'nunez')).sort()).toEqual(['Ana Núñez', 'Bob Nunez']);
      expect((await found(user, 'NÚÑEZ')).sort()).toEqual(['Ana Núñez', 'Bob Nunez']);
      expect(await found(user, 'zoe angstrom')).toEqual(['Zoë Ångström']);
      expect(await found(user, 'dvorak')).toEqual(['ŁUKASZ Dvořák']);
      expect(await found(user, 'nu')).toEqual(expect.arrayContaining(['Ana Núñez', 'Bob Nunez']));
    };
    await search(); // noted for the index, not yet in it
    await indexPendingOrders(t.db);
    await search(); // found through the index
    if (isPostgres(t.db)) {
      // The index's keys of the folded text hold the keys the search makes of the folded term.
      const { rows } = await sql<{ t: string[] }>`select order_search_keys('abcdefgh-user', search_fold(lower(${'Ana NÚÑEZ'}))) as t`.execute(t.db);
      for (const key of trigramKeys(searchFold('nunez'), 'abcdefgh')) expect(rows[0].t).toContain(key);
    }
  });

  it("is case-insensitive, takes % and _ literally and never shows another user's orders", async () => {
    expect(await found(user, 'jOhN')).toEqual(['JOHN SMITH', 'John Receiver']);
    expect(await found(user, '100%')).toEqual(['Fedex 100% Person']);
    expect(await found(user, 'e_c')).toEqual(['snake_case Co']);
    expect(await found(user, '_')).toEqual(['snake_case Co']);
    expect(await found(user, 'Ab')).toEqual(expect.arrayContaining(['Ab']));
    expect(await found(other, 'john')).toEqual(['John Receiver']);
  });

  it('finds an order by the start of its id: the order number people see, a longer start, the whole id', async () => {
    const id = ids['Straße Müller'];
    for (const start of [id.slice(0, 8).toUpperCase(), id.slice(0, 13), id.slice(0, 20), id]) {
      expect(await now(start, user.userId), start).toEqual(await before(start, user.userId));
      expect(await found(user, start), start).toContain('Straße Müller');
    }
    // Inside the id is not its start.
    expect(await now(id.slice(2, 10), user.userId)).toEqual(await before(id.slice(2, 10), user.userId));
  });

  it('follows the tracking number set when the label is made', async () => {
    const id = ids['ÉMILE ZOLA'];
    expect(await found(user, '7777123456')).toEqual([]);
    expect(await markAllCompleted(t.db, [{ id, tracking: '9405500000007777123456', pdfKey: 'labels/x.pdf' }], new Date().toISOString())).toEqual(new Set([id]));
    expect(await found(user, '7777123456')).toEqual(['ÉMILE ZOLA']);
    // Two characters also find an order whose id starts with them (1 in 256 of random ids): as the reference does.
    expect(await found(user, '77')).toContain('ÉMILE ZOLA');
    expect(await now('77', user.userId)).toEqual(await before('77', user.userId));
    expect(await found(user, '7777123456', '&status=completed')).toEqual(['ÉMILE ZOLA']);
    expect(await found(user, '7777123456', '&status=processing')).toEqual([]);
  });

  it('forgets a deleted order, also when a new order takes its place', async () => {
    const [row] = await t.db.selectFrom('orders').selectAll().where('id', '=', ids['Zoë 😀 Emoji']).execute();
    await t.db.deleteFrom('orders').where('id', '=', row.id).execute();
    expect(await found(user, 'zoë')).toEqual([]);
    // In its place: the user's kept order count stays right.
    await t.db
      .insertInto('orders')
      .values({ ...row, id: newId(), tracking_token: null, to_name: 'Someone Else' })
      .execute();
    expect(await found(user, 'zoë')).toEqual([]);
    expect(await found(user, 'someone else')).toEqual(['Someone Else']);
  });

  it('pages and counts a common term the same way when too many orders match for the index', async () => {
    const [template] = await t.db.selectFrom('orders').selectAll().where('user_id', '=', user.userId).limit(1).execute();
    const many: OrderRow[] = Array.from({ length: 450 }, (_, i) => ({
      ...template,
      id: newId(),
      tracking_token: null,
      to_name: `Common Name ${i}`,
      tracking: `94055${String(i).padStart(17, '0')}`,
      created_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    }));
    await insertOrders(t.db, many);
    for (const term of ['common name', 'common name 1', 'common name 44', '0000000000000004', 'name 449']) {
      expect(await now(term, user.userId), term).toEqual(await before(term, user.userId));
      const expected = await before(term, user.userId);
      const page = (await list(user, `?limit=20&page=2&search=${encodeURIComponent(term)}`)).json();
      expect(page.total, term).toBe(expected.length);
      expect(page.orders.map((o: { _id: string }) => o._id)).toEqual(expected.slice(20, 40));
    }
  });

  it('finds the orders placed after a search of the same term, whose trigrams it counted rare then', async () => {
    expect(await found(user, 'kept count')).toEqual([]);
    const [template] = await t.db.selectFrom('orders').selectAll().where('user_id', '=', user.userId).limit(1).execute();
    // The counts kept from the search above (none) are stale now. Few enough for the index to narrow the search (at
    // least 100 candidates are tested one by one), so the orders are found through it, not by testing every order.
    await insertOrders(
      t.db,
      Array.from({ length: 20 }, (_, i) => ({
        ...template,
        id: newId(),
        tracking_token: null,
        to_name: `Kept Count ${i}`,
        created_at: new Date(Date.UTC(2026, 1, 1, 0, i)).toISOString(),
      })),
    );
    const expected = await before('kept count', user.userId);
    expect(expected).toHaveLength(20);
    expect(await now('kept count', user.userId)).toEqual(expected);
    expect((await list(user, '?limit=10&search=kept%20count')).json().total).toBe(20);
  });

  it('pages past the middle from the other end, the same rows in the same order', async () => {
    const all = async (sort: 'asc' | 'desc', extra: string) => (await list(user, `?limit=100&sort=${sort}${extra}`)).json();
    for (const extra of ['', '&status=processing', '&search=name%204']) {
      for (const sort of ['desc', 'asc'] as const) {
        const expected: string[] = [];
        for (let page = 1; ; page++) {
          const body = (await list(user, `?limit=100&page=${page}&sort=${sort}${extra}`)).json();
          if (body.orders.length === 0) break;
          expected.push(...body.orders.map((o: { _id: string }) => o._id));
        }
        const { total } = await all(sort, extra);
        expect(expected).toHaveLength(total);
        expect(new Set(expected).size).toBe(total);
        const pages: string[] = [];
        for (let page = 1; page <= Math.ceil(total / 7) + 1; page++)
          pages.push(...(await list(user, `?limit=7&page=${page}&sort=${sort}${extra}`)).json().orders.map((o: { _id: string }) => o._id));
        expect(pages, `${sort}${extra}`).toEqual(expected);
      }
    }
  });

  it("is the console's search too, over every customer's orders", async () => {
    for (const term of ['john', 'JOHN', '100%', 'e_c', 'common name 4', ids['JOHN SMITH'].slice(0, 8)]) {
      const { rows, total } = await listAllOrders(t.db, { search: term }, { offset: 0, limit: 500 });
      const expected = await before(term);
      expect(
        rows.map((r) => r.id),
        term,
      ).toEqual(expected);
      expect(total).toBe(expected.length);
    }
  });
});

describe('order search while the index catches up (SQLite)', () => {
  it('finds orders noted for the index and not yet in it, then the same once in it, and an order changed since', async (ctx) => {
    if (isPostgres(t.db)) ctx.skip();
    // A database of its own, without the app's pass that indexes noted orders every 200 ms: each state is seen for sure.
    const own = await createTestDb();
    try {
      await own.db
        .insertInto('users')
        .values(await t.db.selectFrom('users').selectAll().execute())
        .execute();
      await own.db
        .insertInto('label_types')
        .values(await t.db.selectFrom('label_types').selectAll().execute())
        .execute();
      const copied = await t.db.selectFrom('orders').selectAll().where('user_id', 'in', [user.userId, other.userId]).execute();
      // More than one pass takes (500).
      const orders = [
        ...copied,
        ...Array.from({ length: 600 - copied.length }, (_, i) => ({ ...copied[0], id: newId(), tracking_token: null, to_name: `Extra Order ${i}` })),
      ];
      await insertOrders(own.db, orders);
      const terms = ['john', 'josé', 'ÉMILE', '100%', 'common name 4', 'someone', 'extra order 5', ids['JOHN SMITH'].slice(0, 8), '7777123456', '88881234'];
      const same = async (state: string) => {
        for (const term of terms) {
          expect(await now(term, user.userId, own.db), `${term}, ${state}`).toEqual(await before(term, user.userId, own.db));
          expect(await now(term, undefined, own.db), `${term}, ${state}, everyone's`).toEqual(await before(term, undefined, own.db));
        }
      };
      const noted = async () => Number((await sql<{ n: number }>`select count(*) as n from orders_search_pending`.execute(own.db)).rows[0].n);
      expect(await noted()).toBe(orders.length);
      expect(await before('john', user.userId, own.db)).toHaveLength(2);
      await same('noted');
      // A pass takes 500 at most; the rest wait for the next.
      let indexed = 0;
      for (let n = await indexPendingOrders(own.db); n > 0; n = await indexPendingOrders(own.db)) indexed += n;
      expect(indexed).toBe(orders.length);
      expect(await noted()).toBe(0);
      await same('indexed');
      // A new tracking number: noted again, while the index still holds the order as it was.
      const id = ids['JOHN SMITH'];
      await markAllCompleted(own.db, [{ id, tracking: '9405500000088881234000', pdfKey: 'labels/y.pdf' }], new Date().toISOString());
      expect(await noted()).toBe(1);
      expect(await now('88881234', user.userId, own.db)).toEqual([id]);
      await same('changed, noted');
      expect(await indexPendingOrders(own.db)).toBe(1);
      expect(await now('88881234', user.userId, own.db)).toEqual([id]);
      await same('changed, indexed');
      // The index holds each order once: what it finds for a trigram every order has is every order.
      const { rows } = await sql<{ n: number }>`select count(*) as n from orders_search where orders_search match '"ive"'`.execute(own.db);
      expect(Number(rows[0].n)).toBe(orders.filter((o) => /ive/i.test(`${o.from_name}\n${o.to_name}`)).length);
      await own.db.deleteFrom('orders').where('id', '=', id).execute();
      expect(await now('88881234', user.userId, own.db)).toEqual([]);
      // The noted orders are read from the noted rows, each order by its rowid, never from the customer's orders
      // (a first version read a heavy customer's 10,000 orders for every search: p99 over 300 ms).
      const asked: RootOperationNode[] = [];
      const capture: KyselyPlugin = { transformQuery: ({ node }) => (asked.push(node), node), transformResult: async ({ result }) => result };
      await searchedOrders(own.db.withPlugin(capture), 'john', user.userId);
      const candidates = asked.map((node) => own.db.getExecutor().compileQuery(node, { queryId: 'plan' })).find((q) => q.sql.includes('orders_search_pending'));
      const plan = await own.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${candidates!.sql}`, [...candidates!.parameters]));
      const details = plan.rows.map((r) => r.detail).join('\n');
      expect(details).toMatch(/SCAN orders_search_pending/);
      expect(details).not.toMatch(/orders USING .*user_id/);
    } finally {
      await own.db.destroy();
      await own.drop();
    }
  });
});

describe('order search while the index catches up (PostgreSQL)', () => {
  it("a pass moves the GIN index's pending entries into it, off the statements that make orders, and the search finds the same", async (ctx) => {
    if (!isPostgres(t.db)) ctx.skip();
    // A database of its own, without the app's pass every 200 ms: each state is seen for sure.
    const own = await createTestDb();
    try {
      await own.db
        .insertInto('users')
        .values(await t.db.selectFrom('users').selectAll().execute())
        .execute();
      await own.db
        .insertInto('label_types')
        .values(await t.db.selectFrom('label_types').selectAll().execute())
        .execute();
      const copied = await t.db.selectFrom('orders').selectAll().where('user_id', 'in', [user.userId, other.userId]).execute();
      await insertOrders(own.db, [
        ...copied,
        ...Array.from({ length: 600 - copied.length }, (_, i) => ({ ...copied[0], id: newId(), tracking_token: null, to_name: `Extra Order ${i}` })),
      ]);
      const terms = ['john', 'josé', 'ÉMILE', '100%', 'extra order 5', ids['JOHN SMITH'].slice(0, 8)];
      const same = async (state: string) => {
        for (const term of terms) expect(await now(term, user.userId, own.db), `${term}, ${state}`).toEqual(await before(term, user.userId, own.db));
      };
      await same('pending');
      expect(await indexPendingOrders(own.db)).toBeGreaterThan(0);
      expect(await indexPendingOrders(own.db)).toBe(0);
      await same('in the index');
    } finally {
      await own.db.destroy();
      await own.drop();
    }
  });
});
