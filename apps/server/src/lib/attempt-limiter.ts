import { tooManyRequests } from './http-errors.ts';

/**
 * Fixed-window attempt counter kept in memory. It guards the sign-in and code screens per account
 * (`max` a window) and per address (keys starting 'ip:', three times that, since several people
 * may share an address); one server process holds the counts.
 */
export class AttemptLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Counts one attempt under each key; throws 429 when any of them is over its limit. */
  hit(...keys: string[]): void {
    const now = Date.now();
    if (this.windows.size > 50_000) this.sweep(now);
    for (const key of keys) {
      const window = this.windows.get(key);
      if (!window || window.resetAt <= now) this.windows.set(key, { count: 1, resetAt: now + this.windowMs });
      else if (++window.count > (key.startsWith('ip:') ? this.max * 3 : this.max)) throw tooManyRequests();
    }
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}
