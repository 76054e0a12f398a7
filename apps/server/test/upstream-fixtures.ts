import { dropRedisPrefix, queueEnv, startTestApp, type Engine, type TestApp } from './harness.ts';
import { startFakeEasyPost, type FakeEasyPost } from './fake-easypost.ts';
import { startFakeShippo, type FakeShippo } from './fake-shippo.ts';
import { uniqueId } from './basics.ts';
import { RATES_UNDER_PRICES } from './easypost-fixtures.ts';

/**
 * Shippo's rates under the seed prices of the orders the tests place, by service level token: each a few cents under
 * EasyPost's RATES_UNDER_PRICES, so Shippo is the cheaper upstream until a test says otherwise.
 */
export const SHIPPO_RATES_UNDER_PRICES: Readonly<Record<string, string>> = {
  usps_priority: '3.95',
  usps_ground_advantage: '2.45',
  fedex_ground: '5.05',
  ups_standard: '7.20',
  ups_expedited: '8.90',
  ups_saver: '11.05',
  ups_express: '12.25',
  ups_express_early: '22.60',
};

/** The settings that buy labels at both fakes, EasyPost first (the preference), and reach its queue. */
export const upstreamsEnv = (easypost: FakeEasyPost, shippo: FakeShippo): Record<string, string> => ({
  LABEL_UPSTREAMS: 'easypost,shippo',
  EASYPOST_API_KEY: easypost.apiKey,
  EASYPOST_API_URL: easypost.url,
  EASYPOST_WEBHOOK_SECRET: easypost.webhookSecret,
  SHIPPO_API_KEY: shippo.apiKey,
  SHIPPO_API_URL: shippo.url,
  SHIPPO_WEBHOOK_SECRET: shippo.webhookSecret,
  LABEL_WAIT_MS: '30000',
});

export type UpstreamsApp = { t: TestApp; easypost: FakeEasyPost; shippo: FakeShippo; env: Record<string, string>; close(): Promise<void> };

/** A fake EasyPost, a fake Shippo (both rating under the prices) and a test app buying at both, on the given queue. */
export async function startUpstreamsApp(engine: Engine, name: string, extra: Record<string, string> = {}): Promise<UpstreamsApp> {
  const prefix = uniqueId(`test-${name}`);
  const [easypost, shippo] = await Promise.all([startFakeEasyPost(), startFakeShippo()]);
  easypost.rates = { ...RATES_UNDER_PRICES };
  shippo.rates = { ...SHIPPO_RATES_UNDER_PRICES };
  const env = { ...upstreamsEnv(easypost, shippo), ...queueEnv(engine, prefix), ...extra };
  let t: TestApp | undefined;
  const close = async () => {
    await t?.close();
    await Promise.all([easypost.close(), shippo.close()]);
    if (engine === 'bullmq') await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  };
  try {
    t = await startTestApp(env);
  } catch (error) {
    await close();
    throw error;
  }
  return { t, easypost, shippo, env, close };
}
