import { Worker } from 'node:worker_threads';
import type { LabelRequest } from './label-provider.ts';
import { renderLabel } from './render-label.ts';
import { trackingNumberFor } from './tracking-numbers.ts';

export type RenderedLabel = { tracking: string; pdf: Uint8Array };

/** Turns a label request into its tracking number and PDF. */
export interface LabelRenderer {
  render(request: LabelRequest): Promise<RenderedLabel>;
  /** Starts what rendering needs now rather than on the first label. */
  warm(): void;
  close(): Promise<void>;
}

/** Renders on the calling thread. */
export const inlineRenderer = (): LabelRenderer => ({
  async render(request) {
    const tracking = trackingNumberFor(request.uid, request.orderId, request.to.zip);
    return { tracking: tracking.tracking, pdf: await renderLabel(request, tracking) };
  },
  warm() {},
  async close() {},
});

type Task = { request: LabelRequest; resolve: (label: RenderedLabel) => void; reject: (error: Error) => void };

/**
 * Renders on `size` worker threads, started on first use. A label costs a few milliseconds of CPU;
 * off the event loop, requests that render nothing (order lists, prices) do not wait behind it, and
 * a machine with spare cores renders in parallel.
 */
export function createRenderPool(size: number): LabelRenderer {
  const idle: Worker[] = [];
  const running = new Map<Worker, Task>();
  const queue: Task[] = [];
  const alive = new Set<Worker>();
  let closed = false;
  let drained: (() => void) | null = null;

  function spawn(): void {
    const worker = new Worker(new URL('./render-worker-entry.mjs', import.meta.url), { execArgv: [] });
    alive.add(worker);
    worker.on('message', (message: { ok: true; tracking: string; pdf: Uint8Array } | { ok: false; error: string }) => {
      const task = running.get(worker);
      running.delete(worker);
      worker.unref(); // an idle thread does not keep the process alive
      if (message.ok) task?.resolve({ tracking: message.tracking, pdf: message.pdf });
      else task?.reject(new Error(message.error));
      idle.push(worker);
      dispatch();
      if (drained && queue.length === 0 && running.size === 0) drained();
    });
    // A thread that dies fails its label only; the next render starts a new thread.
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
    worker.on('exit', (code) => lost(new Error(`label renderer stopped (exit ${code})`)));
    worker.unref();
    idle.push(worker);
  }

  function dispatch(): void {
    while (queue.length > 0) {
      if (idle.length === 0 && alive.size < size) spawn();
      const worker = idle.pop();
      if (!worker) return;
      const task = queue.shift()!;
      running.set(worker, task);
      worker.ref();
      worker.postMessage(task.request);
    }
  }

  return {
    render(request) {
      if (closed) return Promise.reject(new Error('label renderer is closed'));
      return new Promise((resolve, reject) => {
        queue.push({ request, resolve, reject });
        dispatch();
      });
    },
    // A thread takes about half a second to load; a server starts them before its first order.
    warm() {
      while (!closed && alive.size < size) spawn();
    },
    /** Takes no new labels, lets the ones asked for finish (up to 10 s), then stops the threads. */
    async close() {
      closed = true;
      if (queue.length > 0 || running.size > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, 10_000).unref();
        });
      }
      for (const task of queue.splice(0)) task.reject(new Error('label renderer is closed'));
      const all = [...alive];
      alive.clear();
      for (const task of running.values()) task.reject(new Error('label renderer is closed'));
      running.clear();
      await Promise.all(all.map((w) => w.terminate()));
    },
  };
}
