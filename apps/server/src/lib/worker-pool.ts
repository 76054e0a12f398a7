import crypto from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, parentPort } from 'node:worker_threads';
import { buildSync } from 'esbuild';

/** CPU-heavy work on worker threads, one task per thread at a time, queued in order. */
export interface WorkerPool<Input, Output> {
  run(input: Input): Promise<Output>;
  /** Starts the threads now rather than on the first task (a thread takes about half a second to load). */
  warm(): void;
  /** Takes no new tasks, lets the ones asked for finish (up to 10 s), then stops the threads. */
  close(): Promise<void>;
}

type Reply<Output> = { ok: true; value: Output } | { ok: false; error: string };
type Task<Input, Output> = { input: Input; resolve: (value: Output) => void; reject: (error: Error) => void };

/**
 * Runs `module` on up to `size` threads, started on first use: a TypeScript file that calls
 * serveWorkerTasks (compiled to JavaScript first), or an .mjs entry that prepares the thread and then does. Off the event loop, requests
 * that need no such work do not wait behind it. `name` is what errors call the pool.
 */
export function createWorkerPool<Input, Output>(module: URL, size: number, name: string, options: { idleMs?: number } = {}): WorkerPool<Input, Output> {
  const idle: Worker[] = [];
  const running = new Map<Worker, Task<Input, Output>>();
  const queue: Task<Input, Output>[] = [];
  const alive = new Set<Worker>();
  let closed = false;
  let drained: (() => void) | null = null;

  function spawn(): void {
    const worker = new Worker(module.pathname.endsWith('.mjs') ? module : compiledWorker(module), { execArgv: [] });
    alive.add(worker);
    worker.on('message', (reply: Reply<Output>) => {
      const task = running.get(worker);
      running.delete(worker);
      worker.unref(); // an idle thread does not keep the process alive
      if (reply.ok) task?.resolve(reply.value);
      else task?.reject(new Error(reply.error));
      idle.push(worker);
      stopWhenIdle(worker);
      dispatch();
      if (drained && queue.length === 0 && running.size === 0) drained();
    });
    // A thread that dies fails its task only; the next task starts a new thread.
    const lost = (error: Error) => {
      if (!alive.delete(worker)) return;
      running.get(worker)?.reject(error);
      running.delete(worker);
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      dispatch();
      if (drained && queue.length === 0 && running.size === 0) drained();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`${name} stopped (exit ${code})`)));
    worker.unref();
    idle.push(worker);
  }

  // With idleMs, a thread left without work that long is stopped, giving its memory back.
  const idleTimers = new Map<Worker, NodeJS.Timeout>();
  function stopWhenIdle(worker: Worker): void {
    if (options.idleMs === undefined) return;
    const timer = setTimeout(() => {
      idleTimers.delete(worker);
      const at = idle.indexOf(worker);
      if (at < 0) return;
      idle.splice(at, 1);
      alive.delete(worker);
      void worker.terminate();
    }, options.idleMs);
    timer.unref();
    idleTimers.set(worker, timer);
  }

  function dispatch(): void {
    while (queue.length > 0) {
      if (idle.length === 0 && alive.size < size) spawn();
      const worker = idle.pop();
      if (!worker) return;
      const task = queue.shift()!;
      clearTimeout(idleTimers.get(worker));
      idleTimers.delete(worker);
      running.set(worker, task);
      worker.ref();
      worker.postMessage(task.input);
    }
  }

  return {
    run(input) {
      if (closed) return Promise.reject(new Error(`${name} is closed`));
      return new Promise((resolve, reject) => {
        queue.push({ input, resolve, reject });
        dispatch();
      });
    },
    warm() {
      while (!closed && alive.size < size) spawn();
    },
    async close() {
      closed = true;
      if (queue.length > 0 || running.size > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, 10_000).unref();
        });
      }
      for (const timer of idleTimers.values()) clearTimeout(timer);
      for (const task of queue.splice(0)) task.reject(new Error(`${name} is closed`));
      const all = [...alive];
      alive.clear();
      for (const task of running.values()) task.reject(new Error(`${name} is closed`));
      running.clear();
      await Promise.all(all.map((w) => w.terminate()));
    },
  };
}

/** Where compiled worker modules are kept, beside the server's packages so their imports resolve. */
const COMPILED_DIR = fileURLToPath(new URL('../../node_modules/.cache/portal-workers/', import.meta.url));
const compiled = new Map<string, URL>();

/**
 * A TypeScript worker module as one plain JavaScript file (what it imports from this repository
 * bundled in, packages left as imports), made once per process and kept by its content's hash. A
 * thread then starts without a TypeScript loader of its own, about 25 MB less each.
 */
function compiledWorker(module: URL): URL {
  const known = compiled.get(module.href);
  if (known) return known;
  const packageJson = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
  const { outputFiles } = buildSync({
    entryPoints: [fileURLToPath(module)],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: Object.keys(packageJson.dependencies).filter((name) => !name.startsWith('@portal/')),
  });
  const code = outputFiles[0].contents;
  const file = `${COMPILED_DIR}${module.pathname.split('/').pop()!.replace(/\.ts$/, '')}-${crypto.createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`;
  if (!fs.existsSync(file)) {
    fs.mkdirSync(COMPILED_DIR, { recursive: true });
    // Written whole under another name first: processes starting at once never run half a file.
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, code);
    fs.renameSync(temp, file);
  }
  const url = pathToFileURL(file);
  compiled.set(module.href, url);
  return url;
}

/**
 * The thread side of a pool: answers each input with `work`'s value. `work` may name buffers of its
 * value to move to the caller rather than copy.
 */
export function serveWorkerTasks<Input, Output>(work: (input: Input) => Promise<{ value: Output; transfer?: ArrayBuffer[] }>): void {
  parentPort!.on('message', async (input: Input) => {
    try {
      const { value, transfer } = await work(input);
      parentPort!.postMessage({ ok: true, value } satisfies Reply<Output>, transfer);
    } catch (error) {
      parentPort!.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) } satisfies Reply<Output>);
    }
  });
}
