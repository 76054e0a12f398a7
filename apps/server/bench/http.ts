import { fork } from 'node:child_process';
import path from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { resultRow } from './result-row.ts';

type Ready = { port: number; token: string; seedSeconds: number; totalOrders: number; benchUserOrders: number };

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

const createBody = JSON.stringify({
  labelType: 'priority',
  design: 'normal',
  Weight: 2,
  FromName: 'Bench Sender',
  FromStreet: '123 Main Street',
  FromCity: 'New York',
  FromState: 'NY',
  FromZip: '10001',
  ToName: 'Bench Receiver',
  ToStreet: '456 Oak Avenue',
  ToCity: 'Beverly Hills',
  ToState: 'CA',
  ToZip: '90210',
});

const row = (name: string, r: Result, bare?: Result) =>
  resultRow(name, r, 22, bare && { result: bare, what: 'bare' }) + (bare ? `, p99 x${(r.latency.p99 / Math.max(bare.latency.p99, 1)).toFixed(1)}` : '');

/** POST /order/create and GET /order/read on the embedded defaults beside a bare route of the same server. */
export async function runHttpBench(): Promise<void> {
  const child = fork(path.join(import.meta.dirname, 'http-server.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const ready = await new Promise<Ready>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Ready));
      child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    });
    const base = `http://127.0.0.1:${ready.port}`;
    const headers = { authorization: `Bearer ${ready.token}`, 'content-type': 'application/json' };
    // Each route is warmed for 2 s (JIT, caches, render threads) before its measured run.
    const run = async (url: string, extra: { method?: string; body?: string } = {}) => {
      await autocannon({ url: `${base}${url}`, connections: CONNECTIONS, duration: 2, headers, ...extra });
      return autocannon({ url: `${base}${url}`, connections: CONNECTIONS, duration: SECONDS, headers, ...extra });
    };

    console.log(`\nHTTP on the embedded defaults (SQLite), ${ready.totalOrders.toLocaleString('en-US')} orders in the table (seeded in ${ready.seedSeconds.toFixed(1)} s), the measured user owning ${ready.benchUserOrders.toLocaleString('en-US')}; ${CONNECTIONS} connections x ${SECONDS} s each`);
    const bare = await run('/bench/bare');
    console.log(row('bare route', bare));
    const read = await run('/api/v1/order/read?search=&status=&sort=&page=1&limit=10');
    console.log(row('GET /order/read', read, bare), '  (target p99 < 25 ms)');
    const create = await run('/api/v1/order/create', { method: 'POST', body: createBody });
    console.log(row('POST /order/create', create, bare), '  (target p99 < 50 ms)');
  } finally {
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}
