// One scenario of the bulk CSV benchmark in a process of its own (clean peak memory), started by
// bench/bulk.ts: `validate`, `pool` (the render pool alone making the same labels), `embedded` (the
// default engine in the server process) or `bullmq` (the web process only queues; two `npm run worker`
// processes run jobs). Answers one JSON message.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDatabase, migrateToLatest } from '../src/db/database.ts';
import { randomToken } from '../src/lib/ids.ts';
import { readOrCreateSecret } from '../src/lib/secrets.ts';
import { createTokenService } from '../src/modules/auth/tokens.ts';
import { readBulkFile } from '../src/modules/bulk/bulk-file.ts';
import { createCatalogService } from '../src/modules/catalog/service.ts';
import { seedCatalog } from '../src/modules/catalog/seed-catalog.ts';
import { BULK_LABEL_LANES } from '../src/modules/bulk/service.ts';
import { labelRequestFor } from '../src/modules/orders/label-request.ts';
import { orderRowFor } from '../src/modules/orders/placing.ts';
import { createRenderPool } from '../src/providers/labels/render-pool.ts';
import { eachLimited } from '../src/lib/each-limited.ts';
import { SERVER_HEAP_FLAG } from './bulk.ts';
import { csvFile, mb, multipart, rssOf, seedUser } from './bulk-fixtures.ts';
import { knob, sized } from './smoke.ts';

const mode = process.argv[2] as 'validate' | 'pool' | 'embedded' | 'bullmq';
const ROWS = knob('BENCH_BULK_ROWS', 1000, 10);
/**
 * Labels made before the measured run, by the render pool alone and by each process that makes a bulk order: enough
 * for the JIT to have compiled what a label and a bulk order run, as in a running server. With 50, V8's compiler
 * threads still took about 0.7 of the pool's 3 CPU seconds for its 1,000 labels (1.37 s, against 1.04 s warm): the
 * yardstick measured the compiler as much as the renderer.
 */
const WARM_UP_LABELS = sized(1000, 10);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-bulk-'));

/** Log records of this process ('bulk order completed' carries the stage times). */
const records: Record<string, any>[] = [];
const logStream = new Writable({
  write(chunk, _enc, done) {
    for (const line of String(chunk).split('\n')) if (line.includes('bulk order completed')) records.push(JSON.parse(line));
    done();
  },
});

async function main(): Promise<Record<string, unknown>> {
  const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: 'info', WEB_DIST: path.join(dataDir, 'no-web') };
  if (process.env.BENCH_RENDER_THREADS) env.LABEL_RENDER_THREADS = process.env.BENCH_RENDER_THREADS;
  const prefix = `bench-${randomToken(6)}`;
  if (mode === 'bullmq') Object.assign(env, { REDIS_URL: process.env.BENCH_REDIS_URL!, QUEUE_PREFIX: prefix, QUEUE_RUN_WORKERS: 'false' });
  const config = loadConfig(env);
  const db = createDatabase({ sqliteFile: path.join(dataDir, 'portal.sqlite') });
  await migrateToLatest(db);
  await seedCatalog(db);
  const userId = await seedUser(db);

  if (mode === 'validate') {
    const file = csvFile(sized(5000, 50));
    const type = await createCatalogService(db).orderableType('priority');
    await readBulkFile(file, type); // warm-up
    const parse: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await readBulkFile(file, type);
      parse.push(performance.now() - t0);
    }
    const app = await buildApp(config, { db, logger: false });
    const token = await createTokenService(readOrCreateSecret(dataDir, 'jwt-secret', undefined), 24).issue({ userId, tokenVersion: 0 });
    const { payload, contentType } = await multipart({ labeltype: 'priority' }, file);
    const call = () =>
      app.inject({ method: 'POST', url: '/api/v1/order/validatecsv', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, payload });
    await call();
    const http: number[] = [];
    let answer = '';
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const res = await call();
      http.push(performance.now() - t0);
      answer = res.body;
    }
    await app.close();
    return { bytes: file.length, parseMs: Math.min(...parse), httpMs: Math.min(...http), httpMedianMs: http.sort((a, b) => a - b)[2], answer };
  }

  if (mode === 'pool') {
    // The labels of the order's rows, BULK_LABEL_LANES asked for at a time as a bulk order asks, on the server's render threads.
    const pool = createRenderPool(config.LABEL_RENDER_THREADS);
    const type = await createCatalogService(db).orderableType('priority');
    const requests = (await readBulkFile(csvFile(ROWS), type, 'normal')).rows.map((r) =>
      labelRequestFor(
        orderRowFor(userId, r.input, type, r.priceCents, {
          provider: 'sandbox',
          createdAt: new Date().toISOString(),
          bulkOrderId: 'bench',
          bulkRow: r.row,
        }),
      ),
    );
    const renderAll = (list: typeof requests) => eachLimited(list, BULK_LABEL_LANES, async (request) => void (await pool.render(request)));
    await renderAll(Array.from({ length: WARM_UP_LABELS }, (_, i) => requests[i % requests.length])); // warm-up: threads started, JIT
    const t0 = performance.now();
    await renderAll(requests);
    const seconds = (performance.now() - t0) / 1000;
    await pool.close();
    return { rows: ROWS, threads: config.LABEL_RENDER_THREADS, seconds };
  }

  const workers: ChildProcess[] = [];
  const workerRecords: Record<string, any>[] = [];
  if (mode === 'bullmq') {
    // Two worker processes, as `npm run worker` starts them.
    const serverDir = path.resolve(import.meta.dirname, '..');
    await Promise.all(
      [0, 1].map(
        () =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, [SERVER_HEAP_FLAG, '--import', 'tsx', 'src/worker.ts'], {
              cwd: serverDir,
              env: { ...process.env, ...env, QUEUE_RUN_WORKERS: 'true' },
              stdio: ['ignore', 'pipe', 'inherit'],
            });
            workers.push(child);
            let buffer = '';
            child.stdout!.on('data', (chunk) => {
              buffer += chunk;
              let at;
              while ((at = buffer.indexOf('\n')) >= 0) {
                const line = buffer.slice(0, at);
                buffer = buffer.slice(at + 1);
                if (line.includes('worker started')) resolve();
                if (line.includes('bulk order completed')) workerRecords.push({ pid: child.pid, ...JSON.parse(line) });
              }
            });
            child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
          }),
      ),
    );
  }

  const app = await buildApp(config, { db, logger: { level: 'info', stream: logStream } });
  await app.listen({ port: 0, host: '127.0.0.1' }); // a listening server has its render threads started
  const token = await createTokenService(readOrCreateSecret(dataDir, 'jwt-secret', undefined), 24).issue({ userId, tokenVersion: 0 });
  const headers = { authorization: `Bearer ${token}` };

  /** Pays a file of `rows` rows and waits for its files; answers seconds and the peak memory seen meanwhile. */
  async function run(rows: number) {
    const file = csvFile(rows);
    const form = await multipart({ labeltype: 'priority' }, file);
    const valid = await app.inject({
      method: 'POST',
      url: '/api/v1/order/validatecsv',
      headers: { ...headers, 'content-type': form.contentType },
      payload: form.payload,
    });
    const totalPrice = valid.json().totalPrice;
    const { payload, contentType } = await multipart({ type: 'priority', total_price: String(totalPrice), design: 'normal' }, file);
    const before = rssOf('self', 'VmRSS');
    let peakSelf = 0;
    const peakWorkers = new Map<number, number>();
    const sample = setInterval(() => {
      peakSelf = Math.max(peakSelf, rssOf('self', 'VmRSS'));
      for (const w of workers) peakWorkers.set(w.pid!, Math.max(peakWorkers.get(w.pid!) ?? 0, rssOf(w.pid!, 'VmRSS')));
    }, 10);
    const t0 = performance.now();
    const res = await app.inject({ method: 'POST', url: '/api/v1/order/createOrderFromCSV', headers: { ...headers, 'content-type': contentType }, payload });
    if (res.statusCode !== 200) throw new Error(`createOrderFromCSV ${res.statusCode}: ${res.body}`);
    const paidMs = performance.now() - t0;
    const bulk = await db.selectFrom('bulk_orders').select('id').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    for (;;) {
      const row = await db.selectFrom('bulk_orders').select(['status', 'made_orders']).where('id', '=', bulk.id).executeTakeFirstOrThrow();
      if (row.status === 'completed') {
        if (row.made_orders !== rows) throw new Error(`only ${row.made_orders} of ${rows} labels made`);
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sample);
    await new Promise((r) => setTimeout(r, 100)); // the worker's log line
    const stages = (mode === 'bullmq' ? workerRecords : records).find((r) => r.bulkOrderId === bulk.id);
    return { seconds, paidMs, before, peakSelf, peakWorkers: [...peakWorkers.entries()], stages, ranOn: stages?.pid };
  }

  // Warm-up: JIT, render threads, first files, with as many labels as the render pool's warm-up. On BullMQ each worker
  // process needs its own, as a long-running worker has had: the measured order may go to either (BullMQ tends to give
  // it to the one that did not run the last).
  await run(WARM_UP_LABELS);
  for (let tries = 0; tries < 6 && new Set(workerRecords.map((r) => r.pid)).size < workers.length; tries++) await run(WARM_UP_LABELS);
  const result = await run(ROWS);
  const hwm = { self: rssOf('self', 'VmHWM'), workers: workers.map((w) => rssOf(w.pid!, 'VmHWM')) };
  await app.close();
  for (const w of workers) {
    w.kill('SIGTERM');
    await new Promise((r) => w.once('exit', r));
  }
  if (mode === 'bullmq') {
    const { Queue } = await import('bullmq');
    const queue = new Queue('portal-jobs', { connection: { url: process.env.BENCH_REDIS_URL! }, prefix });
    await queue.obliterate({ force: true });
    await queue.close();
  }
  return {
    rows: ROWS,
    threads: config.LABEL_RENDER_THREADS,
    concurrency: config.QUEUE_CONCURRENCY,
    seconds: result.seconds,
    paidMs: result.paidMs,
    stages: result.stages?.ms,
    peakWebMb: mb(result.peakSelf),
    webBeforeMb: mb(result.before),
    peakWorkerMb: result.peakWorkers.length
      ? mb(result.ranOn ? (result.peakWorkers.find(([pid]) => pid === result.ranOn)?.[1] ?? 0) : Math.max(...result.peakWorkers.map(([, v]) => v)))
      : null,
    hwmWebMb: mb(hwm.self),
    hwmWorkersMb: hwm.workers.map(mb),
  };
}

try {
  const result = await main();
  process.send?.(result);
} catch (error) {
  process.send?.({ error: error instanceof Error ? error.stack : String(error) });
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}
