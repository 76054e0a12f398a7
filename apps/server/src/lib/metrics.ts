import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The shop's Prometheus metrics, one registry per process (Prometheus adds the processes up).
 * Counters are bumped where things happen; gauges that describe the whole shop are read at scrape time.
 */
export function createMetrics() {
  const registry = new Registry();
  // Process figures, the event-loop delay among them (nodejs_eventloop_lag_seconds and its percentiles).
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    labels: new Counter({ name: 'labels_total', help: 'Labels made and failed (refunded), by label type', labelNames: ['type', 'outcome'], registers }),
    bulkDuration: new Histogram({
      name: 'bulk_job_duration_seconds',
      help: 'How long bulk order jobs take, from start to all files written',
      buckets: [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers,
    }),
    depositsCredited: new Counter({ name: 'deposits_credited_total', help: 'Deposits credited', registers }),
    depositsCreditedCents: new Counter({ name: 'deposits_credited_cents_total', help: 'Deposit amounts credited, bonus included, in cents', registers }),
    /** Gauges read when scraped: the job queue's counts and the sum of customer balances. */
    readAtScrape(read: { queueCounts: () => Promise<Record<string, number>>; balancesCents: () => Promise<number> }) {
      new Gauge({
        name: 'queue_jobs',
        help: 'Jobs in the queue by state',
        labelNames: ['state'],
        registers,
        async collect() {
          for (const [state, count] of Object.entries(await read.queueCounts())) if (state !== 'total') this.set({ state }, count);
        },
      });
      new Gauge({
        name: 'customer_balances_cents',
        help: 'The sum of all customer balances, in cents (what the shop owes)',
        registers,
        async collect() {
          this.set(await read.balancesCents());
        },
      });
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
