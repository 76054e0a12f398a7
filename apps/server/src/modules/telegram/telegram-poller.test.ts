import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WAIT, uniqueId } from '../../../test/basics.ts';
import { TEST_PASSWORD_COST, createTestDb, dropRedisPrefix } from '../../../test/harness.ts';
import { startFakeTelegram } from '../../../test/fake-telegram.ts';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import '../../../test/reseller-fixtures.ts';
import { engines, newChatId, telegramEnv } from '../../../test/telegram-fixtures.ts';
import { botTexts } from './texts.ts';

const serverDir = path.resolve(import.meta.dirname, '../../..');
const LEASE_MS = 900;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** `npm run worker` as its own process, with its log kept. */
function startWorker(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    cwd: serverDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let log = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  return { child, exited, log: () => log };
}

describe.each(engines)('Telegram long polling on the %s queue', (engine) => {
  it('polls in one process at a time: a worker process waits while the web process polls, and takes over when it stops', async () => {
    const tg = await startFakeTelegram();
    cleanups.push(() => tg.close());
    const { db, dataDir, databaseUrl, drop } = await createTestDb();
    cleanups.push(drop);
    const prefix = uniqueId('test-tg-poll');
    const redisUrl = engine === 'bullmq' ? process.env.TEST_REDIS_URL! : '';
    if (redisUrl) cleanups.push(() => dropRedisPrefix(redisUrl, prefix));
    const env = {
      ...telegramEnv(tg, { TELEGRAM_POLL_LEASE_MS: String(LEASE_MS) }),
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? '',
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: prefix,
      SMTP_URL: '',
      LABEL_RENDER_THREADS: '0',
      WEB_DIST: path.join(dataDir, 'no-web'),
    };

    /** Who holds the polling lease now: the lease row, or the Redis key. */
    const holder = async (): Promise<string | null> => {
      if (!redisUrl) return (await (db as Db).selectFrom('leases').select('holder').where('name', '=', 'telegram-poller').executeTakeFirst())?.holder ?? null;
      const redis = new Redis(redisUrl);
      try {
        return await redis.get(`${prefix}:telegram-poller`);
      } finally {
        redis.disconnect();
      }
    };
    const answered = async (count: number) => {
      const chat = newChatId();
      tg.send(chat, '/help');
      expect(await tg.sentTo(chat, 1)).toEqual([botTexts.help]);
      return count;
    };

    // The web process runs the queue workers, so it polls.
    const web: FastifyInstance = await buildApp(loadConfig({ ...env, LOG_LEVEL: 'silent' }), { db, logger: false, passwordCost: TEST_PASSWORD_COST });
    let webOpen = true;
    cleanups.push(async () => webOpen && (await web.close()));
    await vi.waitFor(async () => expect(tg.calls).toContain('getUpdates'), WAIT);
    const webHolder = await holder();
    expect(webHolder).toEqual(expect.any(String));
    await answered(1);

    // A worker process on the same database (and Redis) starts: it waits for the lease instead of polling too.
    const worker = startWorker({ ...env, LOG_LEVEL: 'debug' });
    await vi.waitFor(async () => expect(worker.log()).toContain('worker started'), { ...WAIT, timeout: 60_000 });
    // It asks for the lease a third of the lease's time apart and is refused: six refusals span more than the lease's
    // time, in which a lease the web process did not renew would have run out and been taken.
    const refusals = () =>
      worker
        .log()
        .split('\n')
        .filter((line) => line.includes('"msg":"telegram polling lease is held by another process"')).length;
    const polling = () => worker.log().includes('polling Telegram for updates');
    await vi.waitFor(async () => expect(refusals() >= 6 || polling()).toBe(true), { ...WAIT, timeout: 60_000 });
    expect(polling()).toBe(false);
    expect(await holder()).toBe(webHolder);
    await answered(2);
    expect({ maxConcurrentPolls: tg.maxConcurrentPolls, conflicts: tg.conflicts }).toEqual({ maxConcurrentPolls: 1, conflicts: 0 });

    // The web process stops: it lets the lease go, and the worker polls from then on.
    await web.close();
    webOpen = false;
    await vi.waitFor(async () => expect(worker.log()).toContain('polling Telegram for updates'), WAIT);
    const workerHolder = await holder();
    expect(workerHolder).toEqual(expect.any(String));
    expect(workerHolder).not.toBe(webHolder);
    await answered(3);
    expect({ maxConcurrentPolls: tg.maxConcurrentPolls, conflicts: tg.conflicts }).toEqual({ maxConcurrentPolls: 1, conflicts: 0 });

    // Stopped, the worker gives the lease up at once.
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(await holder()).toBeNull();
  }, 120_000);
});
