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

/**
 * Rates under the seed prices of the orders the tests place (orderPayload's and labelFields' 2 lb Priority, 6 oz
 * GroundAdvantage, 2 lb FedEx Ground and UPS (Canada) types), by service, for `fake.rates`. The fake's own rates
 * (fakeRate) are near the carriers' real ones, above most seed prices, and a rate above its price is refused: a test about
 * buying, not about cost, sets these. 'Express' is UPS Express inside Canada (USPS Express is rated only inside the US).
 */
export const RATES_UNDER_PRICES: Readonly<Record<string, string>> = {
  Priority: '4.10',
  GroundAdvantage: '2.60',
  FEDEX_GROUND: '5.20',
  UPSStandard: '7.35',
  Expedited: '9.05',
  UPSSaver: '11.20',
  Express: '12.40',
  ExpressPlus: '22.75',
};

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
