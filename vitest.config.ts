import { defineConfig } from 'vitest/config';

const SERVER_TESTS = ['src/**/*.test.ts', 'test/**/*.test.ts'];
/**
 * The server's files that start processes or threads of their own (the shop, its CLIs, a worker, a copy of the
 * checkout, the slip reader's pool): `npm test` leaves them to `npm run test:full`, which runs every file.
 */
const PROCESS_TESTS = [
  'src/modules/admin/admin-cli.test.ts',
  'src/modules/amazon/amazon.test.ts',
  'src/modules/bulk/bulk-resume.test.ts',
  'src/modules/telegram/telegram-poller.test.ts',
  'test/abuse.test.ts',
  'test/backup.test.ts',
  'test/bench-smoke.test.ts',
  'test/database-outage.test.ts',
  'test/easypost-kill.test.ts',
  'test/event-outbox-kill.test.ts',
  'test/graceful-shutdown.test.ts',
  'test/last-resort.test.ts',
  'test/multi-process.test.ts',
  'test/production-build.test.ts',
  'test/safe-defaults.test.ts',
  'test/several-machines.test.ts',
  'test/slip-bombs.test.ts',
  'test/supervisor.test.ts',
];

/** Server tests: on SQLite always, and again on PostgreSQL when TEST_DATABASE_URL is set. */
const serverProject = (name: string, env: Record<string, string>, files: { include: string[]; exclude?: string[] }, isolate = true) => ({
  test: {
    name,
    root: './apps/server',
    ...files,
    env,
    isolate,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      // The files of `npm test` share their workers' modules (isolate: false), which took them from 97 to 59 s. The
      // others run each in a fresh module graph: some measure their process (the slip reader's memory limit).
      serverProject('sqlite', { TEST_DB: 'sqlite' }, { include: SERVER_TESTS, exclude: PROCESS_TESTS }, false),
      serverProject('sqlite-processes', { TEST_DB: 'sqlite' }, { include: PROCESS_TESTS }),
      ...(process.env.TEST_DATABASE_URL ? [serverProject('postgres', { TEST_DB: 'postgres' }, { include: SERVER_TESTS })] : []),
      // The screens' own helpers and shared components (rendered to markup), in Node; the screens themselves are tested in the browser.
      { test: { name: 'web', root: './apps/web', include: ['src/**/*.test.{ts,tsx}'], testTimeout: 30_000 } },
      { test: { name: 'contract', root: './packages/contract', include: ['src/**/*.test.ts'] } },
      // A browser test polls for the exact state it asserts, for up to 15 s on a busy machine.
      {
        test: {
          name: 'e2e',
          root: './e2e',
          include: ['**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 90_000,
          hookTimeout: 120_000,
          expect: { poll: { timeout: 15_000, interval: 50 } },
        },
      },
    ],
  },
});
