import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { tooManyRequests } from './http-errors.ts';

/**
 * Fixed-window attempt counts that guard the sign-in and code screens: per account (`max` a
 * window) and per address (keys starting 'ip:', three times that, since several people may share
 * an address). rate-limiter-flexible keeps them in memory (one process) or in Redis (shared by all
 * processes), with the same counting either way.
 */
export interface AttemptLimiter {
  /** Counts one attempt under each key; throws 429 with Retry-After when any of them is over its limit. */
  hit(...keys: string[]): Promise<void>;
  close(): Promise<void>;
}

export type AttemptLimits = { max: number; windowSeconds: number; redisUrl?: string; keyPrefix: string };

export function createAttemptLimiter(limits: AttemptLimits): AttemptLimiter {
  const redis = limits.redisUrl ? new Redis(limits.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true }) : undefined;
  const make = (points: number, name: string): RateLimiterAbstract =>
    redis
      ? new RateLimiterRedis({ storeClient: redis, points, duration: limits.windowSeconds, keyPrefix: `${limits.keyPrefix}:attempts:${name}` })
      : new RateLimiterMemory({ points, duration: limits.windowSeconds, keyPrefix: name });
  const perAccount = make(limits.max, 'account');
  const perAddress = make(limits.max * 3, 'ip');

  return {
    async hit(...keys) {
      const results = await Promise.allSettled(keys.map((key) => (key.startsWith('ip:') ? perAddress : perAccount).consume(key)));
      const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
      if (refused.length === 0) return;
      const limited = refused.filter((reason): reason is RateLimiterRes => reason instanceof RateLimiterRes);
      // A store error (Redis down) is not a reason to let guesses through unlimited: it fails the request.
      if (limited.length < refused.length) throw refused.find((reason) => !(reason instanceof RateLimiterRes));
      throw tooManyRequests(Math.max(...limited.map((r) => r.msBeforeNext)) / 1000);
    },
    async close() {
      redis?.disconnect();
    },
  };
}
