import { Worker } from 'node:worker_threads';
import { PoolFull } from './http-errors.ts';
import type { Reply } from './worker-task.ts';

/**
 * A pool thread's space for new objects (V8's default is 48 MB): a task's garbage is collected sooner. Rendering 5,000
 * labels on 2 threads peaked about 20 MB lower, at the same speed within noise; at 8 MB rendering was ~8% slower.
 */
const THREAD_YOUNG_HEAP_MB = 16;

/** CPU-heavy work on worker threads, queued in order. */
export interface WorkerPool<Input, Output> {
  /** The task's answer; PoolFull at once when `queue` tasks already wait. */
  run(input: Input): Promise<Output>;
  /** Threads working or idle, threads stopped whose exit is awaited (each holds its slot until then), and tasks waiting. */
  stats(): { threads: number; stopping: number; queued: number };
  /** Starts the threads now rather than on the first task (a thread takes about half a second to load). */
  warm(): void;
  /** Takes no new tasks, lets the ones asked for finish (up to 10 s), then stops the threads. */
  close(): Promise<void>;
}

type Task<Input, Output> = { input: Input; resolve: (value: Output) => void; reject: (error: Error) => void; timer?: NodeJS.Timeout };

/** A task's thread was stopped under it: it ran past its time or its memory, or it died. The process goes on; the next task gets a new thread. */
export class ThreadLost extends Error {
  constructor(
    message: string,
    readonly reason: 'timeout' | 'memory' | 'crash',
  ) {
    super(message);
  }
}

export type WorkerPoolOptions = {
  idleMs?: number;
  tasksPerThread?: number;
  /** A thread's heap (V8's old generation) in MB; past it the thread is stopped, never the process. */
  heapMb?: number;
  /** A task not answered within this many ms of its thread starting on it (once loaded) has its thread stopped. */
  taskMs?: number;
  /**
   * While threads work, the process may grow by this many MB over its size when the pool was last idle (no thread
   * working, none stopped and not yet exited), shared by all working threads and including memory outside their heaps
   * (the ArrayBuffers of what they decode); past it, the working threads are stopped.
   */
  growthMb?: number;
  /** How many tasks may wait for a thread (default: no bound); past it, run() fails with PoolFull (a 503). */
  queue?: number;
  /** The Retry-After of that PoolFull, in seconds (default 5). */
  retryAfterSeconds?: number;
  /**
   * Run from source (a .ts module), packages the thread imports before tsx is registered, so that they load as
   * plain JavaScript rather than through tsx's loader (see ts-thread.mjs). The built threads import them natively anyway.
   */
  preload?: string[];
};

/** How often the process's size is looked at while a thread with growthMb works. */
const GROWTH_CHECK_MS = 20;

/**
 * The module of a pool's threads, `name` beside `parent` (the caller's import.meta.url): in the built server
 * (apps/server/dist, one flat folder of JavaScript) the bundle `name.js`, and run from source under tsx
 * (tests, `npm run dev`, the CLIs) the TypeScript file `name.ts`.
 */
export function workerModule(name: string, parent: string): URL {
  return new URL(`./${name}${parent.endsWith('.ts') ? '.ts' : '.js'}`, parent);
}

/** Where a thread whose module is TypeScript starts: it registers tsx in the thread, then imports the module. */
const TS_THREAD = new URL('./ts-thread.mjs', import.meta.url);

/**
 * Runs `module` (see workerModule), a file that calls serveWorkerTasks, on up to `size` threads, started on first use. Off the event loop, requests
 * that need no such work do not wait behind it. `name` is what errors call the pool.
 *
 * tasksPerThread: how many tasks a thread is given at once. With 2, a thread has its next task at hand
 * when it answers one, and keeps working while this thread is busy with something else (short tasks
 * that are many, like labels); with 1, a thread holds one task's memory at a time (large ones).
 * heapMb, taskMs and growthMb bound what one task may take: a thread past them is stopped and its tasks
 * fail with ThreadLost, as do those of a thread that dies. A stopped thread keeps its slot until it has exited, so the
 * pool never holds more than `size` threads' memory, and the next task's thread starts once the memory is given back.
 * See ARCHITECTURE.md#render-pool.
 */
export function createWorkerPool<Input, Output>(module: URL, size: number, name: string, options: WorkerPoolOptions = {}): WorkerPool<Input, Output> {
  const tasksPerThread = options.tasksPerThread ?? 1;
  /** Each live thread and the tasks it was given, by id. */
  const threads = new Map<Worker, Map<number, Task<Input, Output>>>();
  /** Threads stopped (or dying, or stopped when idle) that have not exited yet. */
  const stopping = new Set<Worker>();
  const queue: Task<Input, Output>[] = [];
  let nextId = 0;
  let closed = false;
  let drained: (() => void) | null = null;
  const given = () => [...threads.values()].reduce((n, tasks) => n + tasks.size, 0);
  const checkDrained = () => {
    if (drained && queue.length === 0 && given() === 0) drained();
  };

  function spawn(): void {
    const resourceLimits = { maxYoungGenerationSizeMb: THREAD_YOUNG_HEAP_MB, ...(options.heapMb && { maxOldGenerationSizeMb: options.heapMb }) };
    const typescript = module.pathname.endsWith('.ts');
    const worker = new Worker(typescript ? TS_THREAD : module, {
      argv: typescript ? [module.href, ...(options.preload ?? [])] : [],
      execArgv: [],
      resourceLimits,
    });
    const tasks = new Map<number, Task<Input, Output>>();
    threads.set(worker, tasks);
    worker.on('message', (reply: Reply<Output>) => {
      if ('ready' in reply) {
        // A thread takes a second or more to load: its tasks' time runs from now.
        ready.add(worker);
        for (const task of tasks.values()) startTimer(worker, task);
        return;
      }
      const task = tasks.get(reply.id);
      tasks.delete(reply.id);
      clearTimeout(task?.timer);
      if (tasks.size === 0) {
        worker.unref(); // an idle thread does not keep the process alive
        stopWhenIdle(worker);
      }
      if (reply.ok) task?.resolve(reply.value);
      else task?.reject(new Error(reply.error));
      dispatch();
      checkDrained();
    });
    // A thread that dies (out of memory: V8 stops the thread alone when it has heap limits) fails its tasks only.
    worker.on('error', (error: Error & { code?: string }) =>
      stop(worker, new ThreadLost(`${name} stopped: ${error.message}`, error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : 'crash')),
    );
    // Its memory is given back now: only then may another thread take its slot.
    worker.on('exit', (code) => {
      stopping.delete(worker);
      lose(worker, new ThreadLost(`${name} stopped (exit ${code})`, 'crash'));
      dispatch();
      checkDrained();
    });
    worker.unref();
  }

  /** Fails the tasks of a thread that is gone or being stopped; the next task starts a new thread. */
  function lose(worker: Worker, error: ThreadLost): void {
    const tasks = threads.get(worker);
    if (!tasks || !threads.delete(worker)) return;
    ready.delete(worker);
    for (const task of tasks.values()) {
      clearTimeout(task.timer);
      task.reject(error);
    }
    tasks.clear();
    dispatch();
    checkDrained();
  }

  /** Threads that have loaded; a task's time starts once its thread has. */
  const ready = new Set<Worker>();
  function startTimer(worker: Worker, task: Task<Input, Output>): void {
    if (!options.taskMs) return;
    task.timer = setTimeout(() => stop(worker, new ThreadLost(`${name} took over ${options.taskMs} ms`, 'timeout')), options.taskMs);
    task.timer.unref();
  }

  /** Stops a thread that went past a bound or died: its tasks fail at once, whatever it is doing; its slot stays taken until it exits. */
  function stop(worker: Worker, error: ThreadLost): void {
    if (!threads.has(worker)) return;
    stopping.add(worker);
    lose(worker, error);
    void worker.terminate();
  }

  // With growthMb, the process's size when the pool was last idle, looked at while any thread works.
  let idleRss = 0;
  let growthTimer: NodeJS.Timeout | undefined;
  const working = () => [...threads].filter(([, tasks]) => tasks.size > 0).map(([worker]) => worker);
  function watchGrowth(): void {
    if (!options.growthMb || growthTimer) return;
    growthTimer = setInterval(() => {
      const busy = working();
      if (busy.length === 0) {
        clearInterval(growthTimer);
        growthTimer = undefined;
        return;
      }
      // Which thread grew is not known: each working one is stopped.
      if (process.memoryUsage.rss() - idleRss > options.growthMb! * 2 ** 20) {
        for (const worker of busy) stop(worker, new ThreadLost(`${name} went past ${options.growthMb} MB`, 'memory'));
      }
    }, GROWTH_CHECK_MS);
    growthTimer.unref();
  }

  // With idleMs, a thread left without work that long is stopped, giving its memory back.
  const idleTimers = new Map<Worker, NodeJS.Timeout>();
  function stopWhenIdle(worker: Worker): void {
    if (options.idleMs === undefined) return;
    const timer = setTimeout(() => {
      idleTimers.delete(worker);
      if (threads.get(worker)?.size !== 0) return;
      threads.delete(worker);
      ready.delete(worker);
      stopping.add(worker);
      void worker.terminate();
    }, options.idleMs);
    timer.unref();
    idleTimers.set(worker, timer);
  }

  /** The thread with the fewest tasks, if it can take another; a new thread rather than a second task for a busy one. */
  function leastBusy(): Worker | undefined {
    let best: Worker | undefined;
    for (const [worker, tasks] of threads) if (tasks.size < tasksPerThread && (!best || tasks.size < threads.get(best)!.size)) best = worker;
    if ((!best || threads.get(best)!.size > 0) && threads.size + stopping.size < size) {
      spawn();
      return leastBusy();
    }
    return best;
  }

  function dispatch(): void {
    while (queue.length > 0) {
      // The pool idle (a thread waiting for work holds no task's memory): the size its threads' growth is measured from.
      if (options.growthMb && stopping.size === 0 && given() === 0) idleRss = process.memoryUsage.rss();
      const worker = leastBusy();
      if (!worker) return;
      const task = queue.shift()!;
      const tasks = threads.get(worker)!;
      if (tasks.size === 0) {
        clearTimeout(idleTimers.get(worker));
        idleTimers.delete(worker);
        worker.ref();
        watchGrowth();
      }
      const id = nextId++;
      tasks.set(id, task);
      if (ready.has(worker)) startTimer(worker, task);
      worker.postMessage({ id, input: task.input });
    }
  }

  return {
    run(input) {
      if (closed) return Promise.reject(new Error(`${name} is closed`));
      if (queue.length >= (options.queue ?? Infinity)) return Promise.reject(new PoolFull(name, options.retryAfterSeconds ?? 5));
      return new Promise((resolve, reject) => {
        queue.push({ input, resolve, reject });
        dispatch();
      });
    },
    stats: () => ({ threads: threads.size, stopping: stopping.size, queued: queue.length }),
    warm() {
      while (!closed && threads.size + stopping.size < size) spawn();
    },
    async close() {
      closed = true;
      if (queue.length > 0 || given() > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, 10_000).unref();
        });
      }
      for (const timer of idleTimers.values()) clearTimeout(timer);
      clearInterval(growthTimer);
      ready.clear();
      for (const task of queue.splice(0)) task.reject(new Error(`${name} is closed`));
      const all = [...threads];
      threads.clear();
      for (const [, tasks] of all) {
        for (const task of tasks.values()) {
          clearTimeout(task.timer);
          task.reject(new Error(`${name} is closed`));
        }
      }
      await Promise.all([...all.map(([worker]) => worker), ...stopping].map((worker) => worker.terminate()));
    },
  };
}
