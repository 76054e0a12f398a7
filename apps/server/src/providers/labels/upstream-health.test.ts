import { expect, it } from 'vitest';
import { UpstreamHealth } from './upstream-health.ts';

/** A breaker on a clock the test moves. */
function breaker(options: { faultsToOpen?: number; openMs?: number; maxOpenMs?: number } = {}) {
  let now = 1_000_000;
  const health = new UpstreamHealth('easypost', { ...options, now: () => now });
  return { health, later: (ms: number) => (now += ms) };
}

it('opens after the faults in a row, not after faults between answers; a 4xx (answered) closes the count', () => {
  const { health } = breaker({ faultsToOpen: 3 });
  health.failed(10, 'timeout');
  health.failed(10, 'timeout');
  health.answered(10);
  health.failed(10, '503');
  health.failed(10, '503');
  expect(health.state).toBe('closed');
  expect(health.allow()).toBe(true);
  health.failed(10, '503');
  expect(health.state).toBe('open');
  expect(health.healthy).toBe(false);
  expect(health.allow()).toBe(false);
});

it('half-open after its window lets one probe through at a time; a failed probe doubles the window, a success closes it', () => {
  const { health, later } = breaker({ faultsToOpen: 1, openMs: 1000, maxOpenMs: 3000 });
  health.failed(5, 'ECONNREFUSED');
  expect(health.view()).toMatchObject({ state: 'open', probeAt: new Date(1_001_000).toISOString() });
  later(1000);
  expect(health.state).toBe('half-open');
  expect(health.allow()).toBe(true); // the probe
  expect(health.allow()).toBe(false); // no second while it is out
  health.failed(5, 'ECONNREFUSED');
  later(1999);
  expect(health.state).toBe('open'); // 2 s now
  later(1);
  expect(health.allow()).toBe(true);
  health.failed(5, 'ECONNREFUSED');
  later(3000); // doubled again, but at most maxOpenMs
  expect(health.allow()).toBe(true);
  health.answered(5);
  expect(health.state).toBe('closed');
  expect(health.allow()).toBe(true);
  expect(health.allow()).toBe(true);
});

it('shows the last hour: p95 of call times, faults, 429s and purchases, and forgets what is older', () => {
  const { health, later } = breaker();
  for (let ms = 1; ms <= 100; ms++) health.answered(ms);
  health.failed(500, '500 Internal Server Error');
  health.rateLimited();
  health.purchased();
  expect(health.view()).toMatchObject({
    state: 'closed',
    lastError: '500 Internal Server Error',
    p95Ms: 96,
    callsLastHour: 101,
    faultsLastHour: 1,
    rateLimitedLastHour: 1,
    purchasesLastHour: 1,
  });
  later(3600_001);
  expect(health.view()).toMatchObject({ p95Ms: null, callsLastHour: 0, faultsLastHour: 0, rateLimitedLastHour: 0, purchasesLastHour: 0 });
});
