// This checkout built and copied elsewhere, to run the built shop apart from the checkout
// (test/production-build.test.ts, `npm run smoke`).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const checkoutRoot = path.resolve(import.meta.dirname, '../../..');
/** Folders of the repository that may hold a node_modules: the root and each workspace. */
const PACKAGE_DIRS = ['.', 'apps/server', 'apps/web', 'packages/contract', 'e2e'];
/** What a checkout has that a copy of the repository leaves out. */
const NOT_COPIED = new Set(['node_modules', '.git', 'data', 'coverage', 'test-results']);

/** The newest modification time of the files under `dir`. */
const newestMtime = (dir: string) =>
  Math.max(
    0,
    ...fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs),
  );

/**
 * Builds the server (apps/server/dist) when it is missing or older than its sources or the contract's. A build
 * empties dist first, so building again what is current would pull the files from under another test's built shop
 * (`npm run test:full` builds before its tests, and runs the files that start the built shop side by side).
 */
export function buildServerIfNeeded(): void {
  const built = path.join(checkoutRoot, 'apps/server/dist/server.js');
  const builtAt = fs.existsSync(built) ? fs.statSync(built).mtimeMs : 0;
  if (['apps/server/src', 'packages/contract/src'].some((dir) => newestMtime(path.join(checkoutRoot, dir)) >= builtAt)) {
    execFileSync(process.execPath, ['apps/server/build.mjs'], { cwd: checkoutRoot, stdio: 'ignore' });
  }
}

/** Builds the server and the web app, each when its sources changed since its last build. */
export function buildCheckout(): void {
  execFileSync(process.execPath, ['scripts/build-web-if-needed.mjs'], { cwd: checkoutRoot, stdio: 'ignore' });
  buildServerIfNeeded();
}

/**
 * Copies the checkout with its builds into `dest` (which must not exist), and its node_modules: as hard links
 * (`link`: quick, but a change to a file in place changes the checkout's too; unlinking and replacing one is
 * safe) or as copies. npm's own record of node_modules is always a copy, as npm rewrites it.
 */
export function copyCheckout(dest: string, modules: 'link' | 'copy'): void {
  fs.cpSync(checkoutRoot, dest, { recursive: true, preserveTimestamps: true, filter: (source) => !NOT_COPIED.has(path.basename(source)) });
  for (const dir of PACKAGE_DIRS) {
    const from = path.join(checkoutRoot, dir, 'node_modules');
    if (fs.existsSync(from)) execFileSync('cp', [modules === 'link' ? '-al' : '-a', from, path.join(dest, dir, 'node_modules')]);
  }
  replaceFile(path.join(dest, 'node_modules/.package-lock.json'), path.join(checkoutRoot, 'node_modules/.package-lock.json'));
}

/** Puts a copy of `source` at `file`, unlinking what is there first (never writing into a hard link). */
function replaceFile(file: string, source: string): void {
  fs.rmSync(file, { force: true });
  fs.copyFileSync(source, file);
}
