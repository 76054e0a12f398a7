import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import { isPostgres, type Db, type DbOrTrx } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { newId, nowIsoIncreasing } from '../../lib/ids.ts';
import { paymentRequired } from '../../lib/http-errors.ts';

export const INSUFFICIENT_BALANCE = 'Insufficient balance';

export type LedgerKind =
  | 'deposit'
  | 'deposit_bonus'
  | 'order_charge'
  | 'order_refund'
  | 'bulk_charge'
  | 'bulk_refund'
  | 'fedex_charge'
  | 'fedex_refund'
  | 'label_refund'
  | 'pickup_fee'
  | 'pickup_refund'
  | 'adjustment';

export type BalanceChange = {
  userId: string;
  /** Positive credits, negative debits. */
  amountCents: number;
  kind: LedgerKind;
  /** What caused it (order id, invoice id, ...); unique per kind, so a cause moves money once. */
  reference: string | null;
  note?: string;
};

/**
 * The caller's rows that exist only if the change is made, by table (an order and the event announcing it, written
 * with the charge that pays for it): inserted with the change, in its statement on PostgreSQL, or not at all.
 */
export type RowsWithChange = { [T in keyof Database]?: Database[T][] };

/**
 * The only way a balance changes: one conditional update (never below zero) and its ledger row, with the caller's
 * `rows` when given. Throws 402 'Insufficient balance' when a debit does not fit, and nothing is written.
 *
 * In the caller's transaction, or given the database itself, together with the changes asked for at the same moment
 * (changeInGroup). On PostgreSQL the update, the ledger row and the caller's rows are one statement, so the customer's
 * row is locked only while the database runs it, never while an answer travels to the app and back.
 */
export async function changeBalance(db: DbOrTrx, change: BalanceChange, rows: RowsWithChange = {}): Promise<number> {
  if (!Number.isSafeInteger(change.amountCents) || change.amountCents === 0) throw new Error(`Bad ledger amount ${change.amountCents}`);
  if (!db.isTransaction) return changeInGroup(db as Db, change, rows);
  return changeOne(db, change, rows);
}

const ledgerEntry = (change: BalanceChange) => ({
  id: newId(),
  user_id: change.userId,
  amount_cents: change.amountCents,
  kind: change.kind,
  reference: change.reference,
  note: change.note ?? '',
  // Increasing, so a deposit and its bonus written together keep their order in a statement.
  created_at: nowIsoIncreasing(),
});

/** The tables of the rows given with a change, each with its rows. */
const tablesOf = (rows: RowsWithChange) => Object.entries(rows).filter(([, list]) => list && list.length > 0) as [keyof Database, object[]][];

/** One change in the caller's transaction, or on PostgreSQL in a statement of its own. */
async function changeOne(db: DbOrTrx, change: BalanceChange, rows: RowsWithChange): Promise<number> {
  const entry = ledgerEntry(change);
  const debited = db
    .updateTable('users')
    .set({ balance_cents: sql`balance_cents + ${change.amountCents}` })
    .where('id', '=', change.userId)
    .where(sql<boolean>`balance_cents + ${change.amountCents} >= 0`)
    .returning('balance_cents');
  if (isPostgres(db)) {
    // Each row is inserted from `changed`: without the debit, nothing is.
    const insertFromChanged = (table: string, row: object) =>
      sql`insert into ${sql.table(table)} (${columnList(Object.keys(row))}) select ${sql.join(Object.values(row).map((value) => sql`${value}`))} from changed`;
    const given = tablesOf(rows).flatMap(([table, list]) =>
      list.map((row, i) => sql`, ${sql.ref(`given_${table}_${i}`)} as (${insertFromChanged(table, row)})`),
    );
    const ledgerRow = { ...entry, balance_after_cents: sql.ref('balance_cents') };
    const { rows: written } = await sql<{
      balance_after_cents: number;
    }>`with changed as (${debited})${sql.join(given, sql``)} ${insertFromChanged('ledger', ledgerRow)} returning balance_after_cents`.execute(db);
    if (!written[0]) throw paymentRequired(INSUFFICIENT_BALANCE);
    return written[0].balance_after_cents;
  }
  const updated = await debited.executeTakeFirst();
  if (!updated) throw paymentRequired(INSUFFICIENT_BALANCE);
  await db
    .insertInto('ledger')
    .values({ ...entry, balance_after_cents: updated.balance_cents })
    .execute();
  for (const [table, list] of tablesOf(rows))
    await db
      .insertInto(table)
      .values(list as never)
      .execute();
  return updated.balance_cents;
}

/**
 * Column names of the code's own rows, quoted here rather than by sql.ref: parsing the ~70 references of a group's
 * statement cost the app more than the database took to run it.
 */
const columnList = (names: string[], alias?: string) => sql.raw(names.map((name) => (alias ? `${alias}.${quoted(name)}` : quoted(name))).join(', '));

/** Changes written together at most. */
const GROUP_LIMIT = 64;

/**
 * The group writer's settings of a database, given by the composition root: its gather window (LEDGER_GATHER_MS) and
 * where a failed group statement is logged.
 *
 * The window is how long the first change of a group waits for others. Concurrent orders reach their payment one by
 * one, each when its label is made, so without a wait most groups held one order (on SQLite, whose writes run on this
 * thread, nearly all). Waiting 2 ms, at 32 connections: 1 to 6 orders a group, and 10-17% more orders a second on
 * SQLite. Waiting 5 ms cut what an order cost beside its label by another 0.1 ms on either database (SQLite 1.00 ->
 * 0.88 ms, PostgreSQL with its server 1.56 -> 1.40 ms), for 2-3 ms more at the median of orders offered at a third of
 * capacity. A change after a quiet spell does not wait (QUIET_WINDOWS). 0: a group is written at the end of the event
 * loop's turn, with the changes asked for in it or while the last one was written. See ARCHITECTURE.md#ledger-gather-window.
 */
export type GroupWriterSettings = { gatherMs: number; log?: Pick<FastifyBaseLogger, 'warn' | 'error'> };
const DEFAULT_SETTINGS: GroupWriterSettings = { gatherMs: 5 };
const settings = new WeakMap<Db, GroupWriterSettings>();

export function configureGroupWriter(db: Db, changes: Partial<GroupWriterSettings>): void {
  settings.set(db, { ...(settings.get(db) ?? DEFAULT_SETTINGS), ...changes });
}
const settingsOf = (db: Db) => settings.get(db) ?? DEFAULT_SETTINGS;

type Waiting = { change: BalanceChange; rows: RowsWithChange; resolve: (balance: number) => void; reject: (error: unknown) => void };
type Group = { waiting: Waiting[]; writing: boolean; lastAskedAt: number };
const groups = new WeakMap<Db, Group>();

/**
 * A change asked for after a quiet spell (no other within this many gather windows) does not wait: company within the
 * window is then unlikely, and a lone order would pay the whole window (5 ms of a single label bought upstream).
 */
const QUIET_WINDOWS = 10;

/**
 * A change of its own, written together with the others asked for within the gather window of the group's first or
 * while the last group was written; each is still written or refused on its own. Concurrent orders touch mostly the
 * same rows and pages (the customer's row, the ends of the indexes). On SQLite, which writes every page a transaction
 * touched at its commit, a commit per order cost about 0.35 ms under load, a group's about 0.2 ms per order. On
 * PostgreSQL a statement per order had a customer's concurrent orders queue on the lock of their row, each holder
 * delaying all behind it whenever it waited for a core. Each caller hears of its own change once its group is committed.
 */
function changeInGroup(db: Db, change: BalanceChange, rows: RowsWithChange): Promise<number> {
  let group = groups.get(db);
  if (!group) groups.set(db, (group = { waiting: [], writing: false, lastAskedAt: -Infinity }));
  const written = new Promise<number>((resolve, reject) => group.waiting.push({ change, rows, resolve, reject }));
  const { gatherMs } = settingsOf(db);
  const askedAt = performance.now();
  const busy = askedAt - group.lastAskedAt < QUIET_WINDOWS * gatherMs;
  group.lastAskedAt = askedAt;
  if (!group.writing) {
    group.writing = true;
    // Without a wait, still the changes asked for in this turn of the event loop (a request's several, a burst).
    if (busy) setTimeout(() => void writeGroups(db, group), gatherMs);
    else setImmediate(() => void writeGroups(db, group));
  }
  return written;
}

/**
 * Writes the waiting changes a group at a time until none waits. Whatever happens, the writer is free again at the end
 * (finally), and a group whose writing throws is refused whole: its callers hear the error, and the next group is
 * written, rather than every later change waiting for a writer that never comes back.
 */
async function writeGroups(db: Db, group: Group): Promise<void> {
  const write = isPostgres(db) ? writeGroupPostgres : writeGroupSqlite;
  try {
    while (group.waiting.length > 0) {
      const batch = group.waiting.splice(0, GROUP_LIMIT);
      try {
        await write(db, batch);
      } catch (error) {
        settingsOf(db).log?.error({ err: error, changes: batch.length }, 'a group of balance changes could not be written');
        for (const { reject } of batch) reject(error); // no-op for a change already answered
      }
    }
  } finally {
    group.writing = false;
  }
}

/** SQLite: one transaction, each change under a savepoint, so one that fails (a balance too low) leaves the others. */
async function writeGroupSqlite(db: Db, batch: Waiting[]): Promise<void> {
  const answers: (() => void)[] = [];
  try {
    await db.transaction().execute(async (trx) => {
      for (const { change, rows, resolve, reject } of batch) {
        await sql`savepoint balance_change`.execute(trx);
        try {
          const balance = await changeOne(trx, change, rows);
          answers.push(() => resolve(balance));
        } catch (error) {
          await sql`rollback to balance_change`.execute(trx);
          answers.push(() => reject(error));
        }
        await sql`release balance_change`.execute(trx);
      }
    });
    for (const answer of answers) answer();
  } catch (error) {
    for (const { reject } of batch) reject(error); // nothing of the group was written
  }
}

/**
 * PostgreSQL: the whole group in one statement (changeAllAtOnce). The changes of a customer whose balance would not
 * cover them in turn, and all of them if the statement fails (an order that cannot be written), are then written
 * each in a statement of its own, which refuses or fails just that one.
 */
async function writeGroupPostgres(db: Db, batch: Waiting[]): Promise<void> {
  const balances = await changeAllAtOnce(db, batch).catch((error: unknown) => {
    settingsOf(db).log?.warn({ err: error, changes: batch.length }, 'the group statement of balance changes failed; its changes are written one by one');
    return new Map<number, number>();
  });
  await Promise.all(
    batch.map(({ change, rows, resolve, reject }, i) => {
      const balance = balances.get(i);
      if (balance !== undefined) return resolve(balance);
      return changeOne(db, change, rows).then(resolve, reject);
    }),
  );
}

/**
 * The changes of each customer whose balance covers every one of them in turn (never below zero on the way), with
 * their ledger rows and the rows given with them, in one statement: the balance after each change, by its place in
 * `batch`. Customers' rows are locked in the order of their ids, so two processes' groups wait for each other, never
 * deadlock.
 */
async function changeAllAtOnce(db: Db, batch: Waiting[]): Promise<Map<number, number>> {
  // A change without rows of a table leaves that table out of its JSON: null in SQL, and no rows.
  const items = batch.map(({ change, rows }, i) => ({ i, user_id: change.userId, amount: change.amountCents, ledger: ledgerEntry(change), rows }));
  const ledgerColumns = Object.keys(items[0].ledger);
  const columnsOf = new Map<string, Set<string>>();
  for (const { rows } of items) {
    for (const [table, list] of tablesOf(rows))
      for (const row of list) for (const column of Object.keys(row)) columnsOf.set(table, (columnsOf.get(table) ?? new Set()).add(column));
  }
  const given = [...columnsOf].map(([table, columns], n) => {
    const names = columnList([...columns]);
    return sql`, ${sql.ref(`given_${n}`)} as (insert into ${sql.table(table)} (${names}) select ${columnList([...columns], 'r')}
        from after a cross join lateral jsonb_populate_recordset(null::${sql.table(table)}, a.rows->${table}::text) r)`;
  });
  const { rows } = await sql<{ i: number; balance: number }>`
    with input as (
      select (c->>'i')::int as i, c->>'user_id' as user_id, (c->>'amount')::bigint as amount, c->'ledger' as ledger, c->'rows' as rows
      from jsonb_array_elements(${JSON.stringify(items)}::jsonb) c
    ),
    running as (select *, sum(amount) over (partition by user_id order by i) as upto from input),
    need as (select user_id, sum(amount) as total, min(upto) as lowest from running group by user_id),
    locked as (select u.id from users u join need n on n.user_id = u.id order by u.id for update of u),
    changed as (
      update users u set balance_cents = u.balance_cents + n.total from need n, locked l
      where u.id = n.user_id and l.id = u.id and u.balance_cents + least(n.lowest, 0) >= 0
      returning u.id, u.balance_cents
    ),
    after as (select r.*, c.balance_cents - n.total + r.upto as balance from running r join changed c on c.id = r.user_id join need n on n.user_id = r.user_id),
    ledgered as (
      insert into ledger (${columnList(ledgerColumns)}, balance_after_cents)
      select ${columnList(ledgerColumns, 'l')}, a.balance from after a cross join lateral jsonb_populate_record(null::ledger, a.ledger) l
    )${sql.join(given, sql``)}
    select i, balance from after`.execute(db);
  return new Map(rows.map((row) => [row.i, Number(row.balance)]));
}

/** A column name of the code's own rows, quoted for PostgreSQL. */
function quoted(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Unexpected column name ${name}`);
  return `"${name}"`;
}

export async function ledgerSumCents(db: DbOrTrx, userId: string): Promise<number> {
  const row = await db
    .selectFrom('ledger')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_cents'), sql<number>`0`).as('total'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}
