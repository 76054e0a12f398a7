// BENCH_SMOKE=1: every benchmark at a tiny size (a few orders, fractions of a second), so a change that breaks one
// is found by test/bench-smoke.test.ts; its figures mean nothing. The processes a benchmark starts inherit it.
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** A benchmark's size: the environment's `name` if set, else `full`, or `tiny` in a smoke. */
export const knob = (name: string, full: number, tiny: number): number => Number(process.env[name] ?? (SMOKE ? tiny : full));

/** A size no environment variable sets: `full`, or `tiny` in a smoke. */
export const sized = (full: number, tiny: number): number => (SMOKE ? tiny : full);
