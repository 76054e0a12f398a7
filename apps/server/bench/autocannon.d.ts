// The few parts of autocannon's API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  type Options = {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Requests a second over all connections (a steady rate instead of as fast as possible). */
    overallRate?: number;
  };
  type Histogram = { average: number; mean: number; p50: number; p90: number; p99: number; max: number };
  export type Result = { requests: Histogram; latency: Histogram; non2xx: number; errors: number; timeouts: number; '2xx': number };
  export default function autocannon(options: Options): Promise<Result>;
}
