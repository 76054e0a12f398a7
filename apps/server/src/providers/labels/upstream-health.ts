/**
 * One upstream's health as this process sees it: a circuit breaker over its faults, and the last hour's figures the
 * console shows. A fault (a timeout, a refused connection, a 5xx, a 429 still there after its waits) counts against
 * it; a 4xx does not (the upstream answered: it is the label's problem). After `faultsToOpen` faults in a row the
 * upstream is open (skipped by new purchases and quotes) for a back-off window that doubles with each failed probe up
 * to `maxOpenMs`; when the window ends one call at a time may probe it (half-open), and the first success closes it.
 */
export type BreakerState = 'closed' | 'open' | 'half-open';

export type UpstreamHealthView = {
  name: string;
  state: BreakerState;
  lastError: string | null;
  lastErrorAt: string | null;
  /** While open: when the next call may probe it. */
  probeAt: string | null;
  /** The 95th percentile of the last hour's call times (ms), or null with no call. */
  p95Ms: number | null;
  callsLastHour: number;
  faultsLastHour: number;
  rateLimitedLastHour: number;
  purchasesLastHour: number;
};

const HOUR_MS = 3600_000;
/** At most this many call times are kept for the p95 (the latest). */
const MAX_SAMPLES = 5000;

export type HealthOptions = { faultsToOpen?: number; openMs?: number; maxOpenMs?: number; now?: () => number };

export class UpstreamHealth {
  private faultsInRow = 0;
  private openUntil = 0;
  private openMs: number;
  private probing = false;
  private lastError: { message: string; at: number } | null = null;
  private calls: { at: number; ms: number }[] = [];
  private faults: number[] = [];
  private rateLimits: number[] = [];
  private purchases: number[] = [];
  private readonly faultsToOpen: number;
  private readonly baseOpenMs: number;
  private readonly maxOpenMs: number;
  private readonly now: () => number;

  constructor(
    readonly name: string,
    options: HealthOptions = {},
  ) {
    this.faultsToOpen = options.faultsToOpen ?? 3;
    this.baseOpenMs = options.openMs ?? 10_000;
    this.maxOpenMs = options.maxOpenMs ?? 120_000;
    this.openMs = this.baseOpenMs;
    this.now = options.now ?? Date.now;
  }

  get state(): BreakerState {
    if (this.faultsInRow < this.faultsToOpen) return 'closed';
    return this.now() < this.openUntil ? 'open' : 'half-open';
  }

  /** Whether a new purchase or quote may go to this upstream now: closed, or half-open with no probe under way (this call probes). */
  allow(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.probing) return false;
    this.probing = true;
    return true;
  }

  /** Whether it would be allowed, without taking the probe. */
  get healthy(): boolean {
    return this.state === 'closed' || (this.state === 'half-open' && !this.probing);
  }

  /** A call the upstream answered (a success, or a 4xx refusal). */
  answered(ms: number): void {
    this.calls.push({ at: this.now(), ms });
    this.faultsInRow = 0;
    this.openMs = this.baseOpenMs;
    this.probing = false;
    this.trim();
  }

  /** A call that met a fault. */
  failed(ms: number, message: string): void {
    const at = this.now();
    this.calls.push({ at, ms });
    this.faults.push(at);
    this.lastError = { message: message.slice(0, 300), at };
    const wasProbe = this.probing;
    this.probing = false;
    this.faultsInRow++;
    if (this.faultsInRow >= this.faultsToOpen) {
      if (wasProbe) this.openMs = Math.min(this.maxOpenMs, this.openMs * 2);
      this.openUntil = at + this.openMs;
    }
    this.trim();
  }

  /** A 429 met (waited out or not). */
  rateLimited(): void {
    this.rateLimits.push(this.now());
  }

  purchased(): void {
    this.purchases.push(this.now());
  }

  view(): UpstreamHealthView {
    this.trim();
    const times = this.calls.map((c) => c.ms).sort((a, b) => a - b);
    return {
      name: this.name,
      state: this.state,
      lastError: this.lastError?.message ?? null,
      lastErrorAt: this.lastError ? new Date(this.lastError.at).toISOString() : null,
      probeAt: this.state === 'open' ? new Date(this.openUntil).toISOString() : null,
      p95Ms: times.length ? Math.round(times[Math.min(times.length - 1, Math.ceil(times.length * 0.95) - 1)]) : null,
      callsLastHour: this.calls.length,
      faultsLastHour: this.faults.length,
      rateLimitedLastHour: this.rateLimits.length,
      purchasesLastHour: this.purchases.length,
    };
  }

  private trim(): void {
    const since = this.now() - HOUR_MS;
    const drop = <T>(list: T[], at: (item: T) => number) => {
      let i = 0;
      while (i < list.length && at(list[i]) < since) i++;
      if (i > 0) list.splice(0, i);
    };
    drop(this.calls, (c) => c.at);
    if (this.calls.length > MAX_SAMPLES) this.calls.splice(0, this.calls.length - MAX_SAMPLES);
    drop(this.faults, (t) => t);
    drop(this.rateLimits, (t) => t);
    drop(this.purchases, (t) => t);
  }
}
