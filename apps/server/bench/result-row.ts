import type { Result } from 'autocannon';
import { SMOKE } from './smoke.ts';

/** One line of an HTTP benchmark: req/s, p50, p99, failed requests, and the rate as a share of another run's (`against`). */
export function resultRow(name: string, r: Result, width: number, against?: { result: Result; what: string }): string {
  const bad = r.non2xx + r.errors + r.timeouts;
  // A smoke's figures mean nothing, but a failed request is the kind of break it is there to find.
  if (SMOKE && bad) throw new Error(`${name.trim()}: ${bad} requests failed (${r.non2xx} not 2xx, ${r.errors} errors, ${r.timeouts} timeouts)`);
  const ratio = against ? `  ${((r.requests.average / against.result.requests.average) * 100).toFixed(1)}% of ${against.what} req/s` : '';
  return `  ${name.padEnd(width)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(3)} ms   p99 ${String(r.latency.p99).padStart(4)} ms${bad ? `   (${bad} failed)` : ''}${ratio}`;
}
