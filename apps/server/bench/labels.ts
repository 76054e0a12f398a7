import { createRenderPool, inlineRenderer, type LabelRenderer } from '../src/providers/labels/render-pool.ts';
import type { LabelRequest } from '../src/providers/labels/label-provider.ts';
import { renderZpl } from '../src/providers/labels/render-zpl.ts';
import { CA_RECIPIENT, CA_SENDER, RECIPIENT, SENDER, type Party } from '../test/sample-addresses.ts';
import { sized } from './smoke.ts';

const UIDS = ['priority', 'uspsv9', 'ground_oz', 'fedex_ground', 'ups_standard', 'ups_express_saver'];
const party = (name: string, sample: Party) => ({ ...sample, name, company: 'Bench Co', street2: 'Suite 100', phone: '212 555 0100' });

function request(i: number): LabelRequest {
  const uid = UIDS[i % UIDS.length];
  const ups = uid.startsWith('ups_');
  return {
    orderId: `bench-order-${i}`,
    upstream: 'sandbox',
    chosen: null,
    uid,
    serviceName: uid,
    design: uid === 'priority' ? ['pitney', 'normal', 'evs'][i % 3] : null,
    weight: 1 + (i % 20),
    weightUnit: uid === 'ground_oz' ? 'oz' : 'lb',
    length: null,
    width: null,
    height: null,
    from: party(`Sender ${i}`, ups ? CA_SENDER : SENDER),
    to: party(`Receiver ${i}`, ups ? CA_RECIPIENT : RECIPIENT),
    createdAt: new Date().toISOString(),
  };
}

/** Rendering before a measurement: a new pool of 2 threads made 390 priority labels/s in its first 2 s, 735 in the next, ~900 from the 4th s on. */
const WARM_SECONDS = sized(6, 0.2);

/** How long the render benchmarks measure, after their warm-up. */
export const LABEL_BENCH_SECONDS = sized(5, 0.2);

/** Renders for `seconds` with `inFlight` labels asked for at a time; answers labels, seconds and bytes. */
async function measure(renderer: LabelRenderer, seconds: number, inFlight: number) {
  let count = 0;
  let bytes = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  const lane = async () => {
    while (performance.now() < until) {
      bytes += (await renderer.render(request(count++))).pdf.length;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return { count, seconds: (performance.now() - start) / 1000, bytes };
}

/** Sandbox labels (tracking number + PDF), all carriers and templates in turn: on this thread, then on the render pool. */
export async function runLabelBench(seconds = LABEL_BENCH_SECONDS, poolThreads = 2): Promise<{ poolLabelsPerSecond: number }> {
  console.log('\nSandbox label rendering (pdfkit, barcodes as vector rectangles)');
  const inline = inlineRenderer();
  // Warmed until steady: pdfkit's code takes V8 seconds of rendering to optimise, on each thread.
  await measure(inline, WARM_SECONDS, 1);
  const one = await measure(inline, seconds, 1);
  console.log(
    `  one core:        ${(one.count / one.seconds).toFixed(0).padStart(5)} labels/s, ${((one.seconds * 1000) / one.count).toFixed(2)} ms per label, ${(one.bytes / one.count / 1024).toFixed(1)} KiB per PDF  (target >= 300/s)`,
  );
  // The sandbox's ZPL (a download in that format renders it from the order): text only, on this thread.
  let zpls = 0;
  let zplBytes = 0;
  const zplStart = performance.now();
  while (performance.now() < zplStart + seconds * 1000) zplBytes += renderZpl(request(zpls++)).length;
  const zplSeconds = (performance.now() - zplStart) / 1000;
  console.log(
    `  ZPL, one core:   ${(zpls / zplSeconds).toFixed(0).padStart(5)} labels/s, ${((zplSeconds * 1000) / zpls).toFixed(3)} ms per label, ${(zplBytes / zpls / 1024).toFixed(1)} KiB per label`,
  );
  const poolLabelsPerSecond = await measurePool(seconds, poolThreads);
  console.log(`  pool, ${poolThreads} threads: ${poolLabelsPerSecond.toFixed(0).padStart(5)} labels/s`);
  return { poolLabelsPerSecond };
}

/** Labels/s of a new render pool of `threads` threads, once steady: the yardstick of order creation. */
export async function measurePool(seconds: number, threads: number): Promise<number> {
  const pool = createRenderPool(threads);
  try {
    await measure(pool, WARM_SECONDS, threads * 2);
    const many = await measure(pool, seconds, threads * 2);
    return many.count / many.seconds;
  } finally {
    await pool.close();
  }
}
