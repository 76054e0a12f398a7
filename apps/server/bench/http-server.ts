// The app on the embedded defaults (SQLite file, local files, sandbox labels) with 100,000 orders,
// started by bench/http.ts in its own process so the load generator does not share its event loop.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDatabase, migrateToLatest } from '../src/db/database.ts';
import type { OrdersTable } from '../src/db/schema.ts';
import { newId, sha256Hex } from '../src/lib/ids.ts';
import { readOrCreateSecret } from '../src/lib/secrets.ts';
import { createTokenService } from '../src/modules/auth/tokens.ts';
import { seedCatalog } from '../src/modules/catalog/seed-catalog.ts';
import { changeBalance } from '../src/modules/billing/ledger.ts';

const TOTAL_ORDERS = Number(process.env.BENCH_ORDERS ?? 100_000);
const USERS = 100;
/** The measured user's share of the table: a heavy customer. */
const BENCH_USER_ORDERS = Number(process.env.BENCH_USER_ORDERS ?? 10_000);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-'));
// The reseller API's rate limit would cap a load test at 120 requests a minute.
const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', WEB_DIST: path.join(dataDir, 'no-web'), RESELLER_RATE_LIMIT_PER_MINUTE: '100000000' };
if (process.env.BENCH_RENDER_THREADS) env.LABEL_RENDER_THREADS = process.env.BENCH_RENDER_THREADS;
// 'processing' with a long delay: the request path of an order without its label being made.
if (process.env.BENCH_SANDBOX_MODE) Object.assign(env, { LABEL_SANDBOX_MODE: process.env.BENCH_SANDBOX_MODE, LABEL_SANDBOX_DELAY_MS: '3600000' });
const config = loadConfig(env);
const db = createDatabase({ sqliteFile: path.join(dataDir, 'portal.sqlite') });
await migrateToLatest(db);
await seedCatalog(db);

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
const benchUser = userIds[0];
await db.transaction().execute((trx) => changeBalance(trx, { userId: benchUser, amountCents: 1_000_000_000, kind: 'adjustment', reference: null, note: 'bench funding' }));

const priority = await db.selectFrom('label_types').select(['id', 'uid', 'name']).where('uid', '=', 'priority').executeTakeFirstOrThrow();
const started = Date.now();
const BATCH = 500;
for (let done = 0; done < TOTAL_ORDERS; done += BATCH) {
  const rows: OrdersTable[] = [];
  for (let i = done; i < Math.min(done + BATCH, TOTAL_ORDERS); i++) {
    const userId = i < BENCH_USER_ORDERS ? benchUser : userIds[1 + (i % (USERS - 1))];
    const at = new Date(now - (TOTAL_ORDERS - i) * 60_000).toISOString();
    rows.push({
      id: newId(),
      user_id: userId,
      label_type_id: priority.id,
      label_type_uid: priority.uid,
      label_type_name: priority.name,
      design: 'normal',
      weight: 2,
      length: null,
      width: null,
      height: null,
      from_name: `Sender ${i}`,
      from_company: '',
      from_street: '123 Main Street',
      from_street2: '',
      from_city: 'New York',
      from_state: 'NY',
      from_zip: '10001',
      from_country: 'United States',
      from_phone: '',
      to_name: `Receiver ${i}`,
      to_company: '',
      to_street: '456 Oak Avenue',
      to_street2: '',
      to_city: 'Beverly Hills',
      to_state: 'CA',
      to_zip: '90210',
      to_country: 'United States',
      to_phone: '',
      price_cents: 675,
      status: 'completed',
      tracking: `9405599999999${String(i).padStart(9, '0')}`,
      pdf_key: null,
      provider: 'sandbox',
      provider_ref: null,
      note: null,
      created_at: at,
      updated_at: at,
      bulk_order_id: null,
      bulk_row: null,
      claimed_until: null,
    });
  }
  await db.transaction().execute((trx) => trx.insertInto('orders').values(rows).execute());
}
await db
  .insertInto('order_counts')
  .columns(['user_id', 'total'])
  .expression((eb) => eb.selectFrom('orders').select((o) => ['user_id', o.fn.countAll<number>().as('total')]).groupBy('user_id'))
  .execute();
const seedSeconds = (Date.now() - started) / 1000;
await db.destroy();

const app = await buildApp(config, { logger: false });
app.get('/bench/bare', async () => ({ ok: true }));
await app.listen({ port: 0, host: '127.0.0.1' });
const token = await createTokenService(readOrCreateSecret(dataDir, 'jwt-secret', undefined), 24).issue({ userId: benchUser, tokenVersion: 0 });
const port = (app.server.address() as { port: number }).port;
process.send?.({ port, token, apiKey: 'lp_bench_0', seedSeconds, totalOrders: TOTAL_ORDERS, benchUserOrders: BENCH_USER_ORDERS });

// A benchmark measures this process while it works: 'probe-start', then 'probe-stop' answers the
// event-loop delay (p99 and max, ms), and the resident memory (MB) at the start and its peak in between.
let probe: { loop: IntervalHistogram; startRss: number; peakRss: number; timer: NodeJS.Timeout } | null = null;
const sampleRss = () => {
  if (probe) probe.peakRss = Math.max(probe.peakRss, process.memoryUsage.rss());
};

process.on('message', async (message) => {
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
    process.send?.({ loopP99Ms: probe.loop.percentile(99) / 1e6, loopMaxMs: probe.loop.max / 1e6, startRssMb: probe.startRss / 2 ** 20, peakRssMb: probe.peakRss / 2 ** 20 });
    probe = null;
    return;
  }
  if (message !== 'stop') return;
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
