import { afterAll, describe, expect, it } from 'vitest';
import { ThreadLost, createWorkerPool, type WorkerPool } from './worker-pool.ts';

describe('a worker pool with limits', () => {
  const pools: WorkerPool<string, string>[] = [];
  const pool = (options: { heapMb?: number; taskMs?: number }) => {
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
});
