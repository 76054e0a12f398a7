import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, testDbKind, type TestApp } from '../../../test/harness.ts';
import { orderPayload } from '../../../test/order-fixtures.ts';
import { fundedCustomer } from '../../../test/customers.ts';
import { isPostgres, type Trx } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';
import { eventRow } from '../../lib/shop-events.ts';
import { INSUFFICIENT_BALANCE, changeBalance, configureGroupWriter, ledgerSumCents } from './ledger.ts';

// Changes given the database itself, all asked for at once, are written together (changeInGroup: on SQLite in one
// transaction, on PostgreSQL in one statement); each is still written or refused on its own.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const storedBalance = async (userId: string) =>
  Number((await t.db.selectFrom('users').select('balance_cents').where('id', '=', userId).executeTakeFirstOrThrow()).balance_cents);
const ledgerRows = async (userId: string) => (await t.db.selectFrom('ledger').select('id').where('user_id', '=', userId).execute()).length;

it('changes asked for at once are each written or refused: the debits that fit, every credit, a ledger row for each', async () => {
  const spender = await fundedCustomer(t.app, 1_000, t.db);
  const other = await fundedCustomer(t.app, 0, t.db);
  const debit = () => changeBalance(t.db, { userId: spender.userId, amountCents: -300, kind: 'adjustment', reference: null });
  const results = await Promise.allSettled([
    debit(),
    changeBalance(t.db, { userId: other.userId, amountCents: 250, kind: 'adjustment', reference: null }),
    debit(),
    debit(),
    debit(),
    debit(),
  ]);

  const refused = results.filter((r) => r.status === 'rejected');
  expect(refused).toHaveLength(2);
  for (const r of refused) expect((r as PromiseRejectedResult).reason).toMatchObject({ statusCode: 402, message: INSUFFICIENT_BALANCE });
  const balances = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<number>).value);
  expect(balances.sort((a, b) => a - b)).toEqual([100, 250, 400, 700]);
  expect(await storedBalance(spender.userId)).toBe(100);
  expect(await ledgerSumCents(t.db, spender.userId)).toBe(100);
  expect(await ledgerRows(spender.userId)).toBe(1 + 3); // the funding and three debits
  expect(await storedBalance(other.userId)).toBe(250);
  expect(await ledgerRows(other.userId)).toBe(1);
});

it('with no gather window (LEDGER_GATHER_MS=0) changes asked for at once are still each written or refused, a ledger row for each', async () => {
  const spender = await fundedCustomer(t.app, 1_000, t.db);
  configureGroupWriter(t.db, { gatherMs: 0 });
  try {
    const debit = () => changeBalance(t.db, { userId: spender.userId, amountCents: -300, kind: 'adjustment', reference: null });
    const results = await Promise.allSettled([debit(), debit(), debit(), debit()]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
  } finally {
    configureGroupWriter(t.db, { gatherMs: 5 });
  }
  expect(await storedBalance(spender.userId)).toBe(100);
  expect(await ledgerSumCents(t.db, spender.userId)).toBe(100);
  expect(await ledgerRows(spender.userId)).toBe(1 + 3);
});

it('a change after a quiet spell is written at once; one asked for soon after another waits the window for company', async () => {
  const user = await fundedCustomer(t.app, 1_000, t.db);
  const statements: unknown[] = [];
  // A database object of its own has a group and settings of its own: nothing was asked of it, so it is quiet.
  const db = t.db.withPlugin({ transformQuery: ({ node }) => (statements.push(node), node), transformResult: async ({ result }) => result });
  const change = () => changeBalance(db, { userId: user.userId, amountCents: -100, kind: 'adjustment', reference: null });
  configureGroupWriter(db, { gatherMs: 60_000 });
  // Not a minute later: the test would time out first.
  expect(await change()).toBe(900);
  configureGroupWriter(db, { gatherMs: 300 });
  const roundTrip = () => t.db.selectFrom('users').select('id').limit(1).execute();
  await roundTrip(); // the first's writer is done: a change asked for while it writes joins it at once
  const before = statements.length;
  const second = change();
  // Asked for after a round trip to the database: it joins the second, which waits the window.
  await roundTrip();
  const third = change();
  expect(await Promise.all([second, third])).toEqual([800, 700]);
  if (isPostgres(t.db)) expect(statements.length - before).toBe(1);
});

it('changes asked for at once that all fit are written in turn: each answers, and its ledger row keeps, the balance after it', async () => {
  const user = await fundedCustomer(t.app, 1_000, t.db);
  const other = await fundedCustomer(t.app, 500, t.db);
  const statements: unknown[] = [];
  const db = t.db.withPlugin({ transformQuery: ({ node }) => (statements.push(node), node), transformResult: async ({ result }) => result });
  const change = (userId: string, amountCents: number) => changeBalance(db, { userId, amountCents, kind: 'adjustment', reference: null });
  expect(await Promise.all([change(user.userId, -100), change(other.userId, -200), change(user.userId, -300), change(user.userId, 50)])).toEqual([
    900, 300, 600, 650,
  ]);
  // On PostgreSQL the group is one statement (the customers' rows locked once), not one per change.
  if (isPostgres(t.db)) expect(statements).toHaveLength(1);

  const rows = await t.db
    .selectFrom('ledger')
    .select(['amount_cents', 'balance_after_cents'])
    .where('user_id', '=', user.userId)
    .orderBy('created_at')
    .execute();
  expect(rows.map((row) => [Number(row.amount_cents), Number(row.balance_after_cents)])).toEqual([
    [1_000, 1_000],
    [-100, 900],
    [-300, 600],
    [50, 650],
  ]);
  expect(await storedBalance(user.userId)).toBe(650);
  expect(await storedBalance(other.userId)).toBe(300);
});

it('a change whose order cannot be written takes no money and leaves no ledger row, and the others with it are written', async () => {
  const user = await fundedCustomer(t.app, 5_000, t.db);
  const made = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
  expect(made.statusCode).toBe(200);
  const model = await t.db.selectFrom('orders').selectAll().where('user_id', '=', user.userId).executeTakeFirstOrThrow();
  const before = await storedBalance(user.userId);
  const rowsBefore = await ledgerRows(user.userId);
  // The same new order paid for twice: the second cannot be inserted (its id is taken by then).
  const order = { ...model, id: newId(), tracking_token: null };
  const pay = (paidOrder: typeof order) =>
    changeBalance(t.db, { userId: user.userId, amountCents: -100, kind: 'adjustment', reference: null }, { orders: [paidOrder] });
  const logged: unknown[][] = [];
  configureGroupWriter(t.db, { log: { warn: (...args: unknown[]) => logged.push(args), error: (...args: unknown[]) => logged.push(args) } as never });
  const results = await Promise.allSettled([pay(order), pay(order), pay({ ...model, id: newId(), tracking_token: null })]);
  configureGroupWriter(t.db, { log: undefined });
  // On PostgreSQL the group's statement failed and its changes were written one by one: the failure is logged.
  if (isPostgres(t.db))
    expect(logged.map(([, message]) => message)).toEqual(['the group statement of balance changes failed; its changes are written one by one']);
  else expect(logged).toEqual([]);

  expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'fulfilled', 'rejected']);
  expect(await storedBalance(user.userId)).toBe(before - 200);
  expect(await ledgerRows(user.userId)).toBe(rowsBefore + 2);
  expect(await ledgerSumCents(t.db, user.userId)).toBe(before - 200);
  expect(await t.db.selectFrom('orders').select('id').where('id', '=', order.id).execute()).toHaveLength(1);
});

it('orders paid for at once are written with their rows (the order, its event) and their charges, in one statement on PostgreSQL', async () => {
  const user = await fundedCustomer(t.app, 5_000, t.db);
  const made = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
  expect(made.statusCode).toBe(200);
  const model = await t.db.selectFrom('orders').selectAll().where('user_id', '=', user.userId).executeTakeFirstOrThrow();
  const statements: unknown[] = [];
  const db = t.db.withPlugin({ transformQuery: ({ node }) => (statements.push(node), node), transformResult: async ({ result }) => result });
  const orders = [1, 2, 3].map(() => ({ ...model, id: newId(), tracking_token: null }));
  const at = new Date().toISOString();
  const pay = (order: typeof model) =>
    changeBalance(
      db,
      { userId: user.userId, amountCents: -100, kind: 'order_charge', reference: order.id },
      { orders: [order], shop_events: [eventRow({ type: 'order.completed', userId: user.userId, orderId: order.id }, at)] },
    );
  const before = await storedBalance(user.userId);
  expect((await Promise.all(orders.map(pay))).sort((a, b) => b - a)).toEqual([before - 100, before - 200, before - 300]);
  if (isPostgres(t.db)) expect(statements).toHaveLength(1);
  const ids = orders.map((o) => o.id);
  expect((await t.db.selectFrom('orders').select('id').where('id', 'in', ids).execute()).map((o) => o.id).sort()).toEqual([...ids].sort());
  const events = await t.db.selectFrom('shop_events').select(['id', 'user_id', 'subject_id']).where('subject_id', 'in', ids).execute();
  expect(events.map((e) => e.id).sort()).toEqual(ids.map((id) => `order.completed:${id}`).sort());
  expect(await ledgerSumCents(t.db, user.userId)).toBe(before - 300);
});

it.runIf(testDbKind === 'postgres')(
  'a charge rewrites the customer row in place on PostgreSQL: no index holds the balance, so it adds no index entries',
  async () => {
    const user = await fundedCustomer(t.app, 1_000, t.db);
    // The connection's counts not yet reported (earlier transactions' among them), before and after the charges.
    const counts = async (trx: Trx) =>
      (
        await sql<{
          updated: string;
          hot: string;
        }>`select pg_stat_get_xact_tuples_updated('users'::regclass) as updated, pg_stat_get_xact_tuples_hot_updated('users'::regclass) as hot`.execute(trx)
      ).rows[0];
    const [before, after] = await t.db.transaction().execute(async (trx) => {
      const first = await counts(trx);
      await changeBalance(trx, { userId: user.userId, amountCents: -100, kind: 'adjustment', reference: null });
      await changeBalance(trx, { userId: user.userId, amountCents: 40, kind: 'adjustment', reference: null });
      return [first, await counts(trx)];
    });
    expect(Number(after.updated) - Number(before.updated)).toBe(2);
    expect(Number(after.hot) - Number(before.hot)).toBe(2);
    expect(await storedBalance(user.userId)).toBe(940);
  },
);
