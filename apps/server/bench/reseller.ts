import { fork } from 'node:child_process';
import path from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { resultRow } from './result-row.ts';
import { CREATE_ORDER_BODY, ORDER_PARTIES } from './bulk-fixtures.ts';
import { knob, sized } from './smoke.ts';

type Ready = { port: number; token: string; apiKey: string; seedSeconds: number; totalOrders: number };

const CONNECTIONS = sized(32, 4);
const SECONDS = knob('BENCH_SECONDS', 10, 0.2);
const BULK_ROWS = knob('BENCH_BULK_ROWS', 1000, 10);
const POLL_RATE = 200;
/** Orders made before the two creation routes are measured. */
const CREATE_WARM_SECONDS = sized(20, 0.2);
const WARM_SECONDS = sized(2, 0.2);

const row = (name: string, r: Result, web?: Result) => resultRow(name, r, 34, web && { result: web, what: "the web's" });

/**
 * The reseller API on the embedded defaults (SQLite, 100,000 orders, bench/http-server.ts):
 * POST /order/create-order through the API at 32 connections beside the web's POST /order/create,
 * then bulk-job-status polled at 200 requests a second while a 1,000-label bulk order runs.
 */
export async function runResellerBench(): Promise<void> {
  const child = fork(path.join(import.meta.dirname, 'http-server.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const ready = await new Promise<Ready>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Ready));
      child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    });
    const base = `http://127.0.0.1:${ready.port}`;
    const web = { authorization: `Bearer ${ready.token}`, 'content-type': 'application/json' };
    const api = { 'x-api-key': ready.apiKey, 'content-type': 'application/json' };
    const run = async (url: string, headers: Record<string, string>, extra: { method?: string; body?: string } = {}, warmSeconds = WARM_SECONDS) => {
      await autocannon({ url: `${base}${url}`, connections: CONNECTIONS, duration: warmSeconds, headers, ...extra });
      return autocannon({ url: `${base}${url}`, connections: CONNECTIONS, duration: SECONDS, headers, ...extra });
    };

    console.log(
      `\nReseller API on the embedded defaults (SQLite, ${ready.totalOrders.toLocaleString('en-US')} orders); ${CONNECTIONS} connections x ${SECONDS} s each`,
    );
    // Warmed until the render threads are up to speed (bench/http.ts), so neither route is measured on cold ones.
    const webCreate = await run('/api/v1/order/create', web, { method: 'POST', body: CREATE_ORDER_BODY }, CREATE_WARM_SECONDS);
    console.log(row('POST /api/v1/order/create (web)', webCreate));
    const apiCreate = await run('/api/reseller/v1/order/create-order', api, { method: 'POST', body: CREATE_ORDER_BODY });
    console.log(row('POST /order/create-order (API)', apiCreate, webCreate));
    const apiRead = await run('/api/reseller/v1/order/read-orders?page=1&limit=10', api);
    console.log(row('GET /order/read-orders (API)', apiRead));

    const data = Array.from({ length: BULK_ROWS }, (_, i) => ({
      ...ORDER_PARTIES,
      ToName: `Receiver ${i + 1}`,
      Weight: 1 + (i % 20),
      Reference: `B-${i + 1}`,
    }));
    const startBulk = async () => {
      const res = await fetch(`${base}/api/reseller/v1/order/create-bulk-order`, {
        method: 'POST',
        headers: api,
        body: JSON.stringify({ labelType: 'priority', design: 'normal', data }),
      });
      if (res.status !== 200) throw new Error(`create-bulk-order ${res.status}: ${await res.text()}`);
      return { ...((await res.json()) as { job_id: string }), startedAt: performance.now() };
    };
    const waitDone = async (jobId: string, startedAt: number) => {
      for (;;) {
        const status = (await (await fetch(`${base}/api/reseller/v1/order/bulk-job-status/${jobId}`, { headers: api })).json()) as { state: string };
        if (status.state === 'completed') return (performance.now() - startedAt) / 1000;
        if (status.state === 'failed') throw new Error('bulk job failed');
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    const alone = await startBulk();
    const aloneSeconds = await waitDone(alone.job_id, alone.startedAt);
    const polled = await startBulk();
    const polling = autocannon({
      url: `${base}/api/reseller/v1/order/bulk-job-status/${polled.job_id}`,
      connections: 20,
      overallRate: POLL_RATE,
      duration: sized(Math.max(5, Math.ceil(aloneSeconds * 2)), 1),
      headers: api,
    });
    const polledSeconds = await waitDone(polled.job_id, polled.startedAt);
    const poll = await polling;
    console.log(
      `  ${BULK_ROWS.toLocaleString('en-US')}-label bulk order through the API: ${aloneSeconds.toFixed(2)} s alone, ${polledSeconds.toFixed(2)} s while bulk-job-status is polled at ${POLL_RATE} req/s`,
    );
    console.log(row(`GET /order/bulk-job-status at ${POLL_RATE}/s`, poll));
  } finally {
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

if (process.argv[1] === import.meta.filename) await runResellerBench();
