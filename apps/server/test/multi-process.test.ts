import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { createTestDb, dropRedisPrefix, fundUser, testDbKind, uniqueTgId } from './harness.ts';
import { orderPayload } from './order-fixtures.ts';
import { call, captcha, processGroup } from './processes.ts';
import { uniqueId } from './basics.ts';

const ORDERS = 200;
const processes = processGroup();
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  await processes.stopAll();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

it.runIf(testDbKind === 'postgres' && process.env.TEST_REDIS_URL)(
  `two web processes and a worker complete ${ORDERS} orders the provider makes later: each asked for and made once`,
  async () => {
    const { db, dataDir, databaseUrl, drop } = await createTestDb();
    cleanups.push(drop);
    const prefix = uniqueId('test-multi');
    cleanups.push(() => dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix));
    const callLog = path.join(dataDir, 'label-calls.log');
    const env = {
      DATABASE_URL: databaseUrl!,
      REDIS_URL: process.env.TEST_REDIS_URL!,
      QUEUE_PREFIX: prefix,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      SMTP_URL: '',
      ALTCHA_MAX_NUMBER: '1000',
      RATE_LIMIT_MAX: '1000',
      LABEL_SANDBOX_MODE: 'processing',
      LABEL_SANDBOX_DELAY_MS: '500',
      LABEL_SANDBOX_CALL_LOG: callLog,
      LABEL_RENDER_THREADS: '0',
      ORDER_POLL_INTERVAL_MS: '200',
      WEB_DIST: path.join(dataDir, 'no-web'),
    };
    // Every process sweeps: both web processes run queue workers too, beside the worker process.
    const [one, two] = await Promise.all([processes.start('src/server.ts', env), processes.start('src/server.ts', env), processes.start('src/worker.ts', env)]);

    const tgId = uniqueTgId('multi');
    await call(one, '/auth/register', { username: 'Multi Process', tgId, password: 'multi password 1', captchaToken: await captcha(one) });
    const { accessToken } = await call(two, '/auth/login', { tgId, password: 'multi password 1', captchaToken: await captcha(two) });
    const { _id: userId } = await call(one, '/auth/access', undefined, accessToken);
    await fundUser(db, userId, ORDERS * 2_000);

    for (let i = 0; i < ORDERS; i += 10) {
      await Promise.all(Array.from({ length: 10 }, (_, j) => call((i + j) % 2 ? one : two, '/order/create', orderPayload('fedex_ground'), accessToken)));
    }
    const statuses = async () => (await db.selectFrom('orders').select(['status']).where('user_id', '=', userId).execute()).map((o) => o.status);
    await vi.waitFor(
      async () => {
        const now = await statuses();
        if (now.length !== ORDERS || !now.every((s) => s === 'completed'))
          throw new Error(`not all completed: ${JSON.stringify(now.reduce<Record<string, number>>((n, s) => ({ ...n, [s]: (n[s] ?? 0) + 1 }), {}))}`);
      },
      { timeout: 120_000, interval: 250 },
    );
    // Every process finishes what it has in hand and ends: no call to the provider can come after the log is read.
    expect(await processes.stopAll('SIGTERM')).toEqual([0, 0, 0]);

    const ids = (await db.selectFrom('orders').select('id').where('user_id', '=', userId).execute()).map((o) => o.id);
    const lines = fs.readFileSync(callLog, 'utf8').trim().split('\n');
    const count = (what: string) => {
      const n = new Map<string, number>();
      for (const line of lines) if (line.startsWith(`${what} `)) n.set(line.slice(what.length + 1), (n.get(line.slice(what.length + 1)) ?? 0) + 1);
      return n;
    };
    const created = count('create');
    const made = count('made');
    expect(ids.map((id) => created.get(id))).toEqual(ids.map(() => 1));
    expect(ids.map((id) => made.get(id))).toEqual(ids.map(() => 1));
    const ledger = await db.selectFrom('ledger').select(['kind']).where('user_id', '=', userId).where('kind', '!=', 'adjustment').execute();
    expect(ledger.filter((l) => l.kind === 'order_charge')).toHaveLength(ORDERS);
    expect(ledger.filter((l) => l.kind !== 'order_charge')).toEqual([]);
  },
  240_000,
);
