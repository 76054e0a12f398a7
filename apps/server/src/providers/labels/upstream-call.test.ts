// The rules every upstream adapter shares: bounded concurrency, a 429 waited out and counted, what the health hears of
// each call, and the back-off of a fault.
import { describe, expect, it } from 'vitest';
import { LabelProviderError } from './label-provider.ts';
import { UpstreamUnavailable, isRefusedConnection, limiter, retryLater, upstreamCall } from './upstream-call.ts';
import { UpstreamHealth } from './upstream-health.ts';

const httpError = (status: number, retryAfter?: string) => Object.assign(new Error(`answered ${status}`), { status, retryAfter });
const failure = (error: unknown) => {
  const e = error as { status?: number; retryAfter?: string };
  return { status: e.status, retryAfter: e.retryAfter, refusedConnection: isRefusedConnection(error) };
};

describe('upstream calls', () => {
  it('never runs more than `concurrency` calls at once', async () => {
    const limit = limiter(2);
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 6 }, () =>
        limit(async () => {
          most = Math.max(most, ++running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running--;
        }),
      ),
    );
    expect(most).toBe(2);
  });

  it('waits out a 429, reports each to the health, and gives up after three', async () => {
    const health = new UpstreamHealth('test');
    let calls = 0;
    const answer = await upstreamCall({
      limit: limiter(1),
      health,
      failure,
      refusal: (e) => new LabelProviderError(String(e)),
      work: async () => {
        if (++calls === 1) throw httpError(429, '0');
        return 'done';
      },
    });
    expect(answer).toBe('done');
    expect(health.view()).toMatchObject({ rateLimitedLastHour: 1, faultsLastHour: 0, callsLastHour: 1 });

    const stays = upstreamCall({
      limit: limiter(1),
      health,
      failure,
      refusal: (e) => new LabelProviderError(String(e)),
      work: () => Promise.reject(httpError(429, '0')),
    });
    await expect(stays).rejects.toBeInstanceOf(UpstreamUnavailable);
    expect(health.view()).toMatchObject({ rateLimitedLastHour: 4, faultsLastHour: 1 });
  });

  it('a 4xx is an answer refused; a 5xx, a timeout or a refused connection is a fault', async () => {
    const health = new UpstreamHealth('test');
    const run = (error: unknown) =>
      upstreamCall({ limit: limiter(1), health, failure, refusal: (e) => new LabelProviderError((e as Error).message), work: () => Promise.reject(error) });
    await expect(run(httpError(422))).rejects.toBeInstanceOf(LabelProviderError);
    expect(health.view()).toMatchObject({ callsLastHour: 1, faultsLastHour: 0 });
    await expect(run(httpError(503))).rejects.toMatchObject({ neverSent: false });
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    await expect(run(new Error('Unable to make request', { cause: refused }))).rejects.toMatchObject({ neverSent: true });
    expect(health.view()).toMatchObject({ callsLastHour: 3, faultsLastHour: 2, lastError: 'Unable to make request' });
  });

  it('backs off a fault 1 s, 2 s, 4 s..., at least as long as a Retry-After, and says when nothing was sent', () => {
    const fault = new UpstreamUnavailable('down');
    expect(retryLater('shippo', fault)).toEqual({ status: 'processing', providerRef: 'shippo:retry:1', retryInMs: 1000 });
    expect(retryLater('shippo', fault, 'shippo:retry:3')).toEqual({ status: 'processing', providerRef: 'shippo:retry:4', retryInMs: 8000 });
    expect(retryLater('shippo', new UpstreamUnavailable('limited', 20_000), 'shippo:retry:1').retryInMs).toBe(20_000);
    expect(retryLater('shippo', new UpstreamUnavailable('refused', undefined, true))).toMatchObject({ notSold: true });
  });
});
