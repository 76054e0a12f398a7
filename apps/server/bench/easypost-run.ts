// The EasyPost benchmark's shop, in a process of its own (clean peak memory), started by bench/easypost.ts with the
// fake's address (BENCH_EASYPOST_URL): a 1,000-row bulk order from payment to its files, then single orders at half
// the purchase limit. Answers one JSON message.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CSV_COLUMNS } from '@portal/contract';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDatabase, migrateToLatest } from '../src/db/database.ts';
import { newId, sha256Hex } from '../src/lib/ids.ts';
import { readOrCreateSecret } from '../src/lib/secrets.ts';
import { createTokenService } from '../src/modules/auth/tokens.ts';
import { changeBalance } from '../src/modules/billing/ledger.ts';
import { seedCatalog } from '../src/modules/catalog/seed-catalog.ts';

const ROWS = Number(process.env.BENCH_EASYPOST_ROWS ?? 1000);
const LIMIT = Number(process.env.BENCH_EASYPOST_LIMIT ?? 25);
const SINGLE_SECONDS = Number(process.env.BENCH_EASYPOST_SINGLE_SECONDS ?? 10);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-easypost-'));

const address = (i: number) => ({
  FromName: `Bench Sender ${i}`,
  FromStreet: '123 Main Street',
  FromCity: 'New York',
  FromState: 'NY',
  FromZip: '10001',
  ToName: `Receiver ${i}`,
  ToStreet: `${i} Oak Avenue`,
  ToCity: 'Beverly Hills',
  ToState: 'CA',
  ToZip: '90210',
});
function csvFile(rows: number): Buffer {
  const lines = [CSV_COLUMNS.join(',')];
  for (let i = 1; i <= rows; i++) {
    const cells: Record<string, string> = { ...address(i), Weight: String(1 + (i % 20)) };
    lines.push(CSV_COLUMNS.map((c) => cells[c] ?? '').join(','));
  }
  return Buffer.from(lines.join('\r\n') + '\r\n');
}
async function multipart(fields: Record<string, string>, csv: Buffer) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('csv', new Blob([csv as BlobPart], { type: 'text/csv' }), 'orders.csv');
  const request = new Request('http://bench.local/', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}
const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;

async function main() {
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    WEB_DIST: path.join(dataDir, 'no-web'),
    LABEL_PROVIDER: 'easypost',
    EASYPOST_API_KEY: process.env.BENCH_EASYPOST_KEY!,
    EASYPOST_API_URL: process.env.BENCH_EASYPOST_URL!,
    EASYPOST_MAX_PURCHASES_PER_SECOND: String(LIMIT),
    EASYPOST_CONCURRENCY: String(Number(process.env.BENCH_EASYPOST_CONCURRENCY ?? 40)),
    RATE_LIMIT_MAX: '100000',
  });
  const db = createDatabase({ sqliteFile: path.join(dataDir, 'portal.sqlite') });
  await migrateToLatest(db);
  await seedCatalog(db);
  const userId = newId();
  await db
    .insertInto('users')
    .values({
      id: userId,
      username: 'Bench',
      tg_id: 'bench_easypost',
      tg_id_lower: 'bench_easypost',
      password_hash: 'not-used',
      email: null,
      email_verified: 0,
      balance_cents: 0,
      api_key_sealed: 'lp_bench_easypost',
      api_key_hash: sha256Hex('lp_bench_easypost'),
      token_version: 0,
      created_at: new Date().toISOString(),
    })
    .execute();
  await db.transaction().execute((trx) => changeBalance(trx, { userId, amountCents: 1_000_000_000, kind: 'adjustment', reference: null, note: 'bench' }));
  const app = await buildApp(config, { db, logger: false });
  const token = await createTokenService(readOrCreateSecret(dataDir, 'jwt-secret', undefined), 24).issue({ userId, tokenVersion: 0 });
  const headers = { authorization: `Bearer ${token}` };
  let peak = rss();
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 10);

  // The bulk order: paid, then its labels bought and its files made.
  const file = csvFile(ROWS);
  const valid = await multipart({ labeltype: 'priority' }, file);
  const validated = await app.inject({
    method: 'POST',
    url: '/api/v1/order/validatecsv',
    headers: { ...headers, 'content-type': valid.contentType },
    payload: valid.payload,
  });
  const pay = await multipart({ type: 'priority', total_price: String(validated.json().totalPrice), design: 'normal' }, file);
  const t0 = performance.now();
  const paid = await app.inject({
    method: 'POST',
    url: '/api/v1/order/createOrderFromCSV',
    headers: { ...headers, 'content-type': pay.contentType },
    payload: pay.payload,
  });
  if (paid.statusCode !== 200) throw new Error(`createOrderFromCSV ${paid.statusCode}: ${paid.body}`);
  const bulk = await db.selectFrom('bulk_orders').select('id').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
  let made = 0;
  for (;;) {
    const row = await db.selectFrom('bulk_orders').select(['status', 'made_orders']).where('id', '=', bulk.id).executeTakeFirstOrThrow();
    made = row.made_orders;
    if (row.status === 'completed' || row.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const bulkSeconds = (performance.now() - t0) / 1000;

  // Single orders at half the purchase limit, open loop: each answer's time.
  const typeId = (await db.selectFrom('label_types').select('id').where('uid', '=', 'priority').executeTakeFirstOrThrow()).id;
  const every = 1000 / (LIMIT / 2);
  const times: number[] = [];
  const statuses: Record<string, number> = {};
  const sent: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < (SINGLE_SECONDS * 1000) / every; i++) {
    const due = start + i * every;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    sent.push(
      (async () => {
        const s0 = performance.now();
        const res = await app.inject({
          method: 'POST',
          url: '/api/v1/order/create',
          headers,
          payload: { labelType: typeId, design: 'normal', Weight: 2, ...address(i) },
        });
        times.push(performance.now() - s0);
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      })(),
    );
  }
  await Promise.all(sent);
  clearInterval(sampler);
  await app.close();
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { rows: ROWS, made, bulkSeconds, singles: times.length, statuses, p50: at(0.5), p99: at(0.99), peakMb: Math.round(peak / 1024 / 1024) };
}

try {
  process.send?.(await main());
} catch (error) {
  process.send?.({ error: error instanceof Error ? error.stack : String(error) });
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}
