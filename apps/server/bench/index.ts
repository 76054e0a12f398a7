// `npm run bench`: every benchmark in turn, each printing its figures.
// Knobs (environment, see the README's Benchmarks): BENCH_SECONDS (10) per HTTP run; BENCH_HTTP_ORDERS
// (100000,1000000) the order history's table sizes; BENCH_DATABASE_URL its PostgreSQL; BENCH_ORDERS (100000)
// in the other benchmarks' table and BENCH_USER_ORDERS (10000) of them the measured user's; BENCH_RENDER_THREADS
// (the server's default); BENCH_SANDBOX_MODE=processing measures order creation without rendering the label;
// BENCH_BULK_ROWS (1000) the bulk order; BENCH_LIGHTHOUSE_RUNS (3) Lighthouse runs per page (0: page weight only).
import os from 'node:os';
import { runHttpBench } from './http.ts';
import { LABEL_BENCH_SECONDS, runLabelBench } from './labels.ts';

console.log(`Benchmarks on ${process.platform} ${process.arch}, Node ${process.version}, ${os.cpus().length} CPUs`);
// The page first, while the machine is quiet: Lighthouse scales the CPU time it observes, so whatever else runs
// lowers the score (create order scored 91 at the end of a full run, 96 and 97 alone just before).
await (await import('./page.ts')).runPageBench();
await (await import('./idle-rss.ts')).runIdleRssBench();
const { poolLabelsPerSecond } = await runLabelBench(LABEL_BENCH_SECONDS, os.availableParallelism());
await runHttpBench(poolLabelsPerSecond);
await (await import('./bulk.ts')).runBulkBench();
await (await import('./reseller.ts')).runResellerBench();
await (await import('./admin.ts')).runAdminBench();
await (await import('./amazon.ts')).runAmazonBench();
await (await import('./easypost.ts')).runEasyPostBench();
