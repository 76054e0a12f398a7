import { describe, expect, it } from 'vitest';
import { dropRedisPrefix } from '../../test/harness.ts';
import { createCallRate } from './call-rate.ts';
import { uniqueId } from '../../test/basics.ts';

const stores = ['memory', ...(process.env.TEST_REDIS_URL ? ['redis'] : [])] as const;

describe.each(stores)('a call rate in %s', (store) => {
  it('gives calls slots 1/perSecond apart, so no second holds more than perSecond of them', async () => {
    const keyPrefix = uniqueId('test-rate');
    const redisUrl = store === 'redis' ? process.env.TEST_REDIS_URL! : undefined;
    // With Redis two limiters stand for two processes sharing the rate; in memory one process has one.
    const rates =
      store === 'redis'
        ? [0, 1].map(() => createCallRate({ perSecond: 10, redisUrl, keyPrefix, name: 'upstream' }))
        : [createCallRate({ perSecond: 10, keyPrefix, name: 'upstream' })];
    try {
      const first = Date.now();
      await rates[0].take();
      const started: number[] = [];
      await Promise.all(Array.from({ length: 20 }, (_, i) => rates[i % rates.length].take().then(() => started.push(Date.now()))));
      started.sort((a, b) => a - b);
      // At 10 a second the slots are 100 ms apart: the k-th call after the first starts k x 100 ms after it at the
      // earliest (a busy machine only starts calls later), so 11 calls never fit in one second.
      started.forEach((at, i) => expect(at - first).toBeGreaterThanOrEqual((i + 1) * 100 - 1));
    } finally {
      for (const rate of rates) await rate.close();
      if (redisUrl) await dropRedisPrefix(redisUrl, keyPrefix);
    }
  });
});
