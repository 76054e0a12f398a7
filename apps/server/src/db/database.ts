import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import type { Database } from './schema.ts';
import { migrationProvider } from './migrations/index.ts';

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
export type DbOrTrx = Db | Trx;

// PostgreSQL bigint (money in cents) arrives as a string by default; our amounts fit a JS number exactly.
pg.types.setTypeParser(20, (value) => Number(value));

export type DatabaseOptions = {
  /** postgres://... for PostgreSQL; otherwise SQLite at sqliteFile. */
  url?: string;
  sqliteFile: string;
  /** PostgreSQL schema to work in (tests give each run its own). */
  pgSchema?: string;
  poolSize?: number;
};

export function createDatabase(options: DatabaseOptions): Db {
  if (options.url) {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      options: options.pgSchema ? `-c search_path=${options.pgSchema}` : undefined,
    });
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  if (options.sqliteFile !== ':memory:') fs.mkdirSync(path.dirname(options.sqliteFile), { recursive: true });
  const sqlite = new SqliteDatabase(options.sqliteFile);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
}

export async function migrateToLatest(db: Db): Promise<void> {
  // Kysely looks for its migration tables in every schema unless told which; with several schemas in one
  // database (parallel test runs) it would find another's and skip creating its own.
  const schema = isPostgres(db) ? (await sql<{ name: string }>`select current_schema() as name`.execute(db)).rows[0]?.name : undefined;
  const migrator = new Migrator({ db, provider: migrationProvider, migrationTableSchema: schema });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
}

export const isPostgres = (db: DbOrTrx): boolean => db.getExecutor().adapter.constructor.name.startsWith('Postgres');
