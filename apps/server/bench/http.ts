import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon, { type Result } from 'autocannon';
import pg from 'pg';
import { SCHEMA_CHANGE_LOCK } from '../src/db/database.ts';
import { randomToken } from '../src/lib/ids.ts';
import { medianBy } from './median.ts';
import { resultRow } from './result-row.ts';
import { openLoop } from './open-loop.ts';
import { SERVER_HEAP_FLAG } from './bulk.ts';
import { LABEL_BENCH_SECONDS, measurePool } from './labels.ts';
import { CREATE_ORDER_BODY, RATES_BODY } from './bulk-fixtures.ts';
import { SMOKE, knob, sized } from './smoke.ts';

type Ready = {
  port: number;
  token: string;
  heavyToken: string;
  database: string;
  seedOrdersSeconds: number;
  indexSeconds: number;
  totalOrders: number;
  benchUserOrders: number;
  heavyUserOrders: number;
  benchSample: number;
  heavySample: number;
};
type BenchServer = { ready: Ready; base: string; stop: () => Promise<void>; setGatherMs: (gatherMs: number | null) => Promise<number> };

const CONNECTIONS = sized(32, 4);
const SECONDS = knob('BENCH_SECONDS', 10, 0.2);
/** The rows beyond the main ones (status filter, the heavy user) run this long. */
const EXTRA_SECONDS = sized(Math.max(2, Math.round(SECONDS / 2)), SECONDS);
/** Table sizes the order history is measured at. */
const SIZES = (process.env.BENCH_HTTP_ORDERS ?? (SMOKE ? '1000' : '100000,1000000')).split(',').map(Number);
/** The heavy user's share of each table: a tenth (100,000 of 1,000,000). */
const HEAVY_SHARE = 0.1;
const READ_TARGET_MS = 25;
const SEARCH_TARGET_MS = 50;
const CREATE_TARGET_MS = 50;
/** The issue's target for a quote on the sandbox: every enabled type priced here. */
const SANDBOX_QUOTE_TARGET_MS = 30;
/** Orders made before order creation is measured. */
const CREATE_WARM_SECONDS = sized(30, 0.4);
/** A measurement's warm-up (JIT, caches, render threads). */
const WARM_SECONDS = sized(2, 0.2);

const WIDTH = 44;
const row = (name: string, r: Result, targetMs?: number, bare?: Result) =>
  resultRow(name, r, WIDTH, bare && { result: bare, what: 'bare' }) + (targetMs ? `   (target p99 < ${targetMs} ms)` : '');

async function withPg<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function pgReachable(url: string): Promise<boolean> {
  try {
    await withPg(url, (client) => client.query('select 1'));
    return true;
  } catch {
    return false;
  }
}

/**
 * bench/http-server.ts in its own process with `orders` orders, on SQLite or in a new schema of PostgreSQL. Its data
 * directory and schema are made here and removed by stop(), also when the server fails to start.
 */
async function startServer(orders: number, pgUrl?: string): Promise<BenchServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-http-'));
  const schema =
    pgUrl &&
    `bench_http_${randomToken(9)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')}`;
  let child: ReturnType<typeof fork> | undefined;
  const stop = async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.send('stop');
      await exited;
    }
    if (pgUrl && schema) {
      // Under the lock the migrations take: another process's migrator may be listing every schema's tables.
      await withPg(pgUrl, async (client) => {
        await client.query('begin');
        await client.query('select pg_advisory_xact_lock($1)', [SCHEMA_CHANGE_LOCK]);
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.query('commit');
      });
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    if (pgUrl) await withPg(pgUrl, (client) => client.query(`create schema ${schema}`));
    const env = {
      ...process.env,
      BENCH_ORDERS: String(orders),
      BENCH_HEAVY_USER_ORDERS: String(Math.round(orders * HEAVY_SHARE)),
      BENCH_DATA_DIR: dataDir,
      ...(pgUrl && schema ? { BENCH_PG_URL: pgUrl, BENCH_PG_SCHEMA: schema } : {}),
    };
    child = fork(path.join(import.meta.dirname, 'http-server.ts'), [], {
      execArgv: [SERVER_HEAP_FLAG, '--import', 'tsx'],
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const started = child;
    const ready = await new Promise<Ready>((resolve, reject) => {
      started.once('message', (m) => resolve(m as Ready));
      started.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    });
    const setGatherMs = (gatherMs: number | null) =>
      new Promise<number>((resolve) => {
        started.once('message', (m) => resolve((m as { gatherMs: number }).gatherMs));
        started.send({ gatherMs });
      });
    return { ready, base: `http://127.0.0.1:${ready.port}`, stop, setGatherMs };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** One route at CONNECTIONS connections: warmed for WARM_SECONDS (2 s) or `warmSeconds` (JIT, caches, render threads), then measured. */
async function measure(
  server: BenchServer,
  url: string,
  options: { token?: string; seconds?: number; warmSeconds?: number; method?: string; body?: string } = {},
) {
  const headers = { authorization: `Bearer ${options.token ?? server.ready.token}`, 'content-type': 'application/json' };
  const request = {
    url: `${server.base}${url}`,
    connections: CONNECTIONS,
    headers,
    ...(options.method ? { method: options.method as 'POST', body: options.body } : {}),
  };
  await autocannon({ ...request, duration: options.warmSeconds ?? WARM_SECONDS });
  return autocannon({ ...request, duration: options.seconds ?? SECONDS });
}

const read = (query: string) => `/api/v1/order/read?${query}`;

/** The order history: a page, a status filter, searches by name and by tracking fragment, and a heavy user's last page and search. */
async function measureReads(server: BenchServer, bare?: Result): Promise<void> {
  const { heavyUserOrders, benchSample, heavySample } = server.ready;
  const page = await measure(server, read('search=&status=&sort=&page=1&limit=10'));
  console.log(row('GET /order/read', page, READ_TARGET_MS, bare));
  const status = await measure(server, read('status=completed&page=2&limit=10'), { seconds: EXTRA_SECONDS });
  console.log(row('GET /order/read status=completed, page 2', status, READ_TARGET_MS));
  // One of the measured user's orders by its receiver, and by the last 8 digits of its tracking number.
  const name = await measure(server, read(`search=${encodeURIComponent(`Receiver ${benchSample}`)}&page=1&limit=10`));
  console.log(row(`GET /order/read search=Receiver ${benchSample}`, name, SEARCH_TARGET_MS));
  const fragment = String(benchSample).padStart(9, '0').slice(-8);
  const tracking = await measure(server, read(`search=${fragment}&page=1&limit=10`));
  console.log(row(`GET /order/read search=${fragment} (tracking)`, tracking, SEARCH_TARGET_MS));
  if (heavyUserOrders === 0) return;
  // The heavy user: their last page (the oldest orders), and one of their orders by its receiver.
  const last = Math.ceil(heavyUserOrders / 10);
  const deep = await measure(server, read(`page=${last}&limit=10`), { token: server.ready.heavyToken, seconds: EXTRA_SECONDS });
  console.log(row(`  heavy user (${heavyUserOrders.toLocaleString('en-US')}): page ${last.toLocaleString('en-US')}`, deep, READ_TARGET_MS));
  const heavySearch = await measure(server, read(`search=${encodeURIComponent(`Receiver ${heavySample}`)}&page=1&limit=10`), {
    token: server.ready.heavyToken,
    seconds: EXTRA_SECONDS,
  });
  console.log(row(`  heavy user: search=Receiver ${heavySample}`, heavySearch, SEARCH_TARGET_MS));
}

/** Rounds of the render pool alone and order creation in turn; the median ratio is printed. */
const CREATE_RUNS = knob('BENCH_CREATE_RUNS', 3, 1);

/**
 * Order creation: closed loop (CONNECTIONS clients each sending the next order as soon as the last is answered)
 * beside the render pool's labels/s, then open loop: orders offered at a fixed rate, half of 70% of the render
 * pool's, whatever the answers. The pool (the server idle) and the orders are measured in turn CREATE_RUNS times and
 * the median ratio printed, as the bulk benchmark does: this machine's speed drifts by a fifth from minute to minute,
 * so one yardstick measured once compares orders with a machine of another speed. The share of the run's first
 * measurement is printed too.
 */
async function measureCreate(server: BenchServer, firstPoolLabelsPerSecond: number, bare?: Result): Promise<void> {
  const request = { method: 'POST', body: CREATE_ORDER_BODY };
  // Warmed until steady, as the render pool is (bench/labels.ts): its threads, sharing the cores with the server's
  // own, need about half a minute of orders to reach their speed (in 8 s steps after 12 s of orders, 62, 65, 66, 67,
  // 70 and 66% of the pool's labels/s; an earlier machine climbed 250, 340, 410, 440 orders/s in 4 s steps after 2 s).
  // CREATE_WARM_SECONDS of orders in all; each run below is warmed for 2 s more after the pool has had the cores.
  await measure(server, '/api/v1/order/create', { ...request, warmSeconds: CREATE_WARM_SECONDS - WARM_SECONDS, seconds: WARM_SECONDS });
  const runs: { pool: number; create: Result; share: number }[] = [];
  for (let i = 0; i < CREATE_RUNS; i++) {
    const pool = await measurePool(LABEL_BENCH_SECONDS, os.availableParallelism());
    const create = await measure(server, '/api/v1/order/create', request);
    runs.push({ pool, create, share: create.requests.average / pool });
  }
  const { pool, create, share } = medianBy(runs, (r) => r.share);
  const percent = (fraction: number) => `${(fraction * 100).toFixed(0)}%`;
  console.log(
    row('POST /order/create', create, undefined, bare) +
      `   ${percent(share)} of the render pool's ${pool.toFixed(0)} labels/s just before (target >= 70%; ${percent(create.requests.average / firstPoolLabelsPerSecond)} of the run's first ${firstPoolLabelsPerSecond.toFixed(0)})` +
      (runs.length > 1
        ? `\n      (the median of ${runs.length} runs in turn: ${runs.map((r) => `${r.create.requests.average.toFixed(0)}/${r.pool.toFixed(0)} = ${percent(r.share)}`).join(', ')})`
        : ''),
  );
  const rate = Math.max(1, Math.round(pool * 0.7 * 0.5));
  const headers = { authorization: `Bearer ${server.ready.token}`, 'content-type': 'application/json' };
  const offer = (seconds: number) => openLoop({ url: `${server.base}/api/v1/order/create`, method: 'POST', headers, body: CREATE_ORDER_BODY, rate, seconds });
  // Warmed at its rate first, as every run here is: the closed loop just before leaves a backlog of background work,
  // and the load generator opens its connections (in probes, the first quarter second's answers took 80-160 ms on
  // PostgreSQL; on SQLite it held a tenth of the run's answers over 15 ms).
  await offer(WARM_SECONDS);
  const open = await offer(SECONDS);
  console.log(
    `  ${'POST /order/create, open loop'.padEnd(WIDTH)} ${String(rate).padStart(7)} req/s offered   p50 ${open.p50.toFixed(0).padStart(3)} ms   p99 ${open.p99.toFixed(0).padStart(4)} ms   max ${open.max.toFixed(0)} ms${open.failed ? `   (${open.failed} failed)` : ''}   (target p99 < ${CREATE_TARGET_MS} ms)`,
  );
  // Rates on the sandbox: every type priced here, no upstream; open loop at a tenth of the orders' rate, at least 10 a second.
  const quoteRate = Math.max(10, Math.round(rate / 10));
  const quotes = await openLoop({ url: `${server.base}/api/v1/order/rates`, method: 'POST', headers, body: RATES_BODY, rate: quoteRate, seconds: SECONDS });
  console.log(
    `  ${'POST /order/rates (sandbox), open loop'.padEnd(WIDTH)} ${String(quoteRate).padStart(7)} req/s offered   p50 ${quotes.p50.toFixed(0).padStart(3)} ms   p95 ${quotes.p95.toFixed(0).padStart(4)} ms${quotes.failed ? `   (${quotes.failed} failed)` : ''}   (target p95 < ${SANDBOX_QUOTE_TARGET_MS} ms)`,
  );
  // The ledger's gather window (LEDGER_GATHER_MS) against none, closed loop, measured in turn.
  const windowMs = await server.setGatherMs(null);
  const gathered = await measure(server, '/api/v1/order/create', request);
  await server.setGatherMs(0);
  const ungathered = await measure(server, '/api/v1/order/create', request);
  await server.setGatherMs(null);
  const pair = (a: number, b: number) => `${a.toFixed(0)} | ${b.toFixed(0)}`;
  console.log(
    `  ${`POST /order/create, gather ${windowMs} ms | none`.padEnd(WIDTH)} ${pair(gathered.requests.average, ungathered.requests.average)} req/s   p50 ${pair(gathered.latency.p50, ungathered.latency.p50)} ms   p99 ${pair(gathered.latency.p99, ungathered.latency.p99)} ms`,
  );
}

/**
 * GET /order/read (a page, a status filter, searches) at each table size of BENCH_HTTP_ORDERS, and POST
 * /order/create at the first, on SQLite (the embedded default) and on PostgreSQL when one answers at
 * BENCH_DATABASE_URL (default TEST_DATABASE_URL or the local postgres://postgres@127.0.0.1:5432/test).
 */
export async function runHttpBench(poolLabelsPerSecond: number): Promise<void> {
  const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const databases: (string | undefined)[] = [undefined];
  if (pgUrl && (await pgReachable(pgUrl))) databases.push(pgUrl);
  for (const url of databases) {
    for (const [i, orders] of SIZES.entries()) {
      const server = await startServer(orders, url).catch((error: Error) => {
        console.log(`\nHTTP on ${url ? 'PostgreSQL' : 'SQLite'}, ${orders.toLocaleString('en-US')} orders: the server did not start (${error.message})`);
      });
      if (!server) continue;
      try {
        const r = server.ready;
        console.log(
          `\nHTTP on ${r.database}, ${r.totalOrders.toLocaleString('en-US')} orders (seeded in ${r.seedOrdersSeconds.toFixed(1)} s, search index and status counts built in ${r.indexSeconds.toFixed(1)} s), ` +
            `the measured user owning ${r.benchUserOrders.toLocaleString('en-US')}; ${CONNECTIONS} connections x ${SECONDS} s each (${EXTRA_SECONDS} s indented and status rows)`,
        );
        const bare = i === 0 ? await measure(server, '/bench/bare', { seconds: EXTRA_SECONDS }) : undefined;
        if (bare) console.log(row('bare route', bare));
        await measureReads(server, bare);
        if (i === 0) await measureCreate(server, poolLabelsPerSecond, bare);
      } finally {
        await server.stop();
      }
    }
  }
  if (databases.length === 1)
    console.log(`\nHTTP on PostgreSQL: skipped, ${pgUrl ? `no server at ${new URL(pgUrl).host}` : 'BENCH_DATABASE_URL is empty'} (set BENCH_DATABASE_URL)`);
}
