// The shop as separate processes (`src/server.ts`, `src/worker.ts` under tsx, or the built `dist/server.js`,
// `dist/worker.js`) for tests of several processes or machines, and the calls a browser would make to them.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { solveChallenge } from 'altcha-lib/v1';

const serverDir = path.resolve(import.meta.dirname, '..');

/** Node's flags of the process `npm start` and `npm run worker` run under their supervisor (scripts/supervise.mjs). */
export const BUILT_NODE_FLAGS = ['--max-old-space-size=256'];

/** A built process (see startBuilt): the web process's URL, and a stop as a supervisor's (SIGTERM) that gives its exit code. */
export type BuiltProcess = {
  url: string;
  pid: number;
  stop(): Promise<number | null>;
  /** Its exit code, null while it runs (or when a signal ended it: see signalCode). */
  exitCode(): number | null;
  signalCode(): NodeJS.Signals | null;
  /** The last 100 kB it wrote to stdout (its log). */
  output(): string;
};

/**
 * The environment of a shop process a test starts on its own embedded defaults: PATH and HOME only of this process's
 * (no setting of the test run leaks in), a fresh `dataDir`, 127.0.0.1:`port`, info lines, no web app, labels
 * rendered inline, mail in the outbox; `more` on top.
 */
export const bareShopEnv = (dataDir: string, port: number, more: Record<string, string> = {}): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  DATA_DIR: dataDir,
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  WEB_DIST: path.join(dataDir, 'no-web'),
  LABEL_RENDER_THREADS: '0',
  SMTP_URL: '',
  ...more,
});

/**
 * A shop process (`src/server.ts` under tsx) on the test app's data and database, with the settings a crash test
 * needs (a dead process's job and rows taken again after 2 s), `env` on top; started, pushed to `children`, serving.
 */
export async function startShopChild(
  children: ChildProcess[],
  shop: { dataDir: string; databaseUrl?: string; engine: string; env: Record<string, string> },
): Promise<ChildProcess & { url: string }> {
  const port = await freePort();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: shop.dataDir,
    WEB_DIST: path.join(shop.dataDir, 'no-web'),
    LOG_LEVEL: 'error',
    LABEL_RENDER_THREADS: '0',
    QUEUE_RETRY_DELAY_MS: '200',
    QUEUE_STALLED_INTERVAL_MS: '2000',
    QUEUE_SWEEP_INTERVAL_MS: '1000',
    LABEL_CLAIM_MS: '2000',
    ORDER_POLL_INTERVAL_MS: '200',
    ...shop.env,
  };
  delete env.DATABASE_URL;
  if (shop.databaseUrl) env.DATABASE_URL = shop.databaseUrl;
  if (shop.engine === 'embedded') delete env.REDIS_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: serverDir, env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  await untilServing(child, url, undefined, 90_000);
  return Object.assign(child, { url });
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** Resolves once `child` has exited (at once if it has). */
export const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));

/** Kills each child with SIGKILL and waits until it has exited; the list is left empty. */
export async function killAll(children: ChildProcess[]): Promise<void> {
  for (const child of children.splice(0)) {
    child.kill('SIGKILL');
    await exited(child);
  }
}

/**
 * Polls `check` every `interval` ms until it holds; throws naming `what` after `ms`, or at once the error `check` throws.
 * The one poll of the code the smoke run and the bench share with the tests (vi.waitFor needs a vitest run).
 */
export async function waitUntil(check: () => Promise<boolean> | boolean, ms: number, what: string | (() => string), interval = 10): Promise<void> {
  for (const until = Date.now() + ms; !(await check());) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/** Whether the web process at `url` answers /healthz. */
export const serves = (url: string) =>
  fetch(`${url}/healthz`).then(
    (r) => r.ok,
    () => false,
  );

/** Waits until the web process `child` serves at `url`; fails at once if it exits, with its `output`. */
export const untilServing = (child: ChildProcess, url: string, output: () => string = () => '', ms = 60_000) =>
  waitUntil(
    async () => {
      if (child.exitCode !== null) throw new Error(`the web process exited with ${child.exitCode}:\n${output()}`);
      return serves(url);
    },
    ms,
    () => `${url} to serve:\n${output()}`,
    100,
  );

/** Starts processes and stops every one of them, whatever happened. */
export function processGroup() {
  const children: ChildProcess[] = [];
  return {
    /** Starts `entry` with `env` (on its own port) and, for a web process, waits until it answers; its URL. */
    async start(entry: 'src/server.ts' | 'src/worker.ts', env: Record<string, string>): Promise<string> {
      const port = await freePort();
      const child = spawn(process.execPath, ['--import', 'tsx', entry], {
        cwd: serverDir,
        env: { ...(process.env as Record<string, string>), ...env, PORT: String(port), HOST: '127.0.0.1' },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
      const url = `http://127.0.0.1:${port}`;
      if (entry.endsWith('worker.ts')) return url;
      await untilServing(child, url, undefined, 90_000);
      return url;
    },
    /**
     * Starts the built `entry` (apps/server/dist, from `npm run build`) as `npm start` or `npm run worker` does, with `env`
     * (on its own port), on the Node binary `node` and from the server folder `dir` (this checkout's, or a copy's); resolves
     * once the web process answers or the worker has started.
     */
    async startBuilt(entry: 'server' | 'worker', env: Record<string, string>, { node = process.execPath, dir = serverDir } = {}): Promise<BuiltProcess> {
      const port = await freePort();
      const child = spawn(node, [...BUILT_NODE_FLAGS, `dist/${entry}.js`], {
        cwd: dir,
        // The worker says it has started at level info.
        env: { ...(process.env as Record<string, string>), ...env, PORT: String(port), HOST: '127.0.0.1', ...(entry === 'worker' && { LOG_LEVEL: 'info' }) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(child);
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-100_000)));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const url = `http://127.0.0.1:${port}`;
      const ready =
        entry === 'server'
          ? () =>
              fetch(`${url}/healthz`).then(
                (r) => r.ok,
                () => false,
              )
          : async () => output.includes('"msg":"worker started"');
      await waitUntil(
        async () => {
          if (child.exitCode !== null) throw new Error(`dist/${entry}.js exited with ${child.exitCode}:\n${output}`);
          return ready();
        },
        90_000,
        () => `dist/${entry}.js to start:\n${output}`,
        200,
      );
      return {
        url,
        pid: child.pid!,
        exitCode: () => child.exitCode,
        signalCode: () => child.signalCode,
        output: () => output,
        stop() {
          child.kill('SIGTERM');
          return exited;
        },
      };
    },
    /** Kills every process; with SIGTERM each first finishes the work it has in hand (its exit codes, in order of start). */
    async stopAll(signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL'): Promise<(number | null)[]> {
      const exited = children.map((c) => (c.exitCode !== null || c.signalCode !== null ? c.exitCode : new Promise<number | null>((r) => c.once('exit', r))));
      for (const child of children) child.kill(signal);
      return Promise.all(exited);
    },
  };
}

/** A JSON call to /api/v1 of a running process; throws with the answer unless it is 2xx. */
export async function call(url: string, pathName: string, body?: unknown, token?: string) {
  const response = await fetch(`${url}/api/v1${pathName}`, {
    method: body ? 'POST' : 'GET',
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json();
  if (!response.ok) throw new Error(`${pathName}: ${response.status} ${JSON.stringify(data)}`);
  return data;
}

/** The payload the ALTCHA widget submits for a challenge (GET /captcha/challenge's answer), solved. */
export async function solvedCaptcha(challenge: { challenge: string; salt: string; algorithm: string; maxnumber: number }): Promise<string> {
  const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise;
  if (!solution) throw new Error('captcha not solvable');
  return Buffer.from(JSON.stringify({ ...challenge, number: solution.number })).toString('base64');
}

/** A solved ALTCHA challenge of that process, as the widget submits it. */
export const captcha = async (url: string): Promise<string> => solvedCaptcha(await call(url, '/captcha/challenge'));

/** A multipart form to a running process, as the CSV page sends it. */
export async function postForm(url: string, pathName: string, token: string, fields: Record<string, string>, csv: string) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('csv', new Blob([csv], { type: 'text/csv' }), 'orders.csv');
  const response = await fetch(`${url}/api/v1${pathName}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const data = await response.json();
  if (!response.ok) throw new Error(`${pathName}: ${response.status} ${JSON.stringify(data)}`);
  return data;
}
