import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { testDbKind } from './harness.ts';
import { bareShopEnv, freePort, untilServing } from './processes.ts';

// A real entry point, with a preload that leaves an error nobody handles (test/unhandled-error-preload.ts).
const serverDir = path.resolve(import.meta.dirname, '..');
let dataDir = '';
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
  }
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

function start(entry: 'src/server.ts' | 'src/worker.ts', port: number) {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-last-resort-'));
  const proc = spawn(process.execPath, ['--import', 'tsx', '--import', './test/unhandled-error-preload.ts', entry], {
    cwd: serverDir,
    env: bareShopEnv(dataDir, port),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child = proc;
  const out = { text: '' };
  proc.stdout!.on('data', (chunk: Buffer) => (out.text += chunk.toString()));
  const lines = () =>
    out.text
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, any>);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, out, lines, exited };
}

it.runIf(testDbKind === 'sqlite')(
  'an unhandled rejection in a request is logged with its reqId, and the web process closes and exits 1',
  async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const { out, lines, exited } = start('src/server.ts', port);
    await untilServing(child!, url, () => out.text);

    // The request itself is answered: the process closes gracefully, as on SIGTERM.
    expect((await fetch(`${url}/healthz?unhandled`)).status).toBe(200);
    expect(await exited, out.text).toBe(1);
    // Closed on its own, not ended by the timer that forces exit 1 after its grace (server.ts).
    expect(lines().map((line) => line.msg)).toContain('closed');
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();

    const request = lines().find((line) => line.req?.url?.startsWith('/healthz?unhandled'));
    const fatal = lines().filter((line) => line.level === 50);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toMatchObject({
      msg: 'unhandled rejection, stopping',
      reqId: request!.reqId,
      err: { message: 'test: a promise nobody awaited', stack: expect.any(String) },
    });
  },
  90_000,
);

it.runIf(testDbKind === 'sqlite')(
  'an uncaught exception in the worker is logged, and the worker closes and exits 1',
  async () => {
    const { proc, out, lines, exited } = start('src/worker.ts', await freePort());
    await expect.poll(() => out.text.includes('worker started'), { timeout: 60_000 }).toBe(true);
    proc.kill('SIGUSR2');
    expect(await exited, out.text).toBe(1);
    // Closed on its own, not ended by the timer that forces exit 1 after its grace (worker.ts).
    expect(lines().map((line) => line.msg)).toContain('closed');
    const fatal = lines().filter((line) => line.level === 50);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toMatchObject({ msg: 'uncaught exception, stopping', err: { message: 'test: an exception nobody caught' } });
    expect(fatal[0].jobId).toBeUndefined();
  },
  90_000,
);
