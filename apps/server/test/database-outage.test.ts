// The database going away is an outage, not a crash: the built shop (a web process and a worker, on BullMQ and on the
// embedded queue) on a PostgreSQL of the test's own, restarted and its connections ended in the middle of a bulk order
// and of single orders. No process exits, every label is bought once, and the ledger still adds up to the balances.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, expect, it, vi } from 'vitest';
import { createDatabase, type Db } from '../src/db/database.ts';
import { DATABASE_UNAVAILABLE_MESSAGE } from '../src/lib/http-errors.ts';
import { csvText, usRows } from './bulk-fixtures.ts';
import { dropRedisPrefix, testDbKind } from './harness.ts';
import { orderPayload } from './order-fixtures.ts';
import { freePort, postForm, processGroup } from './processes.ts';
import { fundedCustomer } from './customers.ts';
import { uniqueId } from './basics.ts';

const run = promisify(execFile);
const BULK_ROWS = 200;
const SINGLE_ORDERS = 40;
/** The test's own connections, left alone when the shop's are ended. */
const TEST_APP_NAME = 'outage_test';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.error(error));
});

/** The folder of PostgreSQL's programs (initdb, pg_ctl), null without them, or as root without a `postgres` user to run them. */
const whichPostgres = (() => {
  try {
    if (process.getuid?.() === 0) execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    return path.dirname(execFileSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' }).trim());
  } catch {
    return null;
  }
})();

/**
 * A PostgreSQL server of its own on a free port, its files in a temp folder removed on cleanup. initdb refuses to run as
 * root: as root (CI) it runs as the `postgres` user through runuser.
 */
async function startOwnPostgres() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const pg = (tool: string, args: string[]) => {
    const bin = path.join(whichPostgres!, tool);
    return asRoot ? run('runuser', ['-u', 'postgres', '--', bin, ...args]) : run(bin, args);
  };
  let started = false;
  cleanups.push(async () => {
    if (started) await pg('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']).catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  });
  if (asRoot) {
    const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' })));
    fs.chownSync(dir, uid, gid);
  }
  const port = await freePort();
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions']);
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off -c max_connections=200`;
  await pg('pg_ctl', ['start', '-D', data, '-l', path.join(dir, 'log'), '-w', '-o', options]);
  started = true;
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const admin = createDatabase({ url: `${url('postgres')}?application_name=${TEST_APP_NAME}`, sqliteFile: '' });
  cleanups.push(() => admin.destroy());
  return {
    url,
    /** A database of its own and the test's connection to it. */
    async database(name: string): Promise<Db> {
      await sql.raw(`create database ${name}`).execute(admin);
      const db = createDatabase({ url: `${url(name)}?application_name=${TEST_APP_NAME}`, sqliteFile: '' });
      cleanups.push(() => db.destroy());
      return db;
    },
    /** `pg_ctl restart -m fast`: every connection is ended, and the server is down until it has started again; its duration. */
    async restart(): Promise<number> {
      const start = performance.now();
      await pg('pg_ctl', ['restart', '-D', data, '-m', 'fast', '-w', '-l', path.join(dir, 'log')]);
      return performance.now() - start;
    },
    /** Stops the server (fast) until `start`. */
    stop: () => pg('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']),
    start: () => pg('pg_ctl', ['start', '-D', data, '-l', path.join(dir, 'log'), '-w', '-o', options]),
    /** Ends the shop's connections (every one but the test's), as pg_terminate_backend by an operator; how many. */
    async endConnections(): Promise<number> {
      const ended = await sql<{ pid: number }>`select pid from pg_stat_activity
        where backend_type = 'client backend' and pid <> pg_backend_pid() and application_name <> ${TEST_APP_NAME} and pg_terminate_backend(pid)`.execute(
        admin,
      );
      return ended.rows.length;
    },
  };
}

/** Waits until `check` holds (it may fail while the database is away); past `ms`, the error names `what`, told then. */
const eventually = (check: () => Promise<boolean>, ms: number, what: string | (() => Promise<string> | string)) =>
  vi
    .waitFor(async () => expect(await check().catch(() => false)).toBe(true), { timeout: ms, interval: 100 })
    .catch(async () => {
      throw new Error(`timed out waiting for ${await (typeof what === 'string' ? what : what())}`);
    });

/** The last lines of a process's log, each as its message and its error's. */
const lastLines = (log: string) =>
  log
    .trim()
    .split('\n')
    .slice(-5)
    .map((line) => {
      try {
        const { msg, err } = JSON.parse(line) as { msg?: string; err?: { message?: string } };
        return `  ${msg}${err ? `: ${err.message}` : ''}`;
      } catch {
        return `  ${line.slice(0, 300)}`;
      }
    })
    .join('\n');

let postgres: Awaited<ReturnType<typeof startOwnPostgres>> | undefined;
const timings: Record<string, number[]> = { restartMs: [], backAfterRestartMs: [], bulkDoneAfterRestartMs: [] };

// Once, beside the other process tests: the PostgreSQL is the test's own, not the one of the 'postgres' project.
const engines = [...(process.env.TEST_REDIS_URL ? (['bullmq'] as const) : []), 'embedded'] as const;
it.runIf(testDbKind === 'sqlite' && whichPostgres !== null).each(engines)(
  'on %s, PostgreSQL restarted and its connections ended during a 200-row bulk order and single orders: no process exits, each label is bought and charged once',
  async (engine) => {
    postgres ??= await startOwnPostgres();
    const name = `outage_${engine}`;
    const db = await postgres.database(name);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-outage-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const callLog = path.join(dataDir, 'label-calls.log');
    const prefix = uniqueId('test-outage');
    if (engine === 'bullmq') cleanups.push(() => dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix));
    const env = {
      DATABASE_URL: postgres.url(name),
      ...(engine === 'bullmq' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix } : { REDIS_URL: '' }),
      DATA_DIR: dataDir,
      WEB_DIST: path.join(dataDir, 'no-web'),
      LOG_LEVEL: 'warn',
      SMTP_URL: '',
      ALTCHA_MAX_NUMBER: '1000',
      RATE_LIMIT_MAX: '10000',
      LABEL_SANDBOX_CALL_LOG: callLog,
      LABEL_RENDER_THREADS: '0',
    };
    const processes = processGroup();
    cleanups.push(() => processes.stopAll());
    const web = await processes.startBuilt('server', { ...env, QUEUE_RUN_WORKERS: 'false' });
    const worker = await processes.startBuilt('worker', env);
    const url = web.url;
    /** How the processes are doing, for a failure's message: a process that exited, with the end of its log. */
    /** The web process's last requests that failed, for a 500's message. */
    const failedRequests = () =>
      lastLines(
        web
          .output()
          .split('\n')
          .filter((line) => line.includes('"msg":"request failed"'))
          .join('\n'),
      );
    const state = () =>
      [web, worker]
        .map(
          (p, i) =>
            `${i ? 'worker' : 'web'}: ${p.exitCode() === null && !p.signalCode() ? 'running' : `exited ${p.exitCode() ?? p.signalCode()}`}\n${lastLines(p.output())}`,
        )
        .join('\n');

    const { token, userId } = await fundedCustomer(url, 5_000_000, db);

    // A restart while the worker makes the bulk order's labels, then the connections the shop opened again are ended.
    const csv = csvText(usRows(BULK_ROWS));
    const { totalPrice } = await postForm(url, '/order/validatecsv', token, { labeltype: 'uspsv9' }, csv);
    await postForm(url, '/order/createOrderFromCSV', token, { type: 'uspsv9', total_price: String(totalPrice), design: '' }, csv);
    const bulk = () => db.selectFrom('bulk_orders').select(['id', 'status', 'progress']).where('user_id', '=', userId).executeTakeFirstOrThrow();
    await eventually(async () => (await bulk()).progress > 0, 60_000, 'the bulk order to start');
    const progressAtRestart = (await bulk()).progress;
    timings.restartMs.push(await postgres.restart());
    const back = performance.now();
    await eventually(
      async () => (await fetch(`${url}/readyz`)).ok,
      30_000,
      () => `the web process to be ready again\n${state()}`,
    );
    timings.backAfterRestartMs.push(performance.now() - back);
    await eventually(
      async () => (await bulk()).progress > progressAtRestart,
      60_000,
      async () => `the bulk order to go on: ${JSON.stringify(await bulk())}\n${state()}`,
    );
    expect(await postgres.endConnections()).toBeGreaterThan(0);
    await eventually(
      async () => (await bulk()).status === 'completed',
      120_000,
      async () => `${JSON.stringify(await bulk())}\n${state()}`,
    );
    timings.bulkDoneAfterRestartMs.push(performance.now() - back);

    // Single orders, 10 at a time: a restart during the second batch, the connections ended during the third.
    const answers: number[] = [];
    const order = () =>
      fetch(`${url}/api/v1/order/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(orderPayload('priority')),
      }).then(async (response) => {
        answers.push(response.status);
        if (response.status === 503) expect(response.headers.get('retry-after')).toBe('5');
        else expect(response.status, `${await response.text()}\n${failedRequests()}`).toBe(200);
      });
    for (let batch = 0; batch < SINGLE_ORDERS / 10; batch++) {
      const sent = Promise.all(Array.from({ length: 10 }, order));
      if (batch === 1) timings.restartMs.push(await postgres.restart());
      if (batch === 2) await postgres.endConnections();
      await sent;
    }
    // While the database is down the web process says it is not ready, and a request is answered 503 with Retry-After.
    await postgres.stop();
    const ready = await fetch(`${url}/readyz`);
    expect([ready.status, (await ready.json()).checks.database]).toEqual([503, expect.stringMatching(/^failing: /)]);
    const away = await fetch(`${url}/api/v1/auth/access`, { headers: { authorization: `Bearer ${token}` } });
    expect([away.status, away.headers.get('retry-after'), await away.json()]).toEqual([503, '5', { message: DATABASE_UNAVAILABLE_MESSAGE }]);
    await postgres.start();
    // The shop serves again without a restart of its own.
    await eventually(
      async () => (await fetch(`${url}/readyz`)).ok,
      30_000,
      () => `the web process to be ready again\n${state()}`,
    );
    await order();
    expect(answers.at(-1)).toBe(200);
    await eventually(
      async () =>
        (await db.selectFrom('orders').select('id').where('user_id', '=', userId).where('status', 'in', ['pending', 'processing']).execute()).length === 0,
      60_000,
      () => `every order to be settled\n${state()}`,
    );

    // Neither process exited on its own: each now stops as asked (0), having finished what it had in hand.
    expect(await Promise.all([web.stop(), worker.stop()]), state()).toEqual([0, 0]);

    const orders = await db.selectFrom('orders').select(['id', 'status', 'bulk_order_id']).where('user_id', '=', userId).execute();
    const { id: bulkId } = await bulk();
    expect(orders.filter((o) => o.bulk_order_id === bulkId && o.status === 'completed')).toHaveLength(BULK_ROWS);
    const singles = orders.filter((o) => o.bulk_order_id === null);
    // Every order answered 200 was made; one answered 503 was either never taken or made (its label bought once).
    expect(singles.length).toBeGreaterThanOrEqual(answers.filter((status) => status === 200).length);
    expect(singles.filter((o) => o.status !== 'completed')).toEqual([]);
    const lines = fs.readFileSync(callLog, 'utf8').trim().split('\n');
    const count = (what: string, id: string) => lines.filter((line) => line === `${what} ${id}`).length;
    expect(orders.filter((o) => count('create', o.id) !== 1 || count('made', o.id) !== 1)).toEqual([]);
    const charges = await db
      .selectFrom('ledger')
      .select(['kind', 'reference'])
      .where('user_id', '=', userId)
      .where('kind', 'in', ['order_charge', 'bulk_charge'])
      .execute();
    expect(charges.filter((c) => c.kind === 'bulk_charge')).toEqual([{ kind: 'bulk_charge', reference: bulkId }]);
    const singleCharges = charges.filter((c) => c.kind === 'order_charge').map((c) => c.reference);
    expect(singleCharges.sort()).toEqual(singles.map((o) => o.id).sort());
    // The ledger adds up to every balance.
    const sums = await db
      .selectFrom('users')
      .leftJoin('ledger', 'ledger.user_id', 'users.id')
      .select(['users.id', 'users.balance_cents', (eb) => eb.fn.coalesce(eb.fn.sum<number>('ledger.amount_cents'), eb.lit(0)).as('sum')])
      .groupBy(['users.id', 'users.balance_cents'])
      .execute();
    expect(sums.filter((u) => Number(u.sum) !== Number(u.balance_cents))).toEqual([]);
    console.log(
      `${engine}: answers ${JSON.stringify(answers.reduce<Record<number, number>>((n, s) => ({ ...n, [s]: (n[s] ?? 0) + 1 }), {}))}, ${JSON.stringify(timings)}`,
    );
  },
  300_000,
);
