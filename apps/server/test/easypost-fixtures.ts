import { vi } from 'vitest';
import type { Db } from '../src/db/database.ts';
import { dropRedisPrefix, queueEnv, startTestApp, type Engine, type TestApp } from './harness.ts';
import type { AppOverrides } from '../src/app.ts';
import { startFakeEasyPost, type FakeEasyPost } from './fake-easypost.ts';
import { uniqueId } from './basics.ts';

/**
 * The settings that buy labels from the fake. A single order waits up to 30 s for its label (the default 5 s was
 * passed on a busy machine by a first purchase that also loads the EasyPost client, and the order answered
 * Processing); a test about that wait sets its own LABEL_WAIT_MS (easypost-wait.test.ts).
 */
export const easyPostEnv = (fake: FakeEasyPost): Record<string, string> => ({
  LABEL_PROVIDER: 'easypost',
  EASYPOST_API_KEY: fake.apiKey,
  EASYPOST_API_URL: fake.url,
  LABEL_WAIT_MS: '30000',
});

/** env: the settings that reach the fake and the queue, for another process of the same shop. */
export type EasyPostApp = { t: TestApp; fake: FakeEasyPost; env: Record<string, string>; close(): Promise<void> };

/**
 * A fake EasyPost and a test app buying its labels there, on the given queue (BullMQ under a fresh prefix named after
 * the test). close() stops both and drops the prefix's keys.
 */
export async function startEasyPostApp(
  engine: Engine,
  name: string,
  extra: (fake: FakeEasyPost) => Record<string, string> = () => ({}),
  overrides: AppOverrides = {},
): Promise<EasyPostApp> {
  const prefix = uniqueId(`test-${name}`);
  const fake = await startFakeEasyPost();
  const env = { ...easyPostEnv(fake), ...queueEnv(engine, prefix) };
  let t: TestApp | undefined;
  const close = async () => {
    await t?.close();
    await fake.close();
    if (engine === 'bullmq') await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  };
  try {
    t = await startTestApp({ ...env, ...extra(fake) }, overrides);
  } catch (error) {
    await close();
    throw error;
  }
  return { t, fake, env, close };
}

/** The user's newest order row. */
export const newestOrder = (db: Db, userId: string) =>
  db.selectFrom('orders').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').executeTakeFirstOrThrow();

/** The user's newest order once it has left pending and processing (polled for up to `timeoutMs`). */
export async function settledOrder(db: Db, userId: string, timeoutMs = 20_000) {
  let order = await newestOrder(db, userId);
  await vi.waitFor(
    async () => {
      order = await newestOrder(db, userId);
      if (order.status !== 'completed' && order.status !== 'cancelled') throw new Error(`order still ${order.status}`);
    },
    { timeout: timeoutMs, interval: 50 },
  );
  return order;
}
