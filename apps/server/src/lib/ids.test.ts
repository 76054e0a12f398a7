import { afterEach, expect, it, vi } from 'vitest';
import { nowIsoIncreasing } from './ids.ts';

afterEach(() => {
  vi.useRealTimers();
});

it('nowIsoIncreasing increases within a burst, and restarts at the clock once the clock is set back by hours', () => {
  const burst = Array.from({ length: 1000 }, () => nowIsoIncreasing());
  expect(new Set(burst).size).toBe(1000);
  expect([...burst].sort()).toEqual(burst);
  // A clock moved 8 hours ahead (as a test does) and then restored: rows are dated now again, not 8 hours ahead.
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 8 * 3_600_000 });
  nowIsoIncreasing();
  vi.useRealTimers();
  expect(Math.abs(Date.parse(nowIsoIncreasing()) - Date.now())).toBeLessThan(1000);
});
