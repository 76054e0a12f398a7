import { afterAll, describe, expect, it } from 'vitest';
import { PoolFull } from './http-errors.ts';
import { ThreadLost, createWorkerPool, type WorkerPool, type WorkerPoolOptions } from './worker-pool.ts';

describe('a worker pool with limits', () => {
  const pools: WorkerPool<string, string>[] = [];
  const pool = (options: WorkerPoolOptions) => {
    pools.push(createWorkerPool<string, string>(new URL('./worker-pool-test-worker.ts', import.meta.url), 1, 'test pool', options));
    return pools[pools.length - 1];
  };
  afterAll(() => Promise.all(pools.map((p) => p.close())));

  /** Why the task's thread was lost, or null when it was answered. */
  const lost = (p: WorkerPool<string, string>, input: string) =>
    p.run(input).then(
      () => null,
      (error: unknown) => (error instanceof ThreadLost ? error.reason : error),
    );

  it('fails the task of a thread that dies or runs out of heap, and runs the next on a new thread', async () => {
    const p = pool({ heapMb: 32 });
    expect(await p.run('first')).toBe('echo first');
    // A task queued behind the one that kills its thread is run all the same.
    const [exited, after] = await Promise.all([lost(p, 'exit'), p.run('queued')]);
    expect([exited, after]).toEqual(['crash', 'echo queued']);
    expect(await lost(p, 'fill')).toBe('memory');
    expect(await p.run('after the heap')).toBe('echo after the heap');
  }, 30_000);

  it('stops a thread past the time limit and runs the next task on a new thread', async () => {
    const p = pool({ taskMs: 1000 });
    expect(await p.run('first')).toBe('echo first');
    const started = performance.now();
    expect(await lost(p, 'spin')).toBe('timeout');
    // Stopped by its limit, not before it. The pool's timer counts from the event loop's cached time, which may be a
    // little before `started` was read (999.9 ms was seen), so the bound has a margin.
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(await p.run('after the time')).toBe('echo after the time');
  }, 30_000);

  it('keeps at most `queue` tasks waiting: one more is refused with PoolFull (503, Retry-After), those below it are run', async () => {
    const p = pool({ taskMs: 1000, queue: 1 });
    expect(await p.run('first')).toBe('echo first');
    const spinning = lost(p, 'spin');
    const waiting = p.run('waits');
    expect(p.stats()).toEqual({ threads: 1, stopping: 0, queued: 1 });
    const full = await p.run('one too many').catch((error: unknown) => error);
    expect(full).toBeInstanceOf(PoolFull);
    expect(full).toMatchObject({ statusCode: 503, headers: { 'retry-after': '5' } });
    expect(await spinning).toBe('timeout');
    expect(await waiting).toBe('echo waits');
    expect(await p.run('after')).toBe('echo after');
  }, 30_000);

  it('gives a stopped thread’s slot to the next task only once the thread has exited', async () => {
    const p = pool({ taskMs: 500 });
    expect(await p.run('first')).toBe('echo first');
    const spinning = lost(p, 'spin');
    const next = p.run('next');
    expect(await spinning).toBe('timeout');
    // Its task failed at once; the thread is still exiting (its memory not yet given back), and the next task waits.
    expect(p.stats()).toEqual({ threads: 0, stopping: 1, queued: 1 });
    expect(await next).toBe('echo next');
    expect(p.stats()).toEqual({ threads: 1, stopping: 0, queued: 0 });
  }, 30_000);
});
