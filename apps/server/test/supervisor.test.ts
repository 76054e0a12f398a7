// `npm start` and `npm run worker` run the built entry under scripts/supervise.mjs: a child killed is started again
// (with back-off), and SIGTERM to the supervisor stops the child gracefully with nothing started again.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { testDbKind } from './harness.ts';
import { bareShopEnv, exited, freePort, killAll, serves } from './processes.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const children: ChildProcess[] = [];
const dirs: string[] = [];
const childPids: number[] = [];
afterAll(async () => {
  await killAll(children);
  // A child left by a failed test (the supervisor was SIGKILLed above, its child was not).
  for (const pid of childPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** `node scripts/supervise.mjs <entry>` (what `npm start` / `npm run worker` exec) on a fresh DATA_DIR; its log lines and its children's pids. */
async function supervise(entry: 'server' | 'worker', env: Record<string, string> = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-supervisor-'));
  dirs.push(dataDir);
  const port = await freePort();
  const supervisor = spawn(process.execPath, ['scripts/supervise.mjs', entry], {
    cwd: root,
    env: bareShopEnv(dataDir, port, env),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(supervisor);
  let output = '';
  supervisor.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const lines = () =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; childPid?: number; supervisor?: string; restartInMs?: number; signal?: string });
  const ownLines = () => lines().filter((line) => line.supervisor === entry);
  const pids = () => ownLines().flatMap((line) => (line.childPid ? [line.childPid] : []));
  const code = new Promise<number | null>((resolve) => supervisor.once('exit', (exitCode) => resolve(exitCode)));
  return { supervisor, url: `http://127.0.0.1:${port}`, output: () => output, lines, ownLines, pids, code };
}

it.runIf(testDbKind === 'sqlite' && fs.existsSync(path.join(root, 'apps/server/dist/server.js')))(
  'npm start: a web process killed (kill -9) is started again, 1 s then 2 s later, and serves; SIGTERM to the supervisor stops it gracefully with no restart',
  async () => {
    const shop = await supervise('server');
    await expect.poll(() => serves(shop.url), { timeout: 60_000, interval: 10, message: `the supervised server to serve:\n${shop.output()}` }).toBe(true);
    const [first] = shop.pids();
    expect(first).toBeGreaterThan(0);

    const timings: number[] = [];
    for (const [n, delay] of [
      [1, 1000],
      [2, 2000],
    ]) {
      const killed = shop.pids().at(-1)!;
      const at = performance.now();
      process.kill(killed, 'SIGKILL');
      await expect
        .poll(() => shop.pids().length === n + 1, { timeout: 30_000, interval: 10, message: `a new server after kill -9:\n${shop.output()}` })
        .toBe(true);
      await expect.poll(() => serves(shop.url), { timeout: 60_000, interval: 10, message: `the new server to serve:\n${shop.output()}` }).toBe(true);
      timings.push(Math.round(performance.now() - at));
      expect(isAlive(killed)).toBe(false);
      expect(shop.ownLines().find((line) => line.msg.startsWith('the server exited (signal SIGKILL)') && line.restartInMs === delay)).toBeDefined();
    }
    childPids.push(...shop.pids());
    expect(timings[0]).toBeGreaterThanOrEqual(1000);
    expect(timings[1]).toBeGreaterThanOrEqual(2000);

    // SIGTERM: the child shuts down gracefully (its own log says so), the supervisor exits with its code, 0.
    const last = shop.pids().at(-1)!;
    shop.supervisor.kill('SIGTERM');
    expect(await shop.code, shop.output()).toBe(0);
    expect(isAlive(last)).toBe(false);
    expect(shop.lines().filter((line) => line.msg === 'shutting down')).toHaveLength(1);
    expect(shop.ownLines().map((line) => line.msg)).toEqual([
      'started the server',
      'the server exited (signal SIGKILL); starting it again in 1 s',
      'started the server',
      'the server exited (signal SIGKILL); starting it again in 2 s',
      'started the server',
      'SIGTERM: stopping the server',
      'the server stopped (code 0)',
    ]);
    console.log(`serving again after kill -9: ${timings.join(' ms, ')} ms`);
  },
  120_000,
);

it.runIf(testDbKind === 'sqlite' && fs.existsSync(path.join(root, 'apps/server/dist/worker.js')))(
  'npm run worker: a worker killed is started again; SIGINT to the supervisor (and to the worker, as Ctrl-C sends it to both) stops it once, gracefully',
  async () => {
    const worker = await supervise('worker');
    const started = () => worker.lines().filter((line) => line.msg === 'worker started').length;
    await expect.poll(() => started() === 1, { timeout: 60_000, interval: 10, message: `the supervised worker to start:\n${worker.output()}` }).toBe(true);
    process.kill(worker.pids()[0], 'SIGKILL');
    await expect.poll(() => started() === 2, { timeout: 30_000, interval: 10, message: `the worker started again:\n${worker.output()}` }).toBe(true);
    childPids.push(...worker.pids());

    const last = worker.pids().at(-1)!;
    process.kill(last, 'SIGINT');
    worker.supervisor.kill('SIGINT');
    expect(await worker.code, worker.output()).toBe(0);
    expect(isAlive(last)).toBe(false);
    // The worker heard SIGINT once or twice (the second may come after it ended), and was not ended by the second.
    expect(worker.lines().filter((line) => line.msg === 'worker stopping').length).toBeGreaterThanOrEqual(1);
    expect(worker.ownLines().filter((line) => line.msg === 'started the worker')).toHaveLength(2);
    expect(worker.ownLines().at(-1)!.msg).toBe('the worker stopped (code 0)');
    await exited(worker.supervisor);
  },
  120_000,
);

it.runIf(testDbKind === 'sqlite' && fs.existsSync(path.join(root, 'apps/server/dist/server.js')))(
  'npm start: a server stopped by its configuration is not started again; the supervisor exits with its code, 78',
  async () => {
    const shop = await supervise('server', { PORT: 'not-a-port' });
    expect(await shop.code, shop.output()).toBe(78);
    expect(shop.ownLines().map((line) => line.msg)).toEqual([
      'started the server',
      'the server stopped: its configuration is not valid (see above); fix it and start again',
    ]);
  },
  60_000,
);
