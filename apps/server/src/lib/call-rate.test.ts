import { describe, expect, it } from 'vitest';
import { dropRedisPrefix } from '../../test/harness.ts';
import { randomToken } from './ids.ts';
import { createCallRate } from './call-rate.ts';

const stores = ['memory', ...(process.env.TEST_REDIS_URL ? ['redis'] : [])] as const;

describe.each(stores)('a call rate in %s', (store) => {
  it('lets `perSecond` calls start in a second and holds the next ones for the following windows', async () => {
    const keyPrefix = `test-rate-${randomToken(6)}`;
    const redisUrl = store === 'redis' ? process.env.TEST_REDIS_URL! : undefined;
    // With Redis two limiters stand for two processes sharing the limit; in memory one process has one.
    const rates =
      store === 'redis'
        ? [0, 1].map(() => createCallRate({ perSecond: 4, redisUrl, keyPrefix, name: 'upstream' }))
        : [createCallRate({ perSecond: 4, keyPrefix, name: 'upstream' })];
    try {
      const started: number[] = [];
      await Promise.all(Array.from({ length: 9 }, (_, i) => rates[i % rates.length].take().then(() => started.push(Date.now()))));
      started.sort((a, b) => a - b);
      // 4 in the first window, 4 in the second, the 9th in the third: at least two windows after the first call.
      expect(started[8] - started[0]).toBeGreaterThanOrEqual(1900);
      expect(started[4] - started[0]).toBeGreaterThanOrEqual(900);
    } finally {
      for (const rate of rates) await rate.close();
      if (redisUrl) await dropRedisPrefix(redisUrl, keyPrefix);
    }
  });
});
