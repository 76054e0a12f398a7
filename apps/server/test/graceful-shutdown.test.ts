import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { AMAZON_CSV_PATH, AMAZON_FOUND_HEADER } from '@portal/contract';
import { createDatabase } from '../src/db/database.ts';
import { sha256Hex } from '../src/lib/ids.ts';
import { readOrCreateSecret } from '../src/lib/secrets.ts';
import { createTokenService } from '../src/modules/auth/tokens.ts';
import { ordinarySlipPages, packingSlipPdf } from './slip-fixtures.ts';
import { startTestApp, testDbKind } from './harness.ts';
import { fundedCustomer } from './customers.ts';
import { createFromCsv, csvText, usRows, validateCsv } from './bulk-fixtures.ts';
import { freePort, untilServing } from './processes.ts';
import { slipSender } from './sample-addresses.ts';

const serverDir = path.resolve(import.meta.dirname, '..');
let dataDir = '';
let child: ChildProcess | undefined;
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
  }
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

it.runIf(testDbKind === 'sqlite')(
  'on SIGTERM the web process takes no new request, finishes the one in flight and exits 0 within 10 s',
  async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-shutdown-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: serverDir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        WEB_DIST: path.join(dataDir, 'no-web'),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let log = '';
    child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const exited = new Promise<{ code: number | null }>((resolve) => child!.once('exit', (code) => resolve({ code })));
    await untilServing(child, url, () => log);

    // A customer, written to the server's database, and a token signed with its key.
    const db = createDatabase({ sqliteFile: path.join(dataDir, 'portal.sqlite') });
    await db
      .insertInto('users')
      .values({
        id: 'u1',
        username: 'Seller',
        tg_id: 'seller',
        tg_id_lower: 'seller',
        password_hash: 'x',
        email: null,
        email_verified: 0,
        balance_cents: 0,
        api_key_sealed: 'lp_x',
        api_key_hash: sha256Hex('lp_x'),
        token_version: 0,
        created_at: new Date().toISOString(),
      })
      .execute();
    await db.destroy();
    const token = await createTokenService(readOrCreateSecret(dataDir, 'jwt-secret', undefined), 1).issue({ userId: 'u1', tokenVersion: 0 });

    // A request that takes a while: a 300-page packing-slip PDF.
    const form = new FormData();
    for (const [name, value] of Object.entries({ ...slipSender(), weight: '2' })) form.append(name, value);
    form.append('pdf', new Blob([(await packingSlipPdf(ordinarySlipPages(300))) as BlobPart], { type: 'application/pdf' }), 'slips.pdf');
    const inFlight = fetch(`${url}/api/v1${AMAZON_CSV_PATH}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    await vi.waitFor(
      () => {
        if (!log.includes(AMAZON_CSV_PATH)) throw new Error(`the upload never reached the server:\n${log}`);
      },
      { timeout: 30_000, interval: 10 },
    );

    child.kill('SIGTERM');
    await expect.poll(() => log.includes('shutting down')).toBe(true);
    await expect(fetch(`${url}/healthz`, { headers: { connection: 'close' } })).rejects.toThrow();
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.headers.get(AMAZON_FOUND_HEADER)).toBe('300');
    const { code } = await exited;
    // Exit 1 would be the 10 s limit cutting the shutdown short.
    expect(code, log).toBe(0);
  },
  120_000,
);

it.runIf(testDbKind === 'sqlite')(
  'on SIGTERM the worker finishes the bulk order it is making, then exits 0',
  async () => {
    // Orders are taken by this test's app; only the worker process makes them.
    const t = await startTestApp({ QUEUE_RUN_WORKERS: 'false', LABEL_RENDER_THREADS: '0' });
    try {
      const user = await fundedCustomer(t.app, 1_000_000, t.db);
      const worker = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
        cwd: serverDir,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          DATA_DIR: t.config.dataDir,
          LOG_LEVEL: 'info',
          LABEL_RENDER_THREADS: '0',
          SMTP_URL: '',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      child = worker;
      let log = '';
      worker.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
      await expect.poll(() => log.includes('worker started'), { timeout: 60_000 }).toBe(true);

      const csv = csvText(usRows(300));
      const { totalPrice } = (await validateCsv(t.app, user.headers, 'uspsv9', csv)).json();
      expect((await createFromCsv(t.app, user.headers, { type: 'uspsv9', total_price: totalPrice }, csv)).statusCode).toBe(200);
      const bulk = () => t.db.selectFrom('bulk_orders').select(['status', 'progress']).where('user_id', '=', user.userId).executeTakeFirstOrThrow();
      // Stopped while labels are being made.
      await expect.poll(async () => (await bulk()).progress, { timeout: 60_000, interval: 20 }).toBeGreaterThan(0);
      worker.kill('SIGTERM');
      expect((await bulk()).status).toBe('processing');
      expect(await exited, log).toBe(0);
      expect(log).toContain('worker stopping');
      expect(await bulk()).toEqual({ status: 'completed', progress: 100 });
    } finally {
      await t.close();
    }
  },
  120_000,
);
