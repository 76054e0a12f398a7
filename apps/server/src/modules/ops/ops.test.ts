import { afterAll, describe, expect, it } from 'vitest';
import { dropRedisPrefix, startTestApp, type TestApp } from '../../../test/harness.ts';
import { createLocalFileStore, type FileStore } from '../../providers/storage/file-store.ts';

const apps: TestApp[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const t of apps) await t.close();
  for (const cleanup of cleanups) await cleanup();
});

const engines = [{ name: 'embedded queue', env: {} as Record<string, string> }];
if (process.env.TEST_REDIS_URL) {
  const prefix = `portal-readyz-${process.pid}-${Date.now()}`;
  engines.push({ name: 'BullMQ', env: { REDIS_URL: process.env.TEST_REDIS_URL, QUEUE_PREFIX: prefix } });
  cleanups.push(() => dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix));
}

describe.each(engines)('/healthz and /readyz on the $name', ({ env }) => {
  it('answers ready when the database, the queue and the files answer', async () => {
    const t = await startTestApp(env);
    apps.push(t);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect([res.statusCode, res.json()]).toEqual([200, { status: 'ready', checks: { database: 'ok', queue: 'ok', files: 'ok' } }]);
  });

  it('answers 503 naming the part that fails, while /healthz stays ok', async () => {
    let broken = false;
    const wrap = (store: FileStore): FileStore => ({ ...store, get: (key) => (broken ? Promise.reject(new Error('disk is gone')) : store.get(key)) });
    const t = await startTestApp(env);
    apps.push(t);
    const shaky = await startTestApp(env, { files: wrap(createLocalFileStore(`${t.config.dataDir}/files`)) });
    apps.push(shaky);
    broken = true;
    const res = await shaky.app.inject({ method: 'GET', url: '/readyz' });
    expect([res.statusCode, res.json()]).toEqual([
      503,
      { status: 'unavailable', message: 'files failing: disk is gone', checks: { database: 'ok', queue: 'ok', files: 'failing: disk is gone' } },
    ]);
    expect((await shaky.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

  });
});
