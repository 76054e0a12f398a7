import { describe, expect, it } from 'vitest';
import { batchedReads } from './batched-reads.ts';

/** A store read through batchedReads, noting the keys of each read it is asked. */
function storeRead(store: Map<string, number>, failNext = { value: false }, gatherMs?: number) {
  const reads: string[][] = [];
  const read = batchedReads(async (keys) => {
    reads.push(keys);
    if (failNext.value) {
      failNext.value = false;
      throw new Error('the database is gone');
    }
    return new Map(keys.filter((k) => store.has(k)).map((k) => [k, store.get(k)!]));
  }, gatherMs);
  return { read, reads };
}

describe('batched reads', () => {
  it('send the keys asked for in one turn as one read, each asked once, and answer every caller its own', async () => {
    const { read, reads } = storeRead(
      new Map([
        ['a', 1],
        ['b', 2],
      ]),
    );
    const answers = await Promise.all([read('a'), read('b'), read('a'), read('missing')]);
    expect(answers).toEqual([1, 2, 1, undefined]);
    expect(reads).toEqual([['a', 'b', 'missing']]);
  });

  it('send a key asked for once a read has gone in a read of its own, which sees a change made after the first was sent', async () => {
    const store = new Map([['a', 1]]);
    const { read, reads } = storeRead(store);
    const first = read('a');
    await new Promise((resolve) => setImmediate(resolve)); // the first read is sent
    store.set('a', 2);
    expect(await Promise.all([first, read('a')])).toEqual([1, 2]);
    expect(reads).toEqual([['a'], ['a']]);
  });

  it('fail every caller of a failed read, and read again for the next', async () => {
    const failNext = { value: true };
    const { read, reads } = storeRead(new Map([['a', 1]]), failNext);
    const failed = await Promise.allSettled([read('a'), read('b')]);
    expect(failed.map((f) => f.status)).toEqual(['rejected', 'rejected']);
    expect(await read('a')).toBe(1);
    expect(reads).toEqual([['a', 'b'], ['a']]);
  });

  it('with gatherMs, send the keys asked for within it of the first as one read, over several turns', async () => {
    const { read, reads } = storeRead(
      new Map([
        ['a', 1],
        ['b', 2],
      ]),
      undefined,
      30,
    );
    const first = read('a');
    await new Promise((resolve) => setImmediate(resolve)); // a turn later, still within the wait
    expect(await Promise.all([first, read('b')])).toEqual([1, 2]);
    expect(reads).toEqual([['a', 'b']]);
  });
});
