// `npm run bench`: every benchmark in turn, each printing its figures; `npm run bench -- http reseller` only those
// named (page, idle-rss, labels, http, bulk, reseller, admin, amazon, easypost, upstreams). BENCH_SMOKE=1 runs them tiny
// (bench/smoke.ts; test/bench-smoke.test.ts), skipping the page benchmark.
// Knobs (environment, see the README's Benchmarks): BENCH_SECONDS (10) per HTTP run; BENCH_HTTP_ORDERS
// (100000,1000000) the order history's table sizes; BENCH_DATABASE_URL its PostgreSQL (empty: none); BENCH_ORDERS (100000)
// in the other benchmarks' table and BENCH_USER_ORDERS (10000) of them the measured user's; BENCH_RENDER_THREADS
// (the server's default); BENCH_SANDBOX_MODE=processing measures order creation without rendering the label;
// BENCH_BULK_ROWS (1000) the bulk order; BENCH_LIGHTHOUSE_RUNS (3) Lighthouse runs per page (0: page weight only).
import os from 'node:os';
import { runHttpBench } from './http.ts';
import { LABEL_BENCH_SECONDS, measurePool, runLabelBench } from './labels.ts';
import { SMOKE } from './smoke.ts';

const SECTIONS = ['page', 'idle-rss', 'labels', 'http', 'bulk', 'reseller', 'admin', 'amazon', 'easypost', 'upstreams'];
const chosen = process.argv.slice(2);
const unknown = chosen.filter((name) => !SECTIONS.includes(name));
if (unknown.length) throw new Error(`no benchmark ${unknown.join(', ')}; there are ${SECTIONS.join(', ')}`);
const runs = (name: string) => chosen.length === 0 || chosen.includes(name);

console.log(
  `Benchmarks on ${process.platform} ${process.arch}, Node ${process.version}, ${os.cpus().length} CPUs${SMOKE ? ' (BENCH_SMOKE: tiny sizes, figures meaningless)' : ''}`,
);
// The page first, while the machine is quiet: Lighthouse scales the CPU time it observes, so whatever else runs
// lowers the score (create order scored 91 at the end of a full run, 96 and 97 alone just before).
// Not in a smoke: it needs the built web app (npm run build) and Chromium.
if (runs('page') && !SMOKE) await (await import('./page.ts')).runPageBench();
if (runs('idle-rss')) await (await import('./idle-rss.ts')).runIdleRssBench();
// The HTTP benchmark sets order creation against the render pool's labels/s, measured here when labels is not run.
const poolLabelsPerSecond = runs('labels')
  ? (await runLabelBench(LABEL_BENCH_SECONDS, os.availableParallelism())).poolLabelsPerSecond
  : runs('http')
    ? await measurePool(LABEL_BENCH_SECONDS, os.availableParallelism())
    : 0;
if (runs('http')) await runHttpBench(poolLabelsPerSecond);
if (runs('bulk')) await (await import('./bulk.ts')).runBulkBench();
if (runs('reseller')) await (await import('./reseller.ts')).runResellerBench();
if (runs('admin')) await (await import('./admin.ts')).runAdminBench();
if (runs('amazon')) await (await import('./amazon.ts')).runAmazonBench();
if (runs('easypost')) await (await import('./easypost.ts')).runEasyPostBench();
if (runs('upstreams')) await (await import('./upstreams.ts')).runUpstreamsBench();
