import { tooManyRequests } from './http-errors.ts';
import { RateLimiterRes, type Counter, type Counters } from './rate-limit.ts';

/** The first wait of an account's slow-down, doubled with each further failure up to SLOW_DOWN_MAX_MS. */
const SLOW_DOWN_FIRST_MS = 1000;
const SLOW_DOWN_MAX_MS = 10_000;

/**
 * How long every attempt on an account waits before its secret is checked when the account has failed `failures`
 * times in the window: nothing below `max`, then 1 s, doubling with each failure, at most 10 s. A slow-down, never a
 * refusal: the owner's right password still gets through, however many guesses others made.
 */
export const slowDownMs = (failures: number, max: number) => (failures < max ? 0 : Math.min(SLOW_DOWN_MAX_MS, SLOW_DOWN_FIRST_MS * 2 ** (failures - max)));

/** The key an address's attempts on a route are counted under (hit() counts it; guess() gives a success's point back). */
export const addressKey = (route: string, address: string) => `ip:${route}:${address}`;

/**
 * Fixed-window attempt counts that guard the sign-in and code screens and a few account changes: per account (`max` a
 * window), per address (keys starting 'ip:', three times that, since several people may share an address) and, for
 * guesses at a password or code, per account and address. They are kept in the shop's counter store (lib/rate-limit):
 * in memory (one process) or in Redis (shared by all processes), with the same counting either way.
 */
export interface AttemptLimiter {
  /** Counts one attempt under each key; throws 429 with Retry-After when any of them is over its limit. */
  hit(...keys: string[]): Promise<void>;
  /**
   * Runs `check`, a guess at an account's password or emailed code from an address whose attempt the route counted
   * first with hit(addressKey(route, address)). Only failures count, so nobody elsewhere can lock the owner out:
   * - per account and address, `max` a window: past it, 429 before the check, even for the right secret;
   * - per address, across accounts: the point hit() took is kept for a failure and given back for a success;
   * - per account from anywhere: no 429, only a slow-down (slowDownMs) before the check, right secret or wrong.
   * A success clears its address's failures on the account. Points are taken before the check, not counted after a
   * failure, so parallel guesses cannot all pass a check made before any of them is counted.
   */
  guess<T>(route: string, account: string, address: string, check: () => Promise<T>): Promise<T>;
}

export type AttemptLimits = {
  max: number;
  windowSeconds: number;
  counters: Counters;
  /** How a slow-down is waited out (tests record it instead). */
  sleep?: (ms: number) => Promise<void>;
};

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createAttemptLimiter(limits: AttemptLimits): AttemptLimiter {
  const make = (points: number, name: string) => limits.counters(`attempts:${name}`, points, limits.windowSeconds);
  const perAccount = make(limits.max, 'account');
  const perAddress = make(limits.max * 3, 'ip');
  const perAccountAddress = make(limits.max, 'account-ip');
  // Only counted (penalty) and read (get), never consumed: its points do not matter.
  const accountFailures = make(1, 'account-failures');
  const sleep = limits.sleep ?? wait;

  async function consume(counts: [Counter, string][]): Promise<void> {
    const results = await Promise.allSettled(counts.map(([limiter, key]) => limiter.consume(key)));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    if (refused.length === 0) return;
    const limited = refused.filter((reason): reason is RateLimiterRes => reason instanceof RateLimiterRes);
    // A store error (Redis down) is not a reason to let guesses through unlimited: it fails the request.
    if (limited.length < refused.length) throw refused.find((reason) => !(reason instanceof RateLimiterRes));
    throw tooManyRequests(Math.max(...limited.map((r) => r.msBeforeNext)) / 1000);
  }

  return {
    hit(...keys) {
      return consume(keys.map((key) => [key.startsWith('ip:') ? perAddress : perAccount, key]));
    },
    async guess(route, account, address, check) {
      const pairKey = `${route}:${account}:${address}`;
      const accountKey = `${route}:${account}`;
      await consume([[perAccountAddress, pairKey]]);
      const failures = (await accountFailures.get(accountKey))?.consumedPoints ?? 0;
      const delay = slowDownMs(failures, limits.max);
      if (delay > 0) await sleep(delay);
      const result = await check().catch(async (error: unknown) => {
        // The guess's own answer (401, 400) matters more than a lost count, which only drives the slow-down.
        await accountFailures.penalty(accountKey).catch(() => undefined);
        throw error;
      });
      // Signed in either way: a store error here only leaves the counts higher than they should be.
      await Promise.allSettled([perAccountAddress.delete(pairKey), perAddress.reward(addressKey(route, address))]);
      return result;
    },
  };
}
