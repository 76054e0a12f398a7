import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { csvText, usRows } from './bulk-fixtures.ts';
import { createTestDb, dropRedisPrefix, fundUser, testDbKind, uniqueTgId } from './harness.ts';
import { startLocalS3 } from './local-s3.ts';
import { orderPayload } from './order-fixtures.ts';
import { call, captcha, postForm, processGroup } from './processes.ts';
import { uniqueId } from './basics.ts';

const BULK_ROWS = 200;
const processes = processGroup();
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  await processes.stopAll();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

const download = async (url: string, pathName: string, token: string) => {
  const response = await fetch(`${url}${pathName}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
};

it.runIf(testDbKind === 'postgres' && process.env.TEST_REDIS_URL)(
  'two web machines and a worker machine with no shared directory share orders, files and attempt limits through PostgreSQL, Redis and S3',
  async () => {
    const { databaseUrl, db, drop } = await createTestDb();
    cleanups.push(drop);
    const s3 = await startLocalS3();
    cleanups.push(() => s3.close());
    const prefix = uniqueId('test-machines');
    cleanups.push(() => dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix));
    // Each machine its own DATA_DIR: what they share is set, not generated.
    const machineDir = () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-machine-'));
      cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
      return dir;
    };
    const shared = {
      DATABASE_URL: databaseUrl!,
      REDIS_URL: process.env.TEST_REDIS_URL!,
      QUEUE_PREFIX: prefix,
      ...s3.env,
      JWT_SECRET: 'jwt-secret-shared-by-every-machine-0123456789',
      SECRETS_KEY: 'sealing-key-shared-by-every-machine-0123456789',
      ALTCHA_HMAC_KEY: 'altcha-key-shared-by-every-machine-0123456789',
      LOG_LEVEL: 'warn',
      SMTP_URL: '',
      ALTCHA_MAX_NUMBER: '1000',
      RATE_LIMIT_MAX: '3',
      LABEL_RENDER_THREADS: '0',
    };
    const web = { ...shared, QUEUE_RUN_WORKERS: 'false' };
    const [one, two] = await Promise.all([
      processes.start('src/server.ts', { ...web, DATA_DIR: machineDir(), WEB_DIST: '/nonexistent' }),
      processes.start('src/server.ts', { ...web, DATA_DIR: machineDir(), WEB_DIST: '/nonexistent' }),
      processes.start('src/worker.ts', { ...shared, DATA_DIR: machineDir() }),
    ]);

    const tgId = uniqueTgId('machines');
    await call(one, '/auth/register', { username: 'Two Machines', tgId, password: 'machines password 1', captchaToken: await captcha(one) });
    const { accessToken } = await call(two, '/auth/login', { tgId, password: 'machines password 1', captchaToken: await captcha(two) });
    const { _id: userId } = await call(one, '/auth/access', undefined, accessToken);
    await fundUser(db, userId, 500_000);

    // An order made on machine 1 is downloaded through machine 2.
    await call(one, '/order/create', orderPayload('priority'), accessToken);
    const orderId = (await call(one, '/order/read?page=1&limit=1', undefined, accessToken)).orders[0]._id;
    const label = await download(two, `/api/v1/order/download/${orderId}`, accessToken);
    expect([label.status, label.body.subarray(0, 5).toString()]).toEqual([200, '%PDF-']);

    // A bulk order paid on machine 2 is made by the worker and downloaded on machine 1.
    const csv = csvText(usRows(BULK_ROWS));
    const { totalPrice } = await postForm(two, '/order/validatecsv', accessToken, { labeltype: 'uspsv9' }, csv);
    await postForm(two, '/order/createOrderFromCSV', accessToken, { type: 'uspsv9', total_price: String(totalPrice), design: '' }, csv);
    let bulk: { _id: string; status: string; zip: string | null; pdf: string | null; csv: string | null } | undefined;
    await vi.waitFor(
      async () => {
        [bulk] = (await call(one, '/order/read-bulk-orders', undefined, accessToken)).orders;
        if (bulk?.status !== 'completed') throw new Error(`bulk order not made: ${JSON.stringify(bulk)}`);
      },
      { timeout: 120_000, interval: 250 },
    );
    const zip = await download(one, `/api/v1/order/bulk-download/${bulk!._id}`, accessToken);
    const pdf = await download(one, `/api/v1/order/bulk-download-pdf/${bulk!._id}`, accessToken);
    const report = await download(one, `/api/v1/order/bulk-download-csv/${bulk!._id}`, accessToken);
    expect([zip.status, zip.body.subarray(0, 2).toString()]).toEqual([200, 'PK']);
    expect([pdf.status, pdf.body.subarray(0, 5).toString()]).toEqual([200, '%PDF-']);
    expect([
      report.status,
      report.body
        .toString('utf8')
        .replace(/^\uFEFF/, '')
        .trim()
        .split(/\r?\n/).length,
    ]).toEqual([200, BULK_ROWS + 1]);

    // Failed sign-ins on the account from this address are counted across both web machines (3 allowed;
    // the sign-in on machine 2 did not count): after a wrong password on 1, 2 and 1, machine 2 refuses the next.
    const wrong = async (url: string) =>
      fetch(`${url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tgId, password: 'not the password', captchaToken: await captcha(url) }),
      }).then((r) => r.status);
    expect([await wrong(one), await wrong(two), await wrong(one), await wrong(two)]).toEqual([401, 401, 401, 429]);
  },
  240_000,
);
