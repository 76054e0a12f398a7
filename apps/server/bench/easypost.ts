import { fork, type ChildProcess } from 'node:child_process';
import { on, once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SERVER_HEAP_FLAG } from './bulk.ts';
import { openLoop, percentile } from './open-loop.ts';
import { CREATE_ORDER_BODY, RATES_BODY } from './bulk-fixtures.ts';
import { knob, sized } from './smoke.ts';

/** The upstream: every call answered after 300 ms, 25 purchases a second (more answer 429). */
const LATENCY_MS = 300;
const UPSTREAM_LIMIT = 25;
/** A little under the upstream's limit: the shop's slots are evenly spaced, but a late timer can bunch two purchases. */
const SHOP_LIMIT = 24;
/** Labels in flight: with 3 calls of 300 ms a label, 8 (the default) buy at most about 9 labels a second. */
const CONCURRENCY = 32;
/** Calls a label takes, each answered after LATENCY_MS: the Shipment made, bought, its label file fetched. */
const CALLS_PER_LABEL = 3;
const ROWS = knob('BENCH_BULK_ROWS', 1000, 10);
const SINGLE_SECONDS = 2 * knob('BENCH_SECONDS', 10, 0.2);
/** Orders bought on their quote, one after another (each about a second: the quote, the buy and the label file). */
const QUOTED_ORDERS = knob('BENCH_QUOTED_ORDERS', 30, 2);

/** A benchmark process: answer(message) sends it (if any) and waits for its next message. */
export function talkTo(child: ChildProcess) {
  const answers = on(child, 'message');
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`a bench process exited with ${code}`))));
  exited.catch(() => {}); // only a pending answer hears of it
  return {
    child,
    async answer(message?: unknown): Promise<any> {
      if (message !== undefined) child.send(message as string);
      const { value } = await Promise.race([answers.next(), exited]);
      if (value[0].error) throw new Error(value[0].error);
      return value[0];
    },
  };
}

/**
 * Labels bought through EasyPost's official client from the fake upstream (test/fake-easypost.ts) at the issue's
 * latency and limit, the shop on SQLite and the embedded queue in a process of its own (bench/easypost-run.ts): a
 * bulk order paid to files ready against 1.15 x rows / limit; single orders at half the limit, with the time the
 * shop adds beyond the upstream's calls; the process's peak memory.
 */
export async function runEasyPostBench(): Promise<void> {
  const fake = talkTo(
    fork(path.join(import.meta.dirname, 'easypost-fake-run.ts'), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, FAKE_LATENCY_MS: String(LATENCY_MS), FAKE_PURCHASES_PER_SECOND: String(UPSTREAM_LIMIT) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  let shop: ReturnType<typeof talkTo> | undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-easypost-'));
  try {
    const upstream: { url: string; apiKey: string } = await fake.answer();
    shop = talkTo(
      fork(path.join(import.meta.dirname, 'easypost-run.ts'), [], {
        execArgv: [SERVER_HEAP_FLAG, '--import', 'tsx'],
        env: {
          ...process.env,
          EASYPOST_API_KEY: upstream.apiKey,
          EASYPOST_API_URL: upstream.url,
          EASYPOST_CONCURRENCY: String(CONCURRENCY),
          EASYPOST_MAX_PER_SECOND: String(SHOP_LIMIT),
          BENCH_DATA_DIR: dataDir,
        },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
    console.log(
      `\nEasyPost through the official client (the fake: ${LATENCY_MS} ms a call, ${UPSTREAM_LIMIT} purchases a second; the shop: ` +
        `EASYPOST_MAX_PER_SECOND=${SHOP_LIMIT}, EASYPOST_CONCURRENCY=${CONCURRENCY}, SQLite, embedded queue)`,
    );
    const { port, token } = await shop.answer();
    await shop.answer({ bulk: sized(100, 5) }); // warm-up: JIT, the client loaded, first files
    const limited = (await fake.answer('counts')).rateLimited;
    const { seconds } = await shop.answer({ bulk: ROWS });
    const rateLimited = (await fake.answer('counts')).rateLimited - limited;
    const bound = (1.15 * ROWS) / UPSTREAM_LIMIT;
    console.log(
      `  ${ROWS.toLocaleString('en-US')}-row bulk order, paid to files ready: ${seconds.toFixed(1)} s; target <= ${bound.toFixed(1)} s ` +
        `(1.15 x ${ROWS.toLocaleString('en-US')} / ${UPSTREAM_LIMIT}); 429s answered: ${rateLimited} (target 0)`,
    );

    // The day's SCAN form of that bulk order: one upstream call to make it and one to fetch its PDF.
    const form = await shop.answer({ scanForm: true });
    const formUpstream = (2 * LATENCY_MS) / 1000;
    console.log(
      `  SCAN form of the ${ROWS.toLocaleString('en-US')} labels (${form.forms} form${form.forms === 1 ? '' : 's'}), asked to PDF stored: ${form.seconds.toFixed(2)} s; ` +
        `beyond the upstream's 2 x ${LATENCY_MS} ms: ${(form.seconds - formUpstream).toFixed(2)} s (target < 10 s)`,
    );

    const rate = UPSTREAM_LIMIT / 2;
    // Each order to a receiver of its own, so that what its calls took at the upstream can be set against its latency.
    const single = (secs: number, receiver: (i: number) => string) =>
      openLoop({
        url: `http://127.0.0.1:${port}/api/v1/order/create`,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: (i) => JSON.stringify({ ...JSON.parse(CREATE_ORDER_BODY), ToName: receiver(i) }),
        rate,
        seconds: secs,
      });
    await single(sized(4, 0.2), (i) => `Warm-up ${i}`);
    const r = await single(SINGLE_SECONDS, (i) => `Single ${i}`);
    const atUpstream = new Map<string, number>((await fake.answer('answered')).byReceiver);
    const added = r.byIndex.flatMap((latency, i) => (latency === undefined ? [] : [latency - atUpstream.get(`Single ${i}`)!])).sort((a, b) => a - b);
    const upstreamMs = CALLS_PER_LABEL * LATENCY_MS;
    const ms = (value: number) => `${Math.round(value)} ms`;
    console.log(
      `  single orders at ${rate} a second for ${SINGLE_SECONDS} s (${r.sent} sent, ${r.failed} failed): p50 ${ms(r.p50)}, p99 ${ms(r.p99)}\n` +
        `    added beyond the upstream's ${CALLS_PER_LABEL} x ${LATENCY_MS} ms: p50 ${ms(r.p50 - upstreamMs)}, p99 ${ms(r.p99 - upstreamMs)}\n` +
        `    added beyond what each order's calls took at the upstream (arrival to answer): p50 ${ms(percentile(added, 0.5))}, ` +
        `p99 ${ms(percentile(added, 0.99))} (target < 25 ms)`,
    );

    // Quotes: one Shipment made and rated upstream (one call), every type priced from its rates.
    const quoteRate = 5;
    const quotes = await openLoop({
      url: `http://127.0.0.1:${port}/api/v1/order/rates`,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: (i) => JSON.stringify({ ...JSON.parse(RATES_BODY), ToName: `Quote ${i}` }),
      rate: quoteRate,
      seconds: SINGLE_SECONDS,
    });
    console.log(
      `  quotes (POST /order/rates) at ${quoteRate} a second for ${SINGLE_SECONDS} s (${quotes.sent} sent, ${quotes.failed} failed): ` +
        `p50 ${ms(quotes.p50)}, p95 ${ms(quotes.p95)} (target p95 < 400 ms: one upstream call of ${LATENCY_MS} ms and our work)`,
    );
    // Quote, then buy on it, one order after another: the order's answer time beyond what its own calls (the buy and
    // the label file) took at the upstream, as for single orders above; and whether any made a second Shipment.
    const atUpstreamFor = async (name: string) => {
      const shipments = ((await fake.answer('answered')).byReceiver as [string, number][]).filter(([receiver]) => receiver === name);
      return { count: shipments.length, ms: shipments.reduce((sum, [, ms]) => sum + ms, 0) };
    };
    const quotedAdded: number[] = [];
    let second = 0;
    for (let i = 0; i < QUOTED_ORDERS; i++) {
      const name = `Quoted ${i}`;
      const { quoteId } = await shop.answer({ quote: name });
      const before = await atUpstreamFor(name);
      const { ms: answeredMs } = await shop.answer({ buyQuoted: { name, quoteId } });
      const after = await atUpstreamFor(name);
      quotedAdded.push(answeredMs - (after.ms - before.ms));
      if (after.count !== 1) second++;
    }
    quotedAdded.sort((a, b) => a - b);
    console.log(
      `  quote then buy, ${QUOTED_ORDERS} orders one after another: added beyond what the buy's calls took at the upstream p50 ` +
        `${ms(percentile(quotedAdded, 0.5))}, p99 ${ms(percentile(quotedAdded, 0.99))} (target < 25 ms); orders that made a second Shipment: ${second} (target 0)`,
    );
    const { peakMb } = await shop.answer({ done: true });
    console.log(`  peak memory of the process: ${peakMb} MB (target < 400 MB)`);
  } finally {
    if (shop && shop.child.exitCode === null) {
      shop.child.kill();
      await once(shop.child, 'exit');
    }
    fake.child.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
