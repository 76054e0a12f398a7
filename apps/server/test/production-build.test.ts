// The shop as it is deployed: built, installed without devDependencies, started with `npm start` and
// `npm run worker` on a tree nothing may write into but DATA_DIR.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { buildCheckout, copyCheckout } from './built-tree.ts';
import { testDbKind } from './harness.ts';
import { freePort } from './processes.ts';
import { JOURNEY_ENV, shopJourney } from './shop-journey.ts';

/**
 * Root writes wherever it likes, whatever the modes. Run as root (as CI is), the shop runs as `nobody`: the copy is
 * root's, so nobody can write into it, and DATA_DIR is given to nobody. Run as anyone else, the copy is made
 * read-only (chmod -R a-w) for its owner.
 */
const asRoot = process.getuid?.() === 0;
const NOBODY = asRoot
  ? { uid: Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' })) }
  : null;
/** A command line run as the shop's user. */
const asShopUser = (command: string[]) => (NOBODY ? ['setpriv', `--reuid=${NOBODY.uid}`, `--regid=${NOBODY.gid}`, '--clear-groups', ...command] : command);

let temp: string | undefined;
const started: ChildProcess[] = [];
/** Whether any process of the group `pid` is left. */
const groupLeft = (pid: number) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};
afterAll(async () => {
  // Each npm command leads a process group of its own (npm, its shell, node): whatever is left of it is killed.
  for (const { pid } of started) if (groupLeft(pid!)) process.kill(-pid!, 'SIGKILL');
  try {
    // vi.waitFor, not expect.poll: expect.poll runs only inside a test, not in a hook.
    await vi.waitFor(
      () => {
        if (started.some(({ pid }) => groupLeft(pid!))) throw new Error('a process group left after SIGKILL');
      },
      { timeout: 10_000, interval: 50 },
    );
  } finally {
    // The copy of the shop goes whatever happened above.
    if (temp) {
      if (!asRoot) execFileSync('chmod', ['-R', 'u+w', temp]);
      fs.rmSync(temp, { recursive: true, force: true });
    }
  }
});

/** Starts `npm run <script>` in `tree` as the shop's user; its output is kept. */
function npmRun(tree: string, script: string, env: Record<string, string>) {
  const [command, ...args] = asShopUser(['npm', 'run', '--silent', script]);
  const child = spawn(command, args, { cwd: tree, env: { PATH: process.env.PATH!, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/** Waits for `ready`; a process that exits first is named in the error. */
const waitFor = (what: string, process: ReturnType<typeof npmRun>, ready: () => Promise<boolean> | boolean, timeoutMs = 60_000) =>
  vi.waitFor(
    async () => {
      if (process.child.exitCode !== null) throw new Error(`${what} exited with ${process.child.exitCode}:\n${process.output()}`);
      if (!(await ready())) throw new Error(`${what} not ready in ${timeoutMs} ms:\n${process.output()}`);
    },
    { timeout: timeoutMs, interval: 200 },
  );

/** Stops it as Docker does, SIGTERM to npm alone (the script execs node, so npm's signal reaches it); npm's exit code, node's. */
function stop(process_: ReturnType<typeof npmRun>): Promise<number | null> {
  process_.child.kill('SIGTERM');
  return process_.exited;
}

/** Whether the shop's user can create `file`. */
function canWrite(file: string): boolean {
  const [command, ...args] = asShopUser(['sh', '-c', 'touch "$1" && rm "$1"', 'sh', file]);
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

it.runIf(testDbKind === 'sqlite')(
  'the built shop, installed without devDependencies on a read-only tree with only DATA_DIR writable, serves, takes orders and stops cleanly',
  async () => {
    buildCheckout();
    // A copy of the repository with the builds, and node_modules as `npm ci --omit=dev` leaves it: the packages of this
    // checkout (installed by `npm ci` from the same lockfile; hard links when run as root, so quickly) pruned of
    // everything only devDependencies need. A cold `npm ci` takes minutes; the pruned tree holds the same packages.
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-production-'));
    fs.chmodSync(temp, 0o755);
    const tree = path.join(temp, 'shop');
    copyCheckout(tree, asRoot ? 'link' : 'copy');
    execFileSync('npm', ['prune', '--omit=dev', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: tree, stdio: 'ignore' });
    for (const devOnly of ['vite', 'vitest', 'eslint', 'typescript']) expect(fs.existsSync(path.join(tree, 'node_modules', devOnly)), devOnly).toBe(false);

    const dataDir = path.join(temp, 'data');
    const home = path.join(temp, 'home'); // npm's cache and logs, outside the tree, and TMPDIR (tsx's cache): gone with temp
    fs.mkdirSync(dataDir);
    fs.mkdirSync(home);
    if (NOBODY) for (const dir of [dataDir, home]) fs.chownSync(dir, NOBODY.uid, NOBODY.gid);
    else execFileSync('chmod', ['-R', 'a-w', tree]);
    // The shop's user can write into DATA_DIR and nowhere in the tree (the run-time worker compiler wrote into node_modules/.cache).
    expect([
      canWrite(path.join(dataDir, 'probe')),
      canWrite(path.join(tree, 'probe')),
      canWrite(path.join(tree, 'node_modules/probe')),
      canWrite(path.join(tree, 'apps/server/dist/probe')),
    ]).toEqual([true, false, false, false]);

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      ...JOURNEY_ENV,
      HOME: home,
      TMPDIR: home,
      npm_config_cache: path.join(home, '.npm'),
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
    };
    // The web process queues jobs and the worker runs them (the embedded queue: one worker), each from dist.
    const web = npmRun(tree, 'start', { ...env, QUEUE_RUN_WORKERS: 'false' });
    await waitFor('npm start', web, () =>
      fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    );
    const worker = npmRun(tree, 'worker', env);
    await waitFor('npm run worker', worker, () => worker.output().includes('"msg":"worker started"'));

    await shopJourney(url);

    expect(await stop(worker), worker.output()).toBe(0);
    expect(await stop(web), web.output()).toBe(0);
    const errors = (web.output() + worker.output()).split('\n').filter((line) => /"level":(50|60)/.test(line));
    expect(errors).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'portal.sqlite'))).toBe(true);

    // The CLIs run the TypeScript source through tsx, a dependency: they work on the same tree.
    const outbox = npmRun(tree, 'outbox', env);
    expect(await outbox.exited, outbox.output()).toBe(0);
    expect(outbox.output()).toContain('The outbox is empty.');
  },
  240_000,
);
