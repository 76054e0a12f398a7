import type { CallRate } from '../../lib/call-rate.ts';
import type { LabelPending } from './label-provider.ts';
import type { UpstreamHealth } from './upstream-health.ts';

/**
 * What an upstream adapter shares with the others: bounded concurrency, a 429 waited out as its Retry-After asks,
 * every call reported to the upstream's health, and the back-off of a fault. (easypost.ts still holds its own copies
 * of `limiter` and the 429 loop; they are the same rules and can move here.)
 */

/** What every upstream adapter is made with: its own key, API root, timeout, concurrency, purchase rate and webhook secret. */
export type UpstreamOptions = {
  apiKey: string;
  /** The API root (tests point it at a local fake). */
  apiUrl: string;
  timeoutMs: number;
  /** Calls one process makes at once. */
  concurrency: number;
  /** *_MAX_PER_SECOND: purchases a second, shared by every process (lib/call-rate); none: no limit. */
  rate?: CallRate;
  processingLimitMinutes: number;
  /** How long after a refund is submitted it is asked about again (REFUND_POLL_INTERVAL_MS); webhooks usually tell first. */
  refundPollMs?: number;
  /** Told of every call: its time, and whether it met a fault (the upstream list's breaker and the console's view). */
  health: UpstreamHealth;
  /** The upstream's webhook secret: its webhook refuses every event without it. */
  webhookSecret?: string;
};

/** A fault worth trying again later (timeout, 5xx, network, a 429 still there): the order stays Processing. */
export class UpstreamUnavailable extends Error {
  constructor(
    message: string,
    /** What a 429's Retry-After asked for. */
    readonly retryAfterMs?: number,
    /** The connection was refused: the ask never reached the upstream, so nothing can have been bought. */
    readonly neverSent = false,
  ) {
    super(message);
  }
}

/**
 * At most `concurrency` calls at once in this process; a purchase starts when the shared rate (if any) lets it.
 * `purchaseWaitMs()`: how long a purchase asked now would wait for its turn, by the purchases already waiting.
 */
export function limiter(concurrency: number, rate?: CallRate) {
  let running = 0;
  let awaitingSlot = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    running--;
    queue.shift()?.();
  };
  const limit = async <T>(work: () => Promise<T>, purchase = false): Promise<T> => {
    // A purchase under a rate is paced by it and takes no call slot (at most rate x latency of them are under way): it
    // starts on its turn, not in a burst when slots free, and quotes and label files are not queued behind a saturated
    // purchase rate.
    if (purchase && rate) {
      awaitingSlot++;
      await rate.take().finally(() => awaitingSlot--);
      return work();
    }
    if (running >= concurrency) await new Promise<void>((resolve) => queue.push(resolve));
    running++;
    try {
      return await work();
    } finally {
      release();
    }
  };
  return Object.assign(limit, { purchaseWaitMs: () => (rate ? (awaitingSlot * 1000) / rate.perSecond : 0) });
}

/** How a 429 is waited out in the call that met it before the order is left Processing. */
export const RATE_LIMITED_TRIES = 3;
export const MAX_RETRY_AFTER_MS = 30_000;

/** A Retry-After in seconds as milliseconds (1 s when absent or unreadable; an HTTP date is not used by these upstreams). */
export function retryAfterMs(header: string | null | undefined): number {
  const seconds = Number(header);
  return header != null && header !== '' && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000;
}

/** What an adapter reads of a failed call: its HTTP status (none for a network fault or timeout) and its Retry-After. */
export type CallFailure = { status?: number; retryAfter?: string | null; refusedConnection?: boolean };

/**
 * One upstream call through the limiter, timed and reported to `health`: answered (a success or a 4xx), failed (a
 * timeout, a network error, a 5xx, a 429 still there after its waits), rateLimited for each 429. A 4xx becomes
 * `refusal(error)`; a fault becomes UpstreamUnavailable.
 */
export async function upstreamCall<T>(options: {
  limit: ReturnType<typeof limiter>;
  health: UpstreamHealth;
  work: () => Promise<T>;
  purchase?: boolean;
  failure: (error: unknown) => CallFailure;
  refusal: (error: unknown) => Error;
}): Promise<T> {
  for (let tries = 1; ; tries++) {
    let started = 0;
    try {
      return await options.limit(async () => {
        started = performance.now();
        const answer = await options.work();
        options.health.answered(performance.now() - started);
        return answer;
      }, options.purchase);
    } catch (error) {
      const ms = started ? performance.now() - started : 0;
      const failure = options.failure(error);
      const message = (error as Error)?.message ?? String(error);
      if (failure.status === 429) {
        options.health.rateLimited();
        const waitMs = retryAfterMs(failure.retryAfter);
        if (tries < RATE_LIMITED_TRIES && waitMs <= MAX_RETRY_AFTER_MS) {
          await new Promise((resolve) => setTimeout(resolve, waitMs));
          continue;
        }
        options.health.failed(ms, `rate limited: ${message}`);
        throw new UpstreamUnavailable(message, waitMs);
      }
      if (failure.status !== undefined && failure.status >= 400 && failure.status < 500 && failure.status !== 408) {
        options.health.answered(ms);
        throw options.refusal(error);
      }
      options.health.failed(ms, message);
      throw new UpstreamUnavailable(message, undefined, failure.refusedConnection === true);
    }
  }
}

/** Whether an error (or one of its causes) is a refused connection: the ask never left this machine. */
export function isRefusedConnection(error: unknown): boolean {
  for (let e: any = error, depth = 0; e && depth < 6; e = e.cause, depth++) {
    if (e.code === 'ECONNREFUSED') return true;
    if (Array.isArray(e.errors) && e.errors.some((inner: any) => inner?.code === 'ECONNREFUSED')) return true; // AggregateError (IPv4 and IPv6 both refused)
  }
  return false;
}

/** Why an order is refunded once LABEL_PROCESSING_LIMIT_MINUTES passed with no label. */
export const processingLimitMessage = (minutes: number) => `the label was not made within ${minutes} minutes; the order was refunded`;

/** Retries of an upstream fault back off: 1 s, 2 s, 4 s... at most 5 minutes (the reference counts the tries). */
const RETRY_BASE_MS = 1000;
const RETRY_MAX_MS = 5 * 60_000;

/** The Processing answer of a fault: `<prefix>:retry:<tries>`, asked again after the back-off (or the Retry-After). */
export function retryLater(prefix: string, error: UpstreamUnavailable, providerRef?: string): LabelPending {
  const tries = Number(new RegExp(`^${prefix}:retry:(\\d+)$`).exec(providerRef ?? '')?.[1] ?? 0) + 1;
  return {
    status: 'processing',
    providerRef: `${prefix}:retry:${tries}`,
    retryInMs: Math.max(error.retryAfterMs ?? 0, Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (tries - 1))),
    ...(error.neverSent ? { notSold: true } : {}),
  };
}
