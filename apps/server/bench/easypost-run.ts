// The shop on EasyPost (the fake that bench/easypost.ts runs) in a process of its own, so its peak memory is its own:
// answers {port, token} when it listens, then runs a bulk order of `rows` rows for each {bulk: rows} message and
// answers its seconds; {done: true} answers the process's peak memory. BENCH_SHOP_ENV (JSON) gives the shop other
// label settings in place of EasyPost's (bench/upstreams.ts: both upstreams).
import { on } from 'node:events';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDatabase, migrateToLatest } from '../src/db/database.ts';
import { readOrCreateSecret } from '../src/lib/secrets.ts';
import { createTokenService } from '../src/modules/auth/tokens.ts';
import { seedCatalog } from '../src/modules/catalog/seed-catalog.ts';
import { RATES_BODY, csvFile, mb, multipart, rssOf, seedUser } from './bulk-fixtures.ts';

/** Made and removed by bench/easypost.ts, which outlives this process however it ends. */
const dataDir = process.env.BENCH_DATA_DIR!;
try {
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    WEB_DIST: path.join(dataDir, 'no-web'),
    ...(process.env.BENCH_SHOP_ENV
      ? (JSON.parse(process.env.BENCH_SHOP_ENV) as Record<string, string>)
      : {
          LABEL_PROVIDER: 'easypost',
          EASYPOST_API_KEY: process.env.EASYPOST_API_KEY!,
          EASYPOST_API_URL: process.env.EASYPOST_API_URL!,
          EASYPOST_CONCURRENCY: process.env.EASYPOST_CONCURRENCY!,
          EASYPOST_MAX_PER_SECOND: process.env.EASYPOST_MAX_PER_SECOND!,
        }),
  });
  const db = createDatabase({ sqliteFile: path.join(dataDir, 'portal.sqlite') });
  await migrateToLatest(db);
  await seedCatalog(db);
  const userId = await seedUser(db);
  const app = await buildApp(config, { db, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const token = await createTokenService(readOrCreateSecret(dataDir, 'jwt-secret', undefined), 24).issue({ userId, tokenVersion: 0 });
  const headers = { authorization: `Bearer ${token}` };

  let lastBulkId = '';
  /** Pays a file of `rows` rows (all from one sender: one SCAN form takes them) and waits until its files are ready: seconds from the payment. */
  async function bulk(rows: number): Promise<number> {
    const file = csvFile(rows, true);
    const form = await multipart({ labeltype: 'priority' }, file);
    const valid = await app.inject({
      method: 'POST',
      url: '/api/v1/order/validatecsv',
      headers: { ...headers, 'content-type': form.contentType },
      payload: form.payload,
    });
    const { payload, contentType } = await multipart({ type: 'priority', total_price: String(valid.json().totalPrice), design: 'normal' }, file);
    const t0 = performance.now();
    const res = await app.inject({ method: 'POST', url: '/api/v1/order/createOrderFromCSV', headers: { ...headers, 'content-type': contentType }, payload });
    if (res.statusCode !== 200) throw new Error(`createOrderFromCSV ${res.statusCode}: ${res.body}`);
    const { id } = await db.selectFrom('bulk_orders').select('id').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    lastBulkId = id;
    for (;;) {
      const row = await db.selectFrom('bulk_orders').select(['status', 'made_orders']).where('id', '=', id).executeTakeFirstOrThrow();
      if (row.status === 'completed') {
        if (row.made_orders !== rows) throw new Error(`only ${row.made_orders} of ${rows} labels made`);
        return (performance.now() - t0) / 1000;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const json = { ...headers, 'content-type': 'application/json' };

  /** Asks for the SCAN forms of the last bulk order and waits until every one is created: seconds, and how many forms. */
  async function scanForm(): Promise<{ seconds: number; forms: number }> {
    const t0 = performance.now();
    const res = await app.inject({ method: 'POST', url: '/api/v1/scan-form', headers: json, payload: { bulkOrderId: lastBulkId } });
    if (res.statusCode !== 200) throw new Error(`scan-form ${res.statusCode}: ${res.body}`);
    const ids: string[] = res.json().forms.map((f: { _id: string }) => f._id);
    for (;;) {
      const rows = await db.selectFrom('scan_forms').select('status').where('id', 'in', ids).execute();
      if (rows.some((r) => r.status === 'failed')) throw new Error('a SCAN form failed');
      if (rows.every((r) => r.status === 'created')) return { seconds: (performance.now() - t0) / 1000, forms: ids.length };
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  /** The package of an order to `name`, as quoted and bought. */
  const packageTo = (name: string) => ({ ...JSON.parse(RATES_BODY), ToName: name });

  /** A quote of the package to `name`: its id. */
  async function quote(name: string): Promise<string> {
    const res = await app.inject({ method: 'POST', url: '/api/v1/order/rates', headers: json, payload: packageTo(name) });
    if (res.statusCode !== 200) throw new Error(`rates ${res.statusCode}: ${res.body}`);
    return res.json().quoteId;
  }

  /** Buys the package to `name` on its quote: the order's answer time in ms. */
  async function buyQuoted(name: string, quoteId: string): Promise<number> {
    const t0 = performance.now();
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/order/create',
      headers: json,
      payload: { ...packageTo(name), quoteId, labelType: 'priority', design: 'normal' },
    });
    if (res.statusCode !== 200) throw new Error(`create ${res.statusCode}: ${res.body}`);
    return performance.now() - t0;
  }

  process.send!({ port: (app.server.address() as { port: number }).port, token });
  for await (const [message] of on(process, 'message')) {
    if (message.bulk) process.send!({ seconds: await bulk(message.bulk) });
    if (message.scanForm) process.send!(await scanForm());
    if (message.quote) process.send!({ quoteId: await quote(message.quote) });
    if (message.buyQuoted) process.send!({ ms: await buyQuoted(message.buyQuoted.name, message.buyQuoted.quoteId) });
    if (message.done) {
      process.send!({ peakMb: mb(rssOf('self', 'VmHWM')) });
      await app.close();
      break;
    }
  }
} catch (error) {
  process.send?.({ error: error instanceof Error ? error.stack : String(error) });
} finally {
  process.exit(0);
}
