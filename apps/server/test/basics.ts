// What any test or fixture may use without loading the app (the smoke run and the bench load fixtures too).

/**
 * The patience of vi.waitFor and expect.poll in these tests, for what a queue, a webhook or another process does
 * (vitest's own default is 1 s): pass it, or spread it with a longer timeout.
 */
export const WAIT = { timeout: 15_000, interval: 25 };

// This worker (VITEST_POOL_ID: workers may share a process) in this process, which started then: no two workers or
// processes running at once share it, nor a later one given the same pid (the Redis and PostgreSQL a run leaves keys
// or schemas in after a crash outlive it).
const runTag = `${process.env.VITEST_POOL_ID ?? 0}_${process.pid.toString(36)}_${Date.now().toString(36)}`;
let counter = 0;

/** An id no other call in any test process makes: `prefix`, this worker and process, and a counter (letters, digits, _). */
export const uniqueId = (prefix: string) => `${prefix}_${runTag}_${(++counter).toString(36)}`;
