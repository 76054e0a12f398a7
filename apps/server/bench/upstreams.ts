import { fork } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SERVER_HEAP_FLAG } from './bulk.ts';
import { talkTo } from './easypost.ts';
import { knob, sized } from './smoke.ts';

/** Each upstream as the issue's: every call answered after 300 ms, 25 purchases a second (more answer 429). */
const LATENCY_MS = 300;
const UPSTREAM_LIMIT = 25;
/** A little under each upstream's limit (see bench/easypost.ts). */
const SHOP_LIMIT = 24;
/**
 * Calls at once per upstream, and so 80 bulk lanes: under `cheapest` a label takes a quote at both upstreams, its
 * purchase and its file (about 0.9 s of calls), and up to UPSTREAM_SPILL_MS of lanes wait in the cheaper one's
 * purchase queue: 50 labels a second need about 45 lanes under way and 24 waiting.
 */
const CONCURRENCY = 40;
/** The shop's breaker window (UPSTREAM_BREAKER_OPEN_MS, its default in full): a smoke's next order finds EasyPost closed again. */
const BREAKER_OPEN_MS = sized(10_000, 300);
const ROWS = knob('BENCH_BULK_ROWS', 1000, 10);
/** How long the cheaper upstream answers 500 at the start of the second order. */
const FAIL_MS = sized(10_000, 500);
/** The third order: the cheaper upstream refuses connections from this share of the rows bought to that one. */
const DOWN_SHARE = 0.3;
const BACK_SHARE = 0.7;

type Counts = {
  easypost: { purchases: number; rateLimited: number };
  shippo: { purchases: number; rateLimited: number };
  chaos: { downAt: number | null; backAt: number | null };
};

const rows = (n: number) => n.toLocaleString('en-US');
const s = (seconds: number) => `${seconds.toFixed(1)} s`;

/**
 * A bulk order bought at two upstreams (test/fake-easypost.ts and test/fake-shippo.ts, both in bench/upstreams-fake-run.ts)
 * at the latency and limit each, the shop (bench/easypost-run.ts with both upstreams, policy cheapest, EasyPost
 * the cheaper) on SQLite and the embedded queue in a process of its own: paid to files ready against the time the two
 * rates together allow; then with EasyPost answering 500 for its first seconds; then with it refusing connections from
 * row 300 to row 700, against what the capacity left allows.
 */
export async function runUpstreamsBench(): Promise<void> {
  const fakes = talkTo(
    fork(path.join(import.meta.dirname, 'upstreams-fake-run.ts'), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, FAKE_LATENCY_MS: String(LATENCY_MS), FAKE_PURCHASES_PER_SECOND: String(UPSTREAM_LIMIT) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  let shop: ReturnType<typeof talkTo> | undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-upstreams-'));
  try {
    const upstreams: Record<'easypost' | 'shippo', { url: string; apiKey: string }> = await fakes.answer();
    const shopEnv = {
      // Only errors: the faults below would print a warning for each call they meet.
      LOG_LEVEL: 'error',
      LABEL_UPSTREAMS: 'easypost,shippo',
      LABEL_UPSTREAM_POLICY: 'cheapest',
      EASYPOST_API_KEY: upstreams.easypost.apiKey,
      EASYPOST_API_URL: upstreams.easypost.url,
      EASYPOST_CONCURRENCY: String(CONCURRENCY),
      EASYPOST_MAX_PER_SECOND: String(SHOP_LIMIT),
      SHIPPO_API_KEY: upstreams.shippo.apiKey,
      SHIPPO_API_URL: upstreams.shippo.url,
      SHIPPO_CONCURRENCY: String(CONCURRENCY),
      SHIPPO_MAX_PER_SECOND: String(SHOP_LIMIT),
      UPSTREAM_BREAKER_OPEN_MS: String(BREAKER_OPEN_MS),
    };
    shop = talkTo(
      fork(path.join(import.meta.dirname, 'easypost-run.ts'), [], {
        execArgv: [SERVER_HEAP_FLAG, '--import', 'tsx'],
        env: { ...process.env, BENCH_SHOP_ENV: JSON.stringify(shopEnv), BENCH_DATA_DIR: dataDir },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
    console.log(
      `\nTwo upstreams, EasyPost and Shippo (the fakes: ${LATENCY_MS} ms a call, ${UPSTREAM_LIMIT} purchases a second each; the shop: ` +
        `LABEL_UPSTREAMS=easypost,shippo, LABEL_UPSTREAM_POLICY=cheapest with EasyPost the cheaper, EASYPOST_/SHIPPO_MAX_PER_SECOND=${SHOP_LIMIT}, ` +
        `EASYPOST_/SHIPPO_CONCURRENCY=${CONCURRENCY}, UPSTREAM_BREAKER_OPEN_MS=${BREAKER_OPEN_MS}, SQLite, embedded queue)`,
    );
    await shop.answer();
    await shop.answer({ bulk: sized(100, 5) }); // warm-up: JIT, both clients loaded, first files

    /** A bulk order of ROWS rows: its seconds, the 429s the fakes answered, and the labels each sold, during it. */
    const order = async () => {
      const before: Counts = await fakes.answer('counts');
      const { seconds } = await shop!.answer({ bulk: ROWS });
      const after: Counts = await fakes.answer('counts');
      const easypost = after.easypost.purchases - before.easypost.purchases;
      const shippo = after.shippo.purchases - before.shippo.purchases;
      const rateLimited = after.easypost.rateLimited + after.shippo.rateLimited - before.easypost.rateLimited - before.shippo.rateLimited;
      return { seconds, rateLimited, chaos: after.chaos, where: `bought at EasyPost ${rows(easypost)}, at Shippo ${rows(shippo)}` };
    };
    const both = 2 * UPSTREAM_LIMIT;

    const a = await order();
    const together = ROWS / both;
    console.log(
      `  ${rows(ROWS)}-row bulk order on two upstreams at ${LATENCY_MS} ms a call and ${UPSTREAM_LIMIT} purchases a second each: ` +
        `paid to files ready ${s(a.seconds)}; target <= 1.15 x ${s(together)} = ${s(1.15 * together)} (the two rates together); ` +
        `429s answered: ${a.rateLimited} (target 0); ${a.where}`,
    );

    await fakes.answer({ failFor: { upstream: 'easypost', ms: FAIL_MS } });
    const b = await order();
    // Shippo alone while EasyPost fails, then the two together.
    const failSeconds = FAIL_MS / 1000;
    const alone = Math.min(ROWS, failSeconds * UPSTREAM_LIMIT);
    const bBound = Math.min(failSeconds, ROWS / UPSTREAM_LIMIT) + (ROWS - alone) / both;
    console.log(
      `  the same with EasyPost (the cheaper) answering 500 for its first ${s(failSeconds)}: paid to files ready ${s(b.seconds)}; ` +
        `target <= 1.15 x ${s(bBound)} = ${s(1.15 * bBound)} (Shippo alone for ${s(failSeconds)}, then the two rates together); ` +
        `429s answered: ${b.rateLimited} (target 0); ${b.where}`,
    );

    const downAt = Math.round(DOWN_SHARE * ROWS);
    const backAt = Math.round(BACK_SHARE * ROWS);
    await fakes.answer({ chaos: { upstream: 'easypost', downAt, backAt } });
    const c = await order();
    const { downAt: wentDown, backAt: cameBack } = c.chaos;
    if (wentDown === null || cameBack === null) throw new Error(`EasyPost never went down and came back (${JSON.stringify(c.chaos)})`);
    // The capacity left: one upstream's rate for the rows bought while EasyPost was down, both rates for the rest.
    const down = cameBack - wentDown;
    const cBound = down / UPSTREAM_LIMIT + (ROWS - down) / both;
    console.log(
      `  the same with EasyPost refusing connections from row ${rows(downAt)} to row ${rows(backAt)} (by labels bought; it went down at ` +
        `${rows(wentDown)}, came back at ${rows(cameBack)}): paid to files ready ${s(c.seconds)}; target <= 1.3 x (${rows(down)} / ` +
        `${UPSTREAM_LIMIT} + ${rows(ROWS - down)} / ${both}) = 1.3 x ${s(cBound)} = ${s(1.3 * cBound)}; 429s answered: ${c.rateLimited} (target 0); ${c.where}`,
    );
    await shop.answer({ done: true });
  } finally {
    if (shop && shop.child.exitCode === null) {
      shop.child.kill();
      await once(shop.child, 'exit');
    }
    fakes.child.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
