import { fork } from 'node:child_process';
import path from 'node:path';

type Result = Record<string, any> & { error?: string };

/** Runs one scenario of bench/bulk-run.ts in its own process. */
function scenario(mode: 'validate' | 'embedded' | 'bullmq', env: Record<string, string> = {}): Promise<Result> {
  const child = fork(path.join(import.meta.dirname, 'bulk-run.ts'), [mode], { execArgv: ['--import', 'tsx'], env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let answer: Result | undefined;
    child.once('message', (m) => (answer = m as Result));
    child.once('exit', (code) => (answer ? (answer.error ? reject(new Error(answer.error)) : resolve(answer)) : reject(new Error(`bulk bench (${mode}) exited with ${code}`))));
  });
}

async function redisReachable(url: string): Promise<boolean> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

const line = (name: string, r: Result) => {
  const s = r.stages ?? {};
  const labelsShare = s.total ? ` labels ${(s.labels / 1000).toFixed(2)} s (${((s.labels / (r.seconds * 1000)) * 100).toFixed(0)}% of the time), report ${s.report} ms, PDF ${s.pdf} ms, ZIP ${s.zip} ms, db ${s.db} ms;` : '';
  const memory = r.peakWorkerMb !== null ? `peak memory: worker ${r.peakWorkerMb} MB, web ${r.peakWebMb} MB` : `peak memory ${r.peakWebMb} MB`;
  return `  ${name.padEnd(26)} ${r.seconds.toFixed(2)} s (payment answered in ${Math.round(r.paidMs)} ms;${labelsShare} ${memory})`;
};

/**
 * Bulk CSV orders: validating a 5,000-row file, and a 1,000-row order from payment to its three
 * files (report, merged PDF, ZIP) on the embedded defaults and on BullMQ with two worker processes.
 * BENCH_BULK_ROWS changes the order size; BENCH_REDIS_URL (default REDIS_URL or the local Redis) the Redis.
 */
export async function runBulkBench(): Promise<void> {
  console.log('\nBulk CSV orders (sandbox labels, SQLite)');
  const v = await scenario('validate');
  console.log(
    `  validate 5,000 rows        ${(v.httpMs / 1000).toFixed(3)} s through POST /order/validatecsv (median ${(v.httpMedianMs / 1000).toFixed(3)} s; parse, rules and prices alone ${(v.parseMs / 1000).toFixed(3)} s; ${(v.bytes / 1024 / 1024).toFixed(2)} MB)  (target < 1 s)`,
  );

  const rows = Number(process.env.BENCH_BULK_ROWS ?? 1000);
  const embedded = await scenario('embedded');
  console.log(`  ${rows} labels, embedded defaults (${embedded.threads} render thread${embedded.threads === 1 ? '' : 's'}, in the server process):  (target < 5 s, < 400 MB, labels >= 70%)`);
  console.log(line('', embedded));

  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (!(await redisReachable(redisUrl))) {
    console.log(`  BullMQ: skipped, no Redis at ${redisUrl} (set BENCH_REDIS_URL)`);
    return;
  }
  const bullmq = await scenario('bullmq', { BENCH_REDIS_URL: redisUrl });
  console.log(`  ${rows} labels, BullMQ with 2 worker processes (npm run worker, ${bullmq.threads} render thread${bullmq.threads === 1 ? '' : 's'} each):`);
  console.log(line('', bullmq));
}
