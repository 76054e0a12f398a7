import { fork } from 'node:child_process';
import path from 'node:path';
import { AMAZON_CSV_PATH, AMAZON_FOUND_HEADER } from '@portal/contract';
import { ordinarySlipPages, packingSlipPdf } from '../test/slip-fixtures.ts';
import { slipSender } from '../test/sample-addresses.ts';
import { knob } from './smoke.ts';

type Ready = { port: number; token: string };
type Probe = { loopP99Ms: number; loopMaxMs: number; startRssMb: number; peakRssMb: number };

const PAGES = knob('BENCH_SLIP_PAGES', 500, 5);
const FROM = { ...slipSender(), fromName: 'Bench Seller', fromStreet2: '', weight: '2' };

/**
 * The Amazon CSV Generator on the embedded defaults (bench/http-server.ts with no orders): a
 * 500-page Seller Central packing-slip PDF, its answer time, the web process's peak memory and its
 * event-loop delay while the PDF is parsed, and the latency of small requests sent meanwhile.
 */
export async function runAmazonBench(): Promise<void> {
  const child = fork(path.join(import.meta.dirname, 'http-server.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_ORDERS: '0', BENCH_USER_ORDERS: '0' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      child.once('message', (m) => resolve(m as T));
      child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    });
  try {
    const ready = await next<Ready>();
    const base = `http://127.0.0.1:${ready.port}`;
    const auth = { authorization: `Bearer ${ready.token}` };
    const generate = async (pdf: Buffer) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(FROM)) form.append(name, value);
      form.append('pdf', new Blob([pdf as BlobPart], { type: 'application/pdf' }), 'slips.pdf');
      const started = performance.now();
      const res = await fetch(`${base}/api/v1${AMAZON_CSV_PATH}`, { method: 'POST', headers: auth, body: form });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`generate-csv ${res.status}: ${body}`);
      return { ms: performance.now() - started, found: Number(res.headers.get(AMAZON_FOUND_HEADER)) };
    };

    const pdf = await packingSlipPdf(ordinarySlipPages(PAGES));
    console.log(`\nAmazon CSV Generator on the embedded defaults: a ${PAGES}-page packing-slip PDF (${(pdf.length / 2 ** 20).toFixed(1)} MB)`);
    child.send('probe-start');
    const cold = await generate(pdf); // the first upload also starts the reading thread
    const coldProbed = next<Probe>();
    child.send('probe-stop');
    const coldProbe = await coldProbed;

    // Small requests every 20 ms while the PDF is parsed: they should not wait behind it.
    child.send('probe-start');
    const latencies: number[] = [];
    let parsing = true;
    const pinging = (async () => {
      while (parsing) {
        const started = performance.now();
        await fetch(`${base}/api/v1/auth/access`, { headers: auth }).then((r) => r.arrayBuffer());
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const warm = await generate(pdf);
    parsing = false;
    await pinging;
    const probed = next<Probe>();
    child.send('probe-stop');
    const probe = await probed;
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))];

    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const added = coldProbe.peakRssMb - coldProbe.startRssMb;
    console.log(`  first upload (starts the thread) ${s(cold.ms).padStart(8)}   ${cold.found} addresses   target < 5 s`);
    console.log(`  upload, thread running           ${s(warm.ms).padStart(8)}`);
    console.log(
      `  memory the upload takes          ${`+${added.toFixed(0)} MB`.padStart(8)}   target < 300 MB (the web process: ${coldProbe.startRssMb.toFixed(0)} MB before, ${coldProbe.peakRssMb.toFixed(0)} MB at its peak)`,
    );
    console.log(`  web event-loop delay meanwhile   p99 ${probe.loopP99Ms.toFixed(1)} ms   max ${probe.loopMaxMs.toFixed(1)} ms`);
    console.log(`  GET /auth/access meanwhile       p99 ${p99.toFixed(1)} ms over ${latencies.length} requests`);
  } finally {
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}
