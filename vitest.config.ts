import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const SERVER_TESTS = ['src/**/*.test.ts', 'test/**/*.test.ts'];
/**
 * The server's files that start processes or threads of their own (the shop, its CLIs, a worker, a copy of the
 * checkout, the slip reader's pool), and the long chaos run of a 1,000-row order (upstreams-chaos): `npm test` leaves them to
 * `npm run test:full`, which runs every file.
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
  'test/deploy-caddy.test.ts',
  'test/deploy-compose.test.ts',
  'test/deploy-image.test.ts',
  'test/deploy-systemd.test.ts',
  'test/easypost-kill.test.ts',
  'test/upstreams-kill.test.ts',
  'test/upstreams-chaos.test.ts',
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

/**
 * The slowest server test files of a CI run (`npm run test:full` on 03e0771, 2026-11-29: its seconds beside each), slowest first.
 * They start first: a fresh clone has no timings of its own, and vitest then starts the largest files first, project by
 * project, which left a 135 s file starting when nearly all else was done.
 */
const SLOWEST_FIRST = [
  'sqlite-processes:test/bench-smoke.test.ts', // 134 s
  'postgres:test/abuse.test.ts', // 91 s
  'sqlite-processes:test/abuse.test.ts', // 73 s
  'postgres:test/bench-smoke.test.ts', // 71 s
  'postgres:test/easypost.test.ts', // 68 s
  'sqlite:test/easypost.test.ts', // 66 s
  'postgres:src/modules/bulk/bulk-queue.test.ts', // 66 s
  'postgres:test/event-outbox-kill.test.ts', // 65 s
  'postgres:src/modules/bulk/bulk-resume.test.ts', // 61 s
  'postgres:src/modules/amazon/amazon.test.ts', // 58 s
  'sqlite-processes:src/modules/amazon/amazon.test.ts', // 57 s
  'postgres:test/easypost-kill.test.ts', // 55 s
  'sqlite-processes:test/database-outage.test.ts', // 51 s
  'sqlite-processes:src/modules/bulk/bulk-resume.test.ts', // 49 s
  'postgres:test/upstreams-kill.test.ts', // 46 s
  'postgres:test/upstreams.test.ts', // 42 s
  'sqlite:src/modules/bulk/bulk-queue.test.ts', // 38 s
  'sqlite-processes:test/event-outbox-kill.test.ts', // 38 s
  'postgres:test/rate-limit.test.ts', // 37 s
  'postgres:src/modules/reseller/webhooks.test.ts', // 35 s
  'sqlite:test/upstreams.test.ts', // 34 s
  'sqlite:test/rate-limit.test.ts', // 33 s
  'sqlite-processes:test/production-build.test.ts', // 30 s
  'postgres:test/safe-defaults.test.ts', // 30 s
  'postgres:test/multi-process.test.ts', // 30 s
];

/** Vitest's order (failed, then slowest of the last local run, then largest), with the files above before all others. */
class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const index = SLOWEST_FIRST.indexOf(`${spec.project.name}:${path.relative(spec.project.config.root, spec.moduleId)}`);
      return index === -1 ? SLOWEST_FIRST.length : index;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

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
    sequence: { sequencer: SlowestFirst },
    projects: [
      // The files of `npm test` share their workers' modules (isolate: false), which took them from 97 to 59 s. The
      // others run each in a fresh module graph: some measure their process (the slip reader's memory limit).
      serverProject('sqlite', { TEST_DB: 'sqlite' }, { include: SERVER_TESTS, exclude: PROCESS_TESTS }, false),
      serverProject('sqlite-processes', { TEST_DB: 'sqlite' }, { include: PROCESS_TESTS }),
      ...(process.env.TEST_DATABASE_URL ? [serverProject('postgres', { TEST_DB: 'postgres' }, { include: SERVER_TESTS })] : []),
      // The screens' own helpers and shared components (rendered to markup), in Node; the screens themselves are tested in the browser.
      { test: { name: 'web', root: './apps/web', include: ['src/**/*.test.{ts,tsx}'], testTimeout: 30_000 } },
      { test: { name: 'contract', root: './packages/contract', include: ['src/**/*.test.ts'] } },
      // A browser test polls for the exact state it asserts, for up to 15 s on a busy machine. One file at a time: each
      // starts a shop and a browser, and the server's tests beside them have timeouts of their own.
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
