import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** A rate of calls to an upstream that every process shares: take() waits for a free slot. */
export interface CallRate {
  take(): Promise<void>;
  close(): Promise<void>;
}

/**
 * At most `perSecond` calls a second (below 1: one call every 1/perSecond seconds), counted in fixed windows by
 * rate-limiter-flexible: in Redis when `redisUrl` is set, so the limit holds across every process; else in this one.
 */
export function createCallRate(options: { perSecond: number; redisUrl?: string; keyPrefix: string; name: string }): CallRate {
  const redis = options.redisUrl ? new Redis(options.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true }) : undefined;
  const points = options.perSecond >= 1 ? Math.floor(options.perSecond) : 1;
  const duration = options.perSecond >= 1 ? 1 : Math.ceil(1 / options.perSecond);
  const limiter: RateLimiterAbstract = redis
    ? new RateLimiterRedis({ storeClient: redis, points, duration, keyPrefix: `${options.keyPrefix}:rate:${options.name}` })
    : new RateLimiterMemory({ points, duration, keyPrefix: options.name });
  return {
    async take() {
      for (;;) {
        try {
          await limiter.consume('calls');
          return;
        } catch (refused) {
          if (!(refused instanceof RateLimiterRes)) throw refused;
          await new Promise((r) => setTimeout(r, Math.max(1, refused.msBeforeNext)));
        }
      }
    },
    async close() {
      redis?.disconnect();
    },
  };
}
