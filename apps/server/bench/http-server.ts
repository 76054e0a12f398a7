// The app with BENCH_ORDERS (100,000) orders, started by bench/http.ts (and the reseller and Amazon
// benchmarks) in its own process so the load generator does not share its event loop. SQLite in
// BENCH_DATA_DIR (or a temporary directory) by default; PostgreSQL in schema BENCH_PG_SCHEMA of
// BENCH_PG_URL when both are set (bench/http.ts makes the schema and drops it, whatever happens).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDatabase, migrateToLatest, type Db } from '../src/db/database.ts';
import { newId, sha256Hex } from '../src/lib/ids.ts';
import { readOrCreateSecret } from '../src/lib/secrets.ts';
import { createTokenService } from '../src/modules/auth/tokens.ts';
import { configureGroupWriter } from '../src/modules/billing/ledger.ts';
import { SEED_LABEL_TYPES } from '../src/modules/catalog/seed-catalog.ts';
import { changeBalance } from '../src/modules/billing/ledger.ts';
import { RECIPIENT, SENDER } from '../test/sample-addresses.ts';
import { knob } from './smoke.ts';

const TOTAL_ORDERS = knob('BENCH_ORDERS', 100_000, 1000);
const USERS = 100;
/** The measured user's share of the table: a heavy customer. */
const BENCH_USER_ORDERS = Math.min(TOTAL_ORDERS, knob('BENCH_USER_ORDERS', 10_000, 100));
/** A second, heavier customer's share (0: none), for deep pages and searches over many orders of one user. */
const HEAVY_USER_ORDERS = Math.min(TOTAL_ORDERS - BENCH_USER_ORDERS, Number(process.env.BENCH_HEAVY_USER_ORDERS ?? 0));
// Orders are handed out in turns of 100 (order i is turn i % 100): the measured user's first turns, then the heavy
// user's, then the other users' in turn; so each customer's orders spread over the whole history, as a steady
// customer's do.
const benchTurns = TOTAL_ORDERS > 0 ? Math.round((100 * BENCH_USER_ORDERS) / TOTAL_ORDERS) : 0;
const heavyTurns = TOTAL_ORDERS > 0 ? Math.min(100 - benchTurns, Math.round((100 * HEAVY_USER_ORDERS) / TOTAL_ORDERS)) : 0;
/** The first order from `from` on of the owner of turns [first, first + turns), or -1. */
const sampleOf = (from: number, first: number, turns: number) => (turns === 0 ? -1 : Math.floor(from / 100) * 100 + first);
/** The last migration before the search index: the orders go in first and the index is built over them, as when a shop upgrades. */
const BEFORE_SEARCH_INDEX = '2026-11-23-70-telegram';

const ownDataDir = !process.env.BENCH_DATA_DIR;
const dataDir = process.env.BENCH_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-'));
const pgUrl = process.env.BENCH_PG_URL && process.env.BENCH_PG_SCHEMA ? process.env.BENCH_PG_URL : undefined;
const databaseUrl = pgUrl && `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${process.env.BENCH_PG_SCHEMA}`)}`;
// The reseller API's rate limit would cap a load test at 120 requests a minute.
const env: Record<string, string> = {
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  WEB_DIST: path.join(dataDir, 'no-web'),
  RESELLER_RATE_LIMIT_PER_MINUTE: '100000000',
};
if (databaseUrl) env.DATABASE_URL = databaseUrl;
if (process.env.BENCH_RENDER_THREADS) env.LABEL_RENDER_THREADS = process.env.BENCH_RENDER_THREADS;
// 'processing' with a long delay: the request path of an order without its label being made.
if (process.env.BENCH_SANDBOX_MODE) Object.assign(env, { LABEL_SANDBOX_MODE: process.env.BENCH_SANDBOX_MODE, LABEL_SANDBOX_DELAY_MS: '3600000' });
const config = loadConfig(env);
const db = createDatabase({ url: databaseUrl, sqliteFile: path.join(dataDir, 'portal.sqlite') });
await migrateToLatest(db, BEFORE_SEARCH_INDEX);
await seedCatalogAsAt(db);

const now = Date.now();
const userIds = Array.from({ length: USERS }, () => newId());
await db
  .insertInto('users')
  .values(
    userIds.map((id, i) => ({
      id,
      username: `Bench ${i}`,
      tg_id: `bench_${i}`,
      tg_id_lower: `bench_${i}`,
      password_hash: 'not-used',
      email: null,
      email_verified: 0,
      balance_cents: 0,
      api_key_sealed: `lp_bench_${i}`,
      api_key_hash: sha256Hex(`lp_bench_${i}`),
      token_version: 0,
      created_at: new Date(now).toISOString(),
    })),
  )
  .execute();
const [benchUser, heavyUser] = userIds;
await db
  .transaction()
  .execute((trx) => changeBalance(trx, { userId: benchUser, amountCents: 1_000_000_000, kind: 'adjustment', reference: null, note: 'bench funding' }));

const started = Date.now();
// 256 MB of page cache while seeding: a million random UUIDs go into the primary key's B-tree.
if (!databaseUrl) await sql`pragma cache_size = -262144`.execute(db);
if (TOTAL_ORDERS > 0) await seedOrders(db);
const seedOrdersSeconds = (Date.now() - started) / 1000;
const indexStarted = Date.now();
await migrateToLatest(db);
const counts = new Map(
  (
    await db
      .selectFrom('orders')
      .select((eb) => ['user_id', eb.fn.countAll<number>().as('total')])
      .where('user_id', 'in', [benchUser, heavyUser])
      .groupBy('user_id')
      .execute()
  ).map((c) => [c.user_id, Number(c.total)]),
);
// A table just filled has neither planner statistics nor a visibility map yet (index-only scans); autovacuum would make both soon after.
if (databaseUrl) await sql`vacuum analyze orders`.execute(db);
// The seed's writes flushed, as a shop's would long have been: otherwise the checkpoint their WAL (about 0.5 GB for
// 100,000 orders and their index) sets off is spread over the minutes measured next, and every page first changed
// after it starts is logged whole. A role not allowed to (neither superuser nor pg_checkpoint) measures without it.
if (databaseUrl) await sql`checkpoint`.execute(db).catch(() => {});
const indexSeconds = (Date.now() - indexStarted) / 1000;
await db.destroy();

/**
 * The catalog as a shop had it at BEFORE_SEARCH_INDEX (label types and their tiers, in the columns that migration
 * left): the orders point at it. seedCatalog() writes today's columns, which do not exist yet; the later migrations
 * bring these rows up to date as they do a shop's (2026-11-28-40-easypost fills each type's upstream service).
 */
async function seedCatalogAsAt(db: Db): Promise<void> {
  for (const [position, type] of SEED_LABEL_TYPES.entries()) {
    const id = newId();
    const row = { id, uid: type.uid, name: type.name, max_weight: type.maxWeight, status: 1, position, created_at: new Date().toISOString() };
    await sql`insert into label_types (id, uid, name, max_weight, status, position, created_at) values (${sql.join(Object.values(row))})`.execute(db);
    for (const [from, to, dollars] of type.tiers)
      await sql`insert into label_type_prices (id, label_type_id, from_weight, to_weight, price_cents) values (${newId()}, ${id}, ${from}, ${to}, ${Math.round(dollars * 100)})`.execute(
        db,
      );
  }
}

/**
 * Order i (0 oldest, one a minute up to now), its owner by turn; names 'Sender i' and 'Receiver i', tracking 9405599999999 and i in 9 digits. One INSERT ... SELECT
 * over a generated series, so a million orders take seconds, not minutes of round trips.
 */
async function seedOrders(db: Db): Promise<void> {
  const priority = await db.selectFrom('label_types').select(['id', 'uid', 'name']).where('uid', '=', 'priority').executeTakeFirstOrThrow();
  const others = userIds.slice(2);
  const columns = sql.raw(
    'id, user_id, label_type_id, label_type_uid, label_type_name, design, weight, length, width, height, ' +
      'from_name, from_company, from_street, from_street2, from_city, from_state, from_zip, from_country, from_phone, ' +
      'to_name, to_company, to_street, to_street2, to_city, to_state, to_zip, to_country, to_phone, ' +
      'price_cents, status, tracking, pdf_key, provider, provider_ref, note, created_at, updated_at, bulk_order_id, bulk_row, claimed_until',
  );
  const values = (
    id: unknown,
    user: unknown,
    tracking: unknown,
    at: unknown,
  ) => sql`${id}, ${user}, ${priority.id}, ${priority.uid}, ${priority.name}, 'normal', 2, null, null, null,
    'Sender ' || i, '', ${SENDER.street}, '', ${SENDER.city}, ${SENDER.state}, ${SENDER.zip}, ${SENDER.country}, '',
    'Receiver ' || i, '', ${RECIPIENT.street}, '', ${RECIPIENT.city}, ${RECIPIENT.state}, ${RECIPIENT.zip}, ${RECIPIENT.country}, '',
    675, 'completed', ${tracking}, null, 'sandbox', null, null, ${at}, ${at}, null, null, null`;
  const owner = (other: unknown) =>
    sql`case when i % 100 < ${benchTurns} then ${benchUser} when i % 100 < ${benchTurns + heavyTurns} then ${heavyUser} else ${other} end`;
  const firstMs = now - TOTAL_ORDERS * 60_000;
  if (databaseUrl) {
    const at = sql`to_char(timestamp 'epoch' + (${firstMs}::bigint + i::bigint * 60000) * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    const other = sql`(${others}::text[])[1 + i % ${others.length}]`;
    await sql`insert into orders (${columns}) select ${values(sql`gen_random_uuid()::text`, owner(other), sql`'9405599999999' || lpad(i::text, 9, '0')`, at)}
      from generate_series(0, ${TOTAL_ORDERS - 1}) as i`.execute(db);
    return;
  }
  // A UUID (version 4 layout) from random bytes, as newId() makes them.
  const uuid = sql`lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + abs(random()) % 4, 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;
  const at = sql`strftime('%Y-%m-%dT%H:%M:%fZ', (${firstMs} + i * 60000) / 1000.0, 'unixepoch')`;
  // The other users by number, looked up by rowid for each order (SQLite has one connection: the temp table is there).
  await sql`create temp table bench_others (n integer primary key, id text not null)`.execute(db);
  await sql`insert into bench_others (n, id) select key, value from json_each(${JSON.stringify(others)})`.execute(db);
  const other = sql`(select id from bench_others where n = i % ${others.length})`;
  await db.transaction().execute((trx) =>
    sql`insert into orders (${columns}) select ${values(uuid, owner(other), sql`'9405599999999' || substr('000000000' || i, -9)`, at)}
      from (with recursive n(i) as (select 0 union all select i + 1 from n where i < ${TOTAL_ORDERS - 1}) select i from n)`.execute(trx),
  );
  await sql`drop table temp.bench_others`.execute(db);
}

// The app's own database, opened here (as the app would open it) so that its group writer's gather window can be set
// while it runs ('gather', below).
const appDb = createDatabase({ url: databaseUrl, sqliteFile: path.join(dataDir, 'portal.sqlite') });
const app = await buildApp(config, { logger: false, db: appDb });
app.get('/bench/bare', async () => ({ ok: true }));
await app.listen({ port: 0, host: '127.0.0.1' });
const tokens = createTokenService(readOrCreateSecret(dataDir, 'jwt-secret', undefined), 24);
const token = await tokens.issue({ userId: benchUser, tokenVersion: 0 });
const heavyToken = await tokens.issue({ userId: heavyUser, tokenVersion: 0 });
const port = (app.server.address() as { port: number }).port;
process.send?.({
  port,
  token,
  heavyToken,
  apiKey: 'lp_bench_0',
  database: databaseUrl ? 'PostgreSQL' : 'SQLite',
  seedSeconds: seedOrdersSeconds + indexSeconds,
  seedOrdersSeconds,
  indexSeconds,
  totalOrders: TOTAL_ORDERS,
  benchUserOrders: counts.get(benchUser) ?? 0,
  heavyUserOrders: counts.get(heavyUser) ?? 0,
  // An order of each, from the middle of the history (its number i names it: 'Receiver i', tracking ...i).
  benchSample: sampleOf(TOTAL_ORDERS / 2, 0, benchTurns),
  heavySample: sampleOf(TOTAL_ORDERS / 3, benchTurns, heavyTurns),
});

// A benchmark measures this process while it works: 'probe-start', then 'probe-stop' answers the
// event-loop delay (p99 and max, ms), and the resident memory (MB) at the start and its peak in between.
let probe: { loop: IntervalHistogram; startRss: number; peakRss: number; timer: NodeJS.Timeout } | null = null;
const sampleRss = () => {
  if (probe) probe.peakRss = Math.max(probe.peakRss, process.memoryUsage.rss());
};

process.on('message', (message) => {
  if (message === 'probe-start') {
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    probe = { loop, startRss: process.memoryUsage.rss(), peakRss: process.memoryUsage.rss(), timer: setInterval(sampleRss, 10) };
    return;
  }
  if (message === 'probe-stop' && probe) {
    sampleRss();
    clearInterval(probe.timer);
    probe.loop.disable();
    process.send?.({
      loopP99Ms: probe.loop.percentile(99) / 1e6,
      loopMaxMs: probe.loop.max / 1e6,
      startRssMb: probe.startRss / 2 ** 20,
      peakRssMb: probe.peakRss / 2 ** 20,
    });
    probe = null;
    return;
  }
  // { gatherMs: n }: the group writer's gather window from now on (null: the configured one); answers the window set.
  if (typeof message === 'object' && message !== null && 'gatherMs' in message) {
    const gatherMs = (message as { gatherMs: number | null }).gatherMs ?? config.LEDGER_GATHER_MS;
    configureGroupWriter(appDb, { gatherMs });
    process.send?.({ gatherMs });
    return;
  }
  if (message === 'stop') void stop();
});

async function stop() {
  try {
    await app.close();
    await appDb.destroy();
    if (ownDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  } catch (error) {
    console.error('the bench server did not stop cleanly', error);
    process.exit(1);
  }
}
