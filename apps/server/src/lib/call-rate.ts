import type { FastifyBaseLogger } from 'fastify';
import { createRedis } from './redis.ts';

/** A rate of calls to an upstream that every process shares: take() waits for a free slot. */
export interface CallRate {
  readonly perSecond: number;
  take(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The next slot (microseconds on Redis's clock) handed out and moved on by one interval; answers how long to wait for
 * it. Redis's clock, not the callers': every process counts on the same one.
 */
const TAKE_SLOT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local slot = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
redis.call('SET', KEYS[1], string.format('%.0f', slot + tonumber(ARGV[1])), 'PX', 60000)
return slot - now`;

/**
 * Calls spaced evenly, 1/perSecond seconds apart, so that no second, wherever it starts, holds more than perSecond of
 * them (windows counted from a start would let twice as many through across a window's edge, and an upstream
 * counting over the last second answers 429 to that). The slots are kept in Redis when `redisUrl` is set, so the
 * rate holds across every process; else in this one.
 */
export function createCallRate(options: { perSecond: number; redisUrl?: string; keyPrefix: string; name: string; log?: FastifyBaseLogger }): CallRate {
  const intervalUs = Math.ceil(1_000_000 / options.perSecond);
  const wait = (us: number) => (us > 0 ? new Promise<void>((resolve) => setTimeout(resolve, Math.ceil(us / 1000))) : Promise.resolve());
  if (!options.redisUrl) {
    let next = 0;
    return {
      perSecond: options.perSecond,
      take() {
        const now = performance.now() * 1000;
        const slot = Math.max(now, next);
        next = slot + intervalUs;
        return wait(slot - now);
      },
      async close() {},
    };
  }
  const redis = createRedis(options.redisUrl, { name: `${options.name} call rate`, log: options.log });
  const key = `${options.keyPrefix}:rate:${options.name}`;
  return {
    perSecond: options.perSecond,
    async take() {
      await wait(Number(await redis.eval(TAKE_SLOT, 1, key, intervalUs)));
    },
    async close() {
      redis.disconnect();
    },
  };
}
