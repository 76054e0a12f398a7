import { fork } from 'node:child_process';
import path from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { resultRow } from './result-row.ts';
import { knob, sized } from './smoke.ts';

type Ready = { port: number; token: string; seedSeconds: number; users: number; orders: number; ledgerRows: number; days: number };

const CONNECTIONS = 8;
const SECONDS = knob('BENCH_SECONDS', 10, 0.2);
const WARM_SECONDS = sized(2, 0.2);

const row = (name: string, r: Result, bare?: Result) => resultRow(name, r, 26, bare && { result: bare, what: 'bare' });

/** The operator console's overview (and its first list pages) on the embedded defaults, with a shop's history in the tables. */
export async function runAdminBench(): Promise<void> {
  const child = fork(path.join(import.meta.dirname, 'admin-server.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const ready = await new Promise<Ready>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Ready));
      child.once('exit', (code) => reject(new Error(`admin bench server exited with ${code}`)));
    });
    const base = `http://127.0.0.1:${ready.port}`;
    const headers = { authorization: `Bearer ${ready.token}` };
    const run = async (url: string, connections = CONNECTIONS) => {
      await autocannon({ url: `${base}${url}`, connections, duration: WARM_SECONDS, headers });
      return autocannon({ url: `${base}${url}`, connections, duration: SECONDS, headers });
    };
    const n = (x: number) => x.toLocaleString('en-US');
    console.log(
      `\nOperator console on the embedded defaults (SQLite): ${n(ready.users)} users, ${n(ready.orders)} orders and ${n(ready.ledgerRows)} ledger rows over ${ready.days} days (seeded in ${ready.seedSeconds.toFixed(1)} s); ${CONNECTIONS} connections x ${SECONDS} s each`,
    );
    const bare = await run('/bench/bare');
    console.log(row('bare route', bare));
    console.log(row('GET /admin/overview', await run('/api/v1/admin/overview'), bare), '  (target p99 < 100 ms)');
    // One connection: every request computes the overview itself (none shares another's computation).
    console.log(row('  the same, 1 connection', await run('/api/v1/admin/overview', 1)), '  (one computation per request)');
    console.log(row('GET /admin/orders', await run('/api/v1/admin/orders'), bare));
    console.log(row('GET /admin/users?search=', await run('/api/v1/admin/users?search=customer_99'), bare));
  } finally {
    if (child.exitCode === null && child.connected) {
      child.send('stop');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
}
