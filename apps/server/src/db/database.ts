import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { searchFold } from './fold.ts';
import { isDatabaseUnavailable } from './unavailable.ts';
import type { PoolClient } from 'pg';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type SqliteDatabase as KyselySqliteDatabase,
  type Transaction,
} from 'kysely';
import type { Database } from './schema.ts';
import { migrationProvider } from './migrations/index.ts';
import SqliteDatabase, { sqliteDriverPath } from './sqlite-driver.ts';

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
export type DbOrTrx = Db | Trx;

export type DatabaseOptions = {
  /** postgres://... for PostgreSQL; otherwise SQLite at sqliteFile. */
  url?: string;
  sqliteFile: string;
  /** PostgreSQL schema to work in (tests give each run its own). */
  pgSchema?: string;
  poolSize?: number;
  /** Where a connection that PostgreSQL ended (a restart, a failover, an admin's pg_terminate_backend) is reported. */
  log?: { warn(fields: { err: unknown }, message: string): void };
};

export function createDatabase(options: DatabaseOptions): Db {
  if (options.url) {
    // pg is loaded on the first query: a shop on SQLite never loads it.
    const pool = async () => {
      const { default: pg } = await import('pg');
      // PostgreSQL bigint (money in cents) arrives as a string by default; our amounts fit a JS number exactly.
      pg.types.setTypeParser(20, (value) => Number(value));
      const made = new pg.Pool({
        connectionString: options.url,
        max: options.poolSize ?? 10,
        options: options.pgSchema ? `-c search_path=${options.pgSchema}` : undefined,
      });
      // A connection PostgreSQL ends is an 'error' event on its client, and on the pool when the client was idle: with no
      // listener Node throws it, and the uncaught exception ended every process within a second or two of a database
      // restart. The pool drops the broken client and opens a new one for the next query; a query that was running on
      // it fails, and is answered as the database being unavailable (publicError).
      const lost = (error: unknown) => options.log?.warn({ err: error }, 'a database connection was lost');
      made.on('connect', (client) => void client.on('error', lost));
      made.on('error', () => {}); // an idle client's error, passed on by the pool: logged by the client's listener
      made.on('connect', endWhenBroken);
      made.on('connect', prepareStatements());
      // Planned as if the tables were in memory (or on SSD), where a page read at random costs little more than one read
      // in turn. At the default (4) a customer owning a tenth of 100,000 orders had their page read by walking every
      // order by date and testing its owner; their own index reads only their ten. Sent before the client's first
      // query; a connection that refused it would plan as PostgreSQL does by default.
      made.on('connect', (client) => void client.query('set random_page_cost = 1.1').catch(() => {}));
      return made;
    };
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  if (options.sqliteFile !== ':memory:') fs.mkdirSync(path.dirname(options.sqliteFile), { recursive: true });
  const sqlite = new SqliteDatabase(options.sqliteFile);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // A group of changes (changeInGroup) keeps each under a savepoint, whose journal SQLite spilled past 64 KiB into a
  // temporary file: an open, an unlink and a dozen writes per order on the request thread. In memory it stays as
  // small as the pages the group changes.
  sqlite.pragma('temp_store = MEMORY');
  // The order search's accent-insensitive test (orders/order-search.ts), called only for names that are not plain ASCII.
  sqlite.function('search_fold', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? searchFold(text) : text));
  // An in-memory database has no WAL to checkpoint.
  const checkpointer = options.sqliteFile === ':memory:' ? null : startCheckpointer(sqlite, options.sqliteFile);
  // The thread opens its connection once it has started, and closes it after this one: a database is destroyed once
  // the thread has ended, so a folder removed next holds nothing the thread then writes (it once made the database
  // file anew in a test's folder being removed; it now never makes one).
  const checkpointerGone = checkpointer ? new Promise<void>((resolve) => checkpointer.once('exit', () => resolve())) : Promise.resolve();
  const close = () => {
    checkpointer?.ref(); // kept unreferenced while it works; its end is now awaited, so the process must wait for it
    checkpointer?.postMessage('stop');
    sqlite.close();
  };
  return new Kysely<Database>({ dialect: new WriteLockingSqliteDialect(withStatementCache(sqlite, close), checkpointerGone) });
}

/**
 * SQLite: every transaction takes the write lock as it begins (BEGIN IMMEDIATE), waiting up to busy_timeout for it.
 * A deferred transaction that read first failed at once with SQLITE_BUSY when it came to write while another process
 * (a worker, the admin CLI) held the lock: SQLite never waits to turn a reader into a writer. Within a process
 * Kysely runs one transaction at a time on the one connection anyway.
 */
class WriteLockingSqliteDialect extends SqliteDialect {
  readonly #database: KyselySqliteDatabase;
  readonly #closed: Promise<void>;
  constructor(database: KyselySqliteDatabase, closed: Promise<void>) {
    super({ database });
    this.#database = database;
    this.#closed = closed;
  }
  override createDriver() {
    return new WriteLockingSqliteDriver({ database: this.#database }, this.#closed);
  }
}

class WriteLockingSqliteDriver extends SqliteDriver {
  readonly #closed: Promise<void>;
  constructor(config: { database: KyselySqliteDatabase }, closed: Promise<void>) {
    super(config);
    this.#closed = closed;
  }
  override async beginTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
  /** Kysely closes the database without waiting for what its close starts (the checkpoint thread's end). */
  override async destroy() {
    await super.destroy();
    await this.#closed;
  }
}

/** How often the checkpoint thread copies the WAL's new pages into the database file. */
const CHECKPOINT_EVERY_MS = 100;
/**
 * The WAL's length (4 KiB pages) at which the app's own connection checkpoints after a commit, as SQLite does by
 * default at 1,000: only if the thread falls behind or is gone.
 */
const FALLBACK_CHECKPOINT_PAGES = 20_000;

/**
 * A thread with a connection of its own that checkpoints `sqlite`'s WAL every CHECKPOINT_EVERY_MS (passive: it never waits
 * for, nor blocks, the app's reads and writes). SQLite's automatic checkpoint runs inside the commit that crosses
 * 1,000 pages, on the request thread: under load that was a 6-8 ms stall several times a second.
 */
function startCheckpointer(sqlite: BetterSqlite3.Database, file: string): Worker {
  sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_CHECKPOINT_PAGES}`);
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
    const db = new (require(workerData.driver))(workerData.file, { fileMustExist: true });
    db.pragma('synchronous = NORMAL');
    const timer = setInterval(() => {
      try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {} // a busy or failing pass leaves the work to the next, or to the fallback
    }, workerData.everyMs);
    parentPort.once('message', () => { clearInterval(timer); db.close(); parentPort.close(); });`,
    {
      eval: true,
      execArgv: [],
      workerData: { driver: sqliteDriverPath, file: path.resolve(file), everyMs: CHECKPOINT_EVERY_MS },
    },
  );
  worker.on('error', () => {}); // the fallback checkpoints then
  worker.unref();
  return worker;
}

/** Prepared statements kept per SQLite connection: the app asks the same few hundred queries over and over. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query again; preparing costs about as much as running a short one. Statements are
 * kept by their SQL, the least recently used dropped past STATEMENT_CACHE_SIZE. Safe because Kysely runs
 * each statement to its end at once (nothing here streams rows from SQLite).
 */
function withStatementCache(sqlite: BetterSqlite3.Database, close: () => void): KyselySqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepare = (source: string) => {
    let statement = statements.get(source);
    if (statement) statements.delete(source);
    else statement = sqlite.prepare(source);
    statements.set(source, statement);
    if (statements.size > STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
    return statement;
  };
  return { prepare, close };
}

/**
 * A client whose query failed because its connection broke is ended, so that the pool drops it when Kysely gives it
 * back: PostgreSQL's "terminating connection" reaches the query before the socket closes, and the next query took the
 * same client from the pool and failed too.
 */
function endWhenBroken(client: PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  client.query = ((...args: unknown[]) =>
    query(...args).catch((error: unknown) => {
      if (isDatabaseUnavailable(error)) client.end().catch(() => {});
      throw error;
    })) as PoolClient['query'];
}

/** Statements named per pool; the ones met past this many are sent unnamed, parsed and planned each time. */
const PREPARED_STATEMENT_LIMIT = 500;
/** Longer statements (a multi-row insert) are not named: rare, and each connection would keep their text and plan. */
const PREPARED_STATEMENT_MAX_LENGTH = 4_000;

/**
 * PostgreSQL: the app's statements are prepared once per connection (named), as SQLite's are kept
 * (withStatementCache); parsing and planning a short query costs PostgreSQL more than running it (order history
 * pages: about a fifth more per second). PostgreSQL plans a named statement for its values in its first five runs,
 * and only then keeps a generic plan, where that costs no more. Returns the pool's 'connect' listener.
 *
 * A table changed under a prepared `select *` (a migration run by another process) fails the runs already under
 * way ("cached plan must not change result type"); the names are then handed out anew, so every connection prepares
 * its statements again.
 */
function prepareStatements(): (client: PoolClient) => void {
  let names = new Map<string, string>();
  let generation = 0;
  return (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    client.query = ((...args: unknown[]) => {
      const [text, values] = args;
      const named = args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0 && text.length <= PREPARED_STATEMENT_MAX_LENGTH;
      if (!named) return query(...args);
      let name = names.get(text);
      if (!name && names.size < PREPARED_STATEMENT_LIMIT) names.set(text, (name = `p${generation}_${names.size}`));
      if (!name) return query(text, values);
      return query({ name, text, values }).catch((error: { message?: string }) => {
        if (error?.message === 'cached plan must not change result type') {
          names = new Map();
          generation += 1;
        }
        throw error;
      });
    }) as PoolClient['query'];
  };
}

/**
 * Held while migrating and while dropping a schema. Kysely's migrator lists the tables of every schema in the
 * database, and that listing fails when another schema's table is dropped under it (parallel test runs drop
 * their schemas as they end).
 */
export const SCHEMA_CHANGE_LOCK = 7_400_740;

/** Runs the migrations not yet run, up to the newest (or up to `upTo`: upgrade tests start from an older schema). */
export async function migrateToLatest(db: Db, upTo?: string): Promise<void> {
  const { error, results } = await withMigrator(db, (migrator) => (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest()));
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
}

/** Runs `work` with the migrator of this database: on PostgreSQL on one connection, holding the schema-change lock, in its own schema. */
export async function withMigrator<T>(db: Db, work: (migrator: Migrator) => Promise<T>): Promise<T> {
  if (!isPostgres(db)) return work(new Migrator({ db, provider: migrationProvider }));
  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${SCHEMA_CHANGE_LOCK})`.execute(connection);
    try {
      // Kysely looks for its migration tables in every schema unless told which; with several schemas in one
      // database it would find another's and skip creating its own.
      const schema = (await sql<{ name: string }>`select current_schema() as name`.execute(connection)).rows[0]?.name;
      return await work(new Migrator({ db: connection, provider: migrationProvider, migrationTableSchema: schema }));
    } finally {
      await sql`select pg_advisory_unlock(${SCHEMA_CHANGE_LOCK})`.execute(connection);
    }
  });
}

export const isPostgres = (db: DbOrTrx): boolean => db.getExecutor().adapter.constructor.name.startsWith('Postgres');

/**
 * Holds the user's row until the transaction ends, so that changes of theirs that check something first (a balance, an
 * address book's twins and size) go one at a time. SQLite needs none: its transactions take the write lock as they begin.
 */
export async function lockUser(trx: DbOrTrx, userId: string): Promise<void> {
  if (isPostgres(trx)) await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
}
