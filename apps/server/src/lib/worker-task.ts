// The thread side of a worker pool (worker-pool.ts), apart from the pool so that a thread loads nothing of the server.
import { parentPort } from 'node:worker_threads';

/** What a thread posts: it is ready (once, when it has loaded), or a task's answer. */
export type Reply<Output> = { ready: true } | { id: number; ok: true; value: Output } | { id: number; ok: false; error: string };

/**
 * The thread side of a pool: answers each input with `work`'s value. `work` may name buffers of its
 * value to move to the caller rather than copy.
 */
export function serveWorkerTasks<Input, Output>(work: (input: Input) => Promise<{ value: Output; transfer?: ArrayBuffer[] }>): void {
  const answer = async (id: number, input: Input) => {
    try {
      const { value, transfer } = await work(input);
      parentPort!.postMessage({ id, ok: true, value } satisfies Reply<Output>, transfer);
    } catch (error) {
      parentPort!.postMessage({ id, ok: false, error: error instanceof Error ? error.message : String(error) } satisfies Reply<Output>);
    }
  };
  parentPort!.postMessage({ ready: true } satisfies Reply<Output>);
  // Each input is answered, value or error, so nothing is left to wait for here.
  parentPort!.on('message', ({ id, input }: { id: number; input: Input }) => void answer(id, input));
}
