// The memory (RSS, from /proc) of the built processes at rest: the web process (`npm start`) and a worker
// (`npm run worker`) from apps/server/dist, built first, on the embedded defaults in a temporary data
// directory (the web process with QUEUE_RUN_WORKERS=false, the worker running the jobs). Each is measured once
// started and quiet (target under 150 MB), then again quiet after a label and a bulk order have started their
// render threads. Run alone with `npx tsx bench/idle-rss-run.ts`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildServerIfNeeded } from '../test/built-tree.ts';
import { processGroup, type BuiltProcess } from '../test/processes.ts';
import { JOURNEY_ENV, bulkOrder, journeyCustomer, orderLabel } from '../test/shop-journey.ts';
import { sized } from './smoke.ts';

const TARGET_MB = 150;
/** Quiet: the RSS moved less than this (MB) over the last QUIET_SAMPLES samples taken every SAMPLE_MS. */
const QUIET_MB = 1;
const QUIET_SAMPLES = sized(10, 2);
const SAMPLE_MS = sized(500, 50);

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return kb / 1024;
}

/** The process's RSS once quiet (or after 60 s of sampling). */
async function quietRssMb(pid: number): Promise<number> {
  const samples: number[] = [];
  for (const until = Date.now() + 60_000; Date.now() < until;) {
    samples.push(rssMb(pid));
    const last = samples.slice(-QUIET_SAMPLES);
    if (last.length === QUIET_SAMPLES && Math.max(...last) - Math.min(...last) < QUIET_MB) break;
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
  }
  return samples[samples.length - 1];
}

const row = (name: string, mb: number, target?: number) =>
  `  ${name.padEnd(44)} ${mb.toFixed(0).padStart(4)} MB${target ? `   (target under ${target} MB)` : ''}`;

export async function runIdleRssBench(): Promise<void> {
  buildServerIfNeeded();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-rss-'));
  const processes = processGroup();
  try {
    const env = { ...JOURNEY_ENV, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    const web: BuiltProcess = await processes.startBuilt('server', { ...env, QUEUE_RUN_WORKERS: 'false' });
    const worker = await processes.startBuilt('worker', env);
    console.log('\nMemory at rest of the built processes (apps/server/dist, RSS; LABEL_RENDER_THREADS at its default)');
    const [webIdle, workerIdle] = await Promise.all([quietRssMb(web.pid), quietRssMb(worker.pid)]);
    console.log(row('web process, started', webIdle, TARGET_MB));
    console.log(row('worker, started', workerIdle, TARGET_MB));
    const token = await journeyCustomer(web.url);
    await orderLabel(web.url, token);
    await bulkOrder(web.url, token);
    const [webAfter, workerAfter] = await Promise.all([quietRssMb(web.pid), quietRssMb(worker.pid)]);
    console.log(row('web process, after a label', webAfter));
    console.log(row('worker, after a bulk order', workerAfter));
  } finally {
    await processes.stopAll();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
