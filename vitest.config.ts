import { defineConfig } from 'vitest/config';

/** The server's tests run on SQLite always, and again on PostgreSQL when TEST_DATABASE_URL is set. */
const serverProject = (name: string, env: Record<string, string>) => ({
  test: {
    name,
    root: './apps/server',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    env,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      serverProject('sqlite', { TEST_DB: 'sqlite' }),
      ...(process.env.TEST_DATABASE_URL ? [serverProject('postgres', { TEST_DB: 'postgres' })] : []),
      // The screens' own helpers, in Node (the screens themselves are tested in the browser).
      { test: { name: 'web', root: './apps/web', include: ['src/**/*.test.ts'], testTimeout: 30_000 } },
      // A browser test polls for the exact state it asserts, for up to 15 s on a busy machine.
      { test: { name: 'e2e', root: './e2e', include: ['**/*.test.ts'], fileParallelism: false, testTimeout: 90_000, hookTimeout: 120_000, expect: { poll: { timeout: 15_000, interval: 50 } } } },
    ],
  },
});
