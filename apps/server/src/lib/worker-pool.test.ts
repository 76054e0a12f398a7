import { afterAll, describe, expect, it } from 'vitest';
import { ThreadLost, createWorkerPool } from './worker-pool.ts';

describe('a worker pool with limits', () => {
  const pool = createWorkerPool<string, string>(new URL('./worker-pool-test-worker.ts', import.meta.url), 1, 'test pool', { heapMb: 32, taskMs: 1000 });
  afterAll(() => pool.close());

  const lost = (input: string) => pool.run(input).then(() => null, (error: unknown) => (error instanceof ThreadLost ? error.reason : error));

  it('fails the task of a thread that dies, runs out of heap or overruns its time, and runs the next on a new thread', async () => {
    expect(await pool.run('first')).toBe('echo first');
    // A task queued behind the one that kills its thread is run all the same.
    const [exited, after] = await Promise.all([lost('exit'), pool.run('queued')]);
    expect([exited, after]).toEqual(['crash', 'echo queued']);
    expect(await lost('fill')).toBe('memory');
    expect(await pool.run('after the heap')).toBe('echo after the heap');
    const started = performance.now();
    expect(await lost('spin')).toBe('timeout');
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(await pool.run('after the time')).toBe('echo after the time');
  }, 30_000);
});
