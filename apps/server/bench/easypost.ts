import { fork } from 'node:child_process';
import path from 'node:path';
import { startFakeEasyPost } from '../test/fake-easypost.ts';
import { SERVER_HEAP_FLAG } from './bulk.ts';

/** The fake's answer time and purchase limit the targets are set against. */
const LATENCY_MS = 300;
const LIMIT = 25;
/** Upstream time of one single order: create, buy and the label file, one after another. */
const UPSTREAM_CALLS = 3;

/**
 * EasyPost (the official client against the local fake, 300 ms an answer, 25 purchases a second, 429 above): a
 * 1,000-row bulk order from payment to its files against the limit's bound (rows / 25 s), with the 429s the fake
 * answered; single orders at half the limit, the p99 the shop adds beyond the upstream's three answers; the shop
 * process's peak memory. The shop runs in a process of its own with the server's heap budget.
 */
export async function runEasyPostBench(): Promise<void> {
  console.log(`\nEasyPost (the fake: ${LATENCY_MS} ms an answer, ${LIMIT} purchases a second)`);
  const fake = await startFakeEasyPost();
  fake.latencyMs = LATENCY_MS;
  fake.maxPurchasesPerSecond = LIMIT;
  try {
    const child = fork(path.join(import.meta.dirname, 'easypost-run.ts'), [], {
      execArgv: [SERVER_HEAP_FLAG, '--import', 'tsx'],
      env: { ...process.env, BENCH_EASYPOST_URL: fake.url, BENCH_EASYPOST_KEY: fake.apiKey, BENCH_EASYPOST_LIMIT: String(LIMIT) },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const r = await new Promise<Record<string, any>>((resolve, reject) => {
      let answer: Record<string, any> | undefined;
      child.once('message', (m) => (answer = m as Record<string, any>));
      child.once('exit', (code) => (answer && !answer.error ? resolve(answer) : reject(new Error(answer?.error ?? `easypost bench exited with ${code}`))));
    });
    const bound = r.rows / LIMIT;
    console.log(
      `  ${r.rows.toLocaleString('en-US')}-row bulk, paid to files ready  ${r.bulkSeconds.toFixed(1)} s = ${(r.bulkSeconds / bound).toFixed(2)}x the limit's bound (${bound} s), ${r.made} labels, ${fake.purchasesRefused} purchases answered 429  (target <= 1.15x, no 429)`,
    );
    const upstream = UPSTREAM_CALLS * LATENCY_MS;
    console.log(
      `  single orders at ${LIMIT / 2}/s           p99 added beyond the upstream's ${upstream} ms: ${Math.round(r.p99 - upstream)} ms (p50 ${Math.round(r.p50 - upstream)} ms; ${r.singles} orders, answers ${JSON.stringify(r.statuses)})  (target < 25 ms)`,
    );
    console.log(`  peak memory of the shop process  ${r.peakMb} MB  (target < 400 MB)`);
  } finally {
    await fake.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runEasyPostBench();
