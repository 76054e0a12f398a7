// `npm run worker`: a process that only runs background jobs, with the same configuration as the
// server. With REDIS_URL set, start as many as needed, on any machine that reaches Redis, the
// database and the files; run the web process with QUEUE_RUN_WORKERS=false to keep jobs off it.
// Without REDIS_URL (the embedded queue) run at most one, and the server with QUEUE_RUN_WORKERS=false.
import path from 'node:path';
import pino from 'pino';
import { loadConfigOrExit } from './config.ts';
import { createDatabase, migrateToLatest } from './db/database.ts';
import { createCatalogService } from './modules/catalog/service.ts';
import { createBulkService } from './modules/bulk/service.ts';
import { createOrderService } from './modules/orders/service.ts';
import { createRenderPool, inlineRenderer } from './providers/labels/render-pool.ts';
import { createSandboxLabelProvider } from './providers/labels/sandbox.ts';
import { createLocalFileStore } from './providers/storage/file-store.ts';
import { createJobQueue, defineJobs, startJobWorkers } from './queue/from-config.ts';

const config = loadConfigOrExit();

const log = pino({ level: config.LOG_LEVEL });
const db = createDatabase({ url: config.DATABASE_URL, sqliteFile: path.join(config.dataDir, 'portal.sqlite') });
await migrateToLatest(db);
const files = createLocalFileStore(path.join(config.dataDir, 'files'));
const renderer = config.LABEL_RENDER_THREADS > 0 ? createRenderPool(config.LABEL_RENDER_THREADS) : inlineRenderer();
renderer.warm();
const labels = createSandboxLabelProvider({ mode: config.LABEL_SANDBOX_MODE, delayMs: config.LABEL_SANDBOX_DELAY_MS, renderer });
const catalog = createCatalogService(db);
const orders = createOrderService({ db, catalog, labels, files, log });
const queue = createJobQueue(config, db, log);
const bulk = createBulkService({ db, catalog, orders, files, queue, log, pollMs: config.ORDER_POLL_INTERVAL_MS });
defineJobs(queue, { bulk });
await startJobWorkers(queue, { bulk }, log);
log.info({ engine: queue.engine, concurrency: config.QUEUE_CONCURRENCY }, 'worker started');

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'worker stopping');
    // Running jobs get 30 s to finish; one cut off is taken again by another worker (or this one after a restart).
    const forceExit = setTimeout(() => process.exit(1), 30_000).unref();
    await queue.close();
    await renderer.close();
    await db.destroy();
    clearTimeout(forceExit);
    process.exit(0);
  });
}
