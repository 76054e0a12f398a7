import http from 'node:http';

export type OpenLoopResult = {
  rate: number;
  sent: number;
  failed: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Each request's latency in ms by its index; undefined where it failed. */
  byIndex: (number | undefined)[];
};

/** The value at quantile q of values sorted ascending (0 when there are none). */
export const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/**
 * Offers requests at a fixed rate whatever the answers (open loop): request i leaves at start + i/rate on
 * a connection of its own or a free kept-alive one, so a slow answer never delays the next request and
 * the latencies include any queueing in the server. Answers the latency percentiles in ms.
 */
export async function openLoop(options: {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** The same body for every request, or request i's. */
  body?: string | ((i: number) => string);
  rate: number;
  seconds: number;
}): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const target = new URL(options.url);
  const latencies: number[] = [];
  const byIndex: (number | undefined)[] = [];
  let failed = 0;
  const send = (i: number) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const request = http.request(
        { agent, host: target.hostname, port: target.port, path: target.pathname + target.search, method: options.method, headers: options.headers },
        (response) => {
          response.resume();
          response.on('end', () => {
            const latency = performance.now() - started;
            if (response.statusCode !== 200) failed++;
            else byIndex[i] = latency;
            latencies.push(latency);
            resolve();
          });
        },
      );
      request.on('error', () => {
        failed++;
        resolve();
      });
      request.end(typeof options.body === 'function' ? options.body(i) : options.body);
    });
  const total = Math.round(options.rate * options.seconds);
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / options.rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(send(i));
  }
  await Promise.all(inFlight);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    rate: options.rate,
    sent: total,
    failed,
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    p99: percentile(latencies, 0.99),
    max: latencies.at(-1) ?? 0,
    byIndex,
  };
}
