import fs from 'node:fs';
import os from 'node:os';
import { on } from 'node:events';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import SqliteDatabase, { sqliteDriverPath } from './sqlite-driver.ts';
import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createTestDb } from '../../test/harness.ts';
import { createDatabase, type Db } from './database.ts';
import { publicError } from '../lib/http-errors.ts';
import { uniqueId } from '../../test/basics.ts';

// Most tests here are SQLite's own (its write-ahead log, its locks); one is PostgreSQL's (prepared statements).
const onSqlite = process.env.TEST_DB !== 'postgres';
let dir = '';
let db: Db | undefined;
let dropTestDb: (() => Promise<void>) | undefined;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-db-test-'));
});
afterEach(async () => {
  await db?.destroy();
  db = undefined;
  await dropTestDb?.();
  dropTestDb = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Rows of `t` in a copy of the database file alone, without its WAL: what has been checkpointed into it (-1: a copy taken mid-checkpoint). */
function rowsInDatabaseFile(file: string): number {
  const copy = path.join(dir, 'copy.sqlite');
  fs.copyFileSync(file, copy);
  const reader = new SqliteDatabase(copy, { readonly: true });
  try {
    const made = reader.prepare("select 1 from sqlite_master where name = 't'").get();
    return made ? (reader.prepare('select count(*) as n from t').get() as { n: number }).n : 0;
  } catch {
    return -1;
  } finally {
    reader.close();
  }
}

it.runIf(onSqlite)('the WAL is checkpointed into the database file by a thread of its own, not by the commits', async () => {
  const file = path.join(dir, 'portal.sqlite');
  db = createDatabase({ sqliteFile: file });
  await sql`create table t (id integer primary key, body text)`.execute(db);
  // 300 commits of a 4 KiB row each: past the 1,000 pages at which a commit would checkpoint on its own, short of the fallback.
  for (let i = 0; i < 300; i++) await sql`insert into t (body) values (${'x'.repeat(4000)})`.execute(db);
  await expect.poll(() => rowsInDatabaseFile(file), { timeout: 10_000, interval: 50, message: 'rows checkpointed into the database file' }).toBe(300);
  const [{ wal_autocheckpoint: fallback }] = (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db)).rows;
  expect(fallback).toBeGreaterThan(300 * 2); // so the commits above did not checkpoint themselves
});

it.runIf(onSqlite)('is destroyed once the checkpoint thread has ended: nothing of it works on the files after', async () => {
  const threads = () => fs.readdirSync('/proc/self/task').length;
  await fs.promises.access(dir); // libuv's file threads start with the first asynchronous file call: before counting
  const before = threads();
  const file = path.join(dir, 'portal.sqlite');
  const own = createDatabase({ sqliteFile: file });
  await sql`create table t (id integer primary key, body text)`.execute(own);
  await sql`insert into t (body) values ('x')`.execute(own);
  expect(threads()).toBe(before + 1);
  await own.destroy();
  // A thread still at work once destroy answered wrote the files of a folder being removed (a test's rmSync failed
  // with ENOTEMPTY). The last connection closed also removes the WAL and shm files.
  expect(threads()).toBe(before);
  expect(fs.readdirSync(dir)).toEqual(['portal.sqlite']);
});

it.runIf(onSqlite)('the checkpoint thread never makes a database file: one removed before the thread opens it stays removed', async () => {
  const file = path.join(dir, 'portal.sqlite');
  const own = createDatabase({ sqliteFile: file });
  fs.rmSync(file); // at once: the thread takes milliseconds to start
  await sql`select 1`.execute(own); // Kysely closes only a database it has used
  await own.destroy();
  expect(fs.existsSync(file)).toBe(false);
});

it.runIf(onSqlite)('keeps the journal of a savepoint in memory: changing many pages under one opens no temporary file', async () => {
  db = createDatabase({ sqliteFile: path.join(dir, 'portal.sqlite') });
  await sql`create table t (id integer primary key, body text)`.execute(db);
  for (let i = 0; i < 100; i++) await sql`insert into t (body) values (${'x'.repeat(4000)})`.execute(db);
  // SQLite names its temporary files etilqs_*, unlinked as soon as they are open: only this process's open files show them.
  const temporaryFiles = () =>
    fs.readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`).includes('etilqs_');
      } catch {
        return false; // closed since it was listed
      }
    });
  const seen = await db.transaction().execute(async (trx) => {
    await sql`savepoint change`.execute(trx);
    // About 400 KiB of pages that existed before the savepoint: their old contents go to its journal.
    await sql`update t set body = ${'y'.repeat(4000)}`.execute(trx);
    const open = temporaryFiles();
    await sql`release change`.execute(trx);
    return open;
  });
  expect(seen).toEqual([]);
  expect((await sql<{ n: number }>`select count(*) as n from t where body like 'y%'`.execute(db)).rows[0].n).toBe(100);
});

it.runIf(onSqlite)("a transaction that reads and then writes waits for another process's write rather than failing", async () => {
  const file = path.join(dir, 'portal.sqlite');
  db = createDatabase({ sqliteFile: file });
  await sql`create table t (id integer primary key, body text)`.execute(db);
  await sql`insert into t (body) values ('first')`.execute(db);
  // The other process: a connection on a thread of its own that, when told to, tries once to take the write lock and
  // says whether it got it ('holding') or was kept out ('kept out', then it waits for the lock); it writes, holding the lock 300 ms.
  const other = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
    const db = new (require(workerData.driver))(workerData.file);
    db.pragma('busy_timeout = 0');
    parentPort.once('message', () => {
      try {
        db.exec('begin immediate');
        parentPort.postMessage('holding');
      } catch (error) {
        if (error.code !== 'SQLITE_BUSY') throw error;
        parentPort.postMessage('kept out');
        db.pragma('busy_timeout = 5000');
        db.exec('begin immediate');
      }
      db.prepare("insert into t (body) values ('other')").run();
      for (const until = Date.now() + 300; Date.now() < until; );
      db.exec('commit');
      db.close();
      parentPort.postMessage('written');
    });`,
    { eval: true, workerData: { driver: sqliteDriverPath, file } },
  );
  try {
    const messages = on(other, 'message'); // kept in order until read
    const answer = async () => ((await messages.next()).value as [string])[0];
    const answers: string[] = [];
    await db.transaction().execute(async (trx) => {
      const [first] = (await sql<{ body: string }>`select body from t where id = 1`.execute(trx)).rows;
      other.postMessage('write');
      answers.push(await answer()); // the other process has tried to write meanwhile
      await sql`update t set body = ${`${first.body} seen`} where id = 1`.execute(trx);
    });
    answers.push(await answer());
    expect(answers).toEqual(['kept out', 'written']);
    expect((await sql`select body from t order by id`.execute(db)).rows).toEqual([{ body: 'first seen' }, { body: 'other' }]);
  } finally {
    await other.terminate();
  }
});

it.runIf(!onSqlite)('PostgreSQL prepares a statement once per connection, and again once its table changed under it', async () => {
  const made = await createTestDb();
  dropTestDb = made.drop;
  await sql`create table t (id integer primary key, body text)`.execute(made.db);
  await sql`insert into t values (1, 'one')`.execute(made.db);
  await made.db.connection().execute(async (connection) => {
    const read = async () => (await sql`select * from t where id = ${1}`.execute(connection)).rows;
    const prepared = async () =>
      (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(connection)).rows.filter((r) =>
        r.statement.includes('from t where'),
      );
    expect(await read()).toEqual([{ id: 1, body: 'one' }]);
    expect(await read()).toEqual([{ id: 1, body: 'one' }]);
    expect(await prepared()).toEqual([{ statement: 'select * from t where id = $1' }]);

    await sql`alter table t add column note text`.execute(made.db);
    await expect(read()).rejects.toThrow('cached plan must not change result type');
    expect(await read()).toEqual([{ id: 1, body: 'one', note: null }]);
    expect(await prepared()).toHaveLength(2);
  });
});

it.runIf(!onSqlite)('PostgreSQL ending a pooled connection, idle, in a query or in a transaction, is logged, not thrown: the next query works', async () => {
  const made = await createTestDb();
  dropTestDb = made.drop;
  // The pool under test names its connections, so that only they are ended (tests run side by side on this server).
  const name = uniqueId('portal_test');
  const logged: unknown[] = [];
  const log = { warn: (fields: { err?: unknown }) => void logged.push(fields.err) };
  db = createDatabase({ url: `${made.databaseUrl}&application_name=${name}`, sqliteFile: '', log });
  const end = () => sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${name}`.execute(made.db);

  await sql`select 1`.execute(db);
  await end();
  await expect.poll(() => logged.length).toBeGreaterThan(0);
  expect((await sql<{ n: number }>`select 2 as n`.execute(db)).rows).toEqual([{ n: 2 }]);

  // Its failure is caught at once: it may come while the test still awaits the end, and would be unhandled till then.
  const slow = sql`select pg_sleep(5)`.execute(db).then(
    () => null,
    (failed: unknown) => failed,
  );
  await expect
    .poll(async () => (await sql`select 1 from pg_stat_activity where application_name = ${name} and state = 'active'`.execute(made.db)).rows.length)
    .toBe(1);
  await end();
  const error = await slow;
  expect(publicError(error as Error)).toMatchObject({ statusCode: 503, headers: { 'retry-after': '5' } });
  expect((await sql<{ n: number }>`select 3 as n`.execute(db)).rows).toEqual([{ n: 3 }]);

  // In a transaction, Kysely's rollback on the broken connection fails too, and its error is the one thrown.
  const inTransaction = db
    .transaction()
    .execute((trx) => sql`select pg_sleep(5)`.execute(trx))
    .then(
      () => null,
      (failed: unknown) => failed,
    );
  await expect
    .poll(async () => (await sql`select 1 from pg_stat_activity where application_name = ${name} and state = 'active'`.execute(made.db)).rows.length)
    .toBe(1);
  await end();
  const rolledBack = await inTransaction;
  expect(publicError(rolledBack as Error)).toMatchObject({ statusCode: 503 });
  expect((await sql<{ n: number }>`select 4 as n`.execute(db)).rows).toEqual([{ n: 4 }]);
});
