import { fork } from 'node:child_process';
import path from 'node:path';
import { medianBy } from './median.ts';
import { SMOKE, knob } from './smoke.ts';

type Result = Record<string, any> & { error?: string };

/** The heap budget `npm start` and `npm run worker` give a process (V8 then collects garbage before it piles up). */
export const SERVER_HEAP_FLAG = '--max-old-space-size=256';

/** Runs one scenario of bench/bulk-run.ts in its own process, with the server's heap budget. */
function scenario(mode: 'validate' | 'pool' | 'embedded' | 'bullmq', env: Record<string, string> = {}): Promise<Result> {
  const child = fork(path.join(import.meta.dirname, 'bulk-run.ts'), [mode], {
    execArgv: [SERVER_HEAP_FLAG, '--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let answer: Result | undefined;
    child.once('message', (m) => (answer = m as Result));
    child.once('exit', (code) =>
      answer ? (answer.error ? reject(new Error(answer.error)) : resolve(answer)) : reject(new Error(`bulk bench (${mode}) exited with ${code}`)),
    );
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

const line = (r: Result) => {
  const s = r.stages ?? {};
  const stages = s.total
    ? ` labels ${(s.labels / 1000).toFixed(2)} s (the merged PDF and ZIP written meanwhile), report ${s.report} ms, PDF ${s.pdf} ms, ZIP ${s.zip} ms, db ${s.db} ms;`
    : '';
  const memory = r.peakWorkerMb !== null ? `peak memory: worker ${r.peakWorkerMb} MB, web ${r.peakWebMb} MB` : `peak memory ${r.peakWebMb} MB`;
  return `      (payment answered in ${Math.round(r.paidMs)} ms;${stages} ${memory}; target < 400 MB)`;
};
const times = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
/** Runs of the render pool alone and the smaller order in turn, per engine; the median ratio is printed. */
const RUNS = knob('BENCH_BULK_RUNS', 3, 1);

/**
 * Bulk CSV orders: validating a 5,000-row file; then on the embedded defaults and on BullMQ with two
 * worker processes, BENCH_BULK_RUNS (3) times in turn the render pool alone making 1,000 labels (the
 * yardstick) and a 1,000-row order from payment to its three files (report, merged PDF, ZIP), the
 * median ratio printed; then a 5,000-row order. BENCH_BULK_ROWS changes the order size (the larger
 * order is 5 times it); BENCH_REDIS_URL (default REDIS_URL or the local Redis; empty: none) the Redis.
 */
export async function runBulkBench(): Promise<void> {
  console.log('\nBulk CSV orders (sandbox labels, SQLite)');
  const v = await scenario('validate');
  console.log(
    `  validate 5,000 rows        ${(v.httpMs / 1000).toFixed(3)} s through POST /order/validatecsv (median ${(v.httpMedianMs / 1000).toFixed(3)} s; parse, rules and prices alone ${(v.parseMs / 1000).toFixed(3)} s; ${(v.bytes / 1024 / 1024).toFixed(2)} MB)  (target < 1 s)`,
  );

  const rows = knob('BENCH_BULK_ROWS', 1000, 10);
  const many = rows * 5;
  const engine = async (name: string, mode: 'embedded' | 'bullmq', env: Record<string, string> = {}) => {
    // The yardstick is measured again just before each order, as a machine's speed drifts from minute to minute.
    const runs: { pool: Result; one: Result; ratio: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const pool = await scenario('pool');
      const one = await scenario(mode, env);
      runs.push({ pool, one, ratio: one.seconds / pool.seconds });
    }
    const { pool, one, ratio } = medianBy(runs, (r) => r.ratio);
    console.log(
      `  ${rows.toLocaleString('en-US')} rows, ${name}: ${one.seconds.toFixed(2)} s = ${ratio.toFixed(2)}x the render pool alone just before (${pool.seconds.toFixed(2)} s, ${(rows / pool.seconds).toFixed(0)} labels/s on ${pool.threads} thread${pool.threads === 1 ? '' : 's'})  (target <= 1.3x)` +
        (runs.length > 1 ? `\n      (the median of ${runs.length} runs: ${runs.map((r) => `${r.ratio.toFixed(2)}x`).join(', ')})` : ''),
    );
    console.log(line(one));
    if (SMOKE) return; // the same path as the smaller order
    const five = await scenario(mode, { ...env, BENCH_BULK_ROWS: String(many) });
    console.log(
      `  ${many.toLocaleString('en-US')} rows, ${name}: ${five.seconds.toFixed(2)} s = ${times(five.seconds, one.seconds)} that ${rows.toLocaleString('en-US')}-row time  (target <= 5.3x)`,
    );
    console.log(line(five));
  };
  await engine('embedded defaults (the render threads in the server process)', 'embedded');

  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (!redisUrl || !(await redisReachable(redisUrl))) {
    console.log(`  BullMQ: skipped, ${redisUrl ? `no Redis at ${redisUrl}` : 'BENCH_REDIS_URL is empty'} (set BENCH_REDIS_URL)`);
    return;
  }
  await engine('BullMQ, 2 worker processes (npm run worker, each with its render threads)', 'bullmq', { BENCH_REDIS_URL: redisUrl });
}
