import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

export { RateLimiterRes } from 'rate-limiter-flexible';
export type Counter = RateLimiterAbstract;

/**
 * A fixed-window count under `name`: `points` a window of `windowSeconds`, counted per key (consume, penalty, reward,
 * get, delete). Every limit on clients is one: the attempt limits (lib/attempt-limiter) and the reseller API's requests.
 */
export type Counters = (name: string, points: number, windowSeconds: number) => Counter;

/**
 * The one store of those counts, by rate-limiter-flexible: in Redis (its keys `${keyPrefix}:${name}:${key}`), shared by
 * every process, when there is a client; else in this process's memory. Both count the same way.
 */
export function createCounters(redis: Redis | undefined, keyPrefix: string): Counters {
  return (name, points, duration) =>
    redis
      ? new RateLimiterRedis({ storeClient: redis, points, duration, keyPrefix: `${keyPrefix}:${name}` })
      : new RateLimiterMemory({ points, duration, keyPrefix: name });
}
