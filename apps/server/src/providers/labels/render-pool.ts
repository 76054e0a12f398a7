import { createWorkerPool, workerModule } from '../../lib/worker-pool.ts';
import type { LabelRequest } from './label-provider.ts';
import { trackingNumberFor } from './tracking-numbers.ts';

export type RenderedLabel = { tracking: string; pdf: Uint8Array };

/** Turns a label request into its tracking number and PDF. */
export interface LabelRenderer {
  render(request: LabelRequest): Promise<RenderedLabel>;
  close(): Promise<void>;
}

/** Renders on the calling thread (pdfkit is loaded on the first label: a process rendering on threads never loads it). */
export function inlineRenderer(): LabelRenderer {
  // Imported once: run from source, each import() asks tsx's loader thread to resolve it again (about a tenth of a label's time).
  let renderer: Promise<typeof import('./render-label.ts')> | undefined;
  return {
    async render(request) {
      const { renderLabel } = await (renderer ??= import('./render-label.ts'));
      const tracking = trackingNumberFor(request.uid, request.orderId, request.to.zip);
      return { tracking: tracking.tracking, pdf: await renderLabel(request, tracking) };
    },
    async close() {},
  };
}

/**
 * Renders on `size` worker threads: a label costs a few milliseconds of CPU, and a machine with spare
 * cores renders in parallel. Each thread is given two labels at once, so it starts the next one
 * while this thread is still busy recording the last.
 *
 * The threads (about 30 MB each) start with the first label, all of them at once, so that a burst of
 * orders finds them loading together; a process that never renders (a web process whose orders the
 * provider makes later, or that only serves pages) never starts them.
 *
 * At most `queue` labels wait for a thread; past them a label is refused with PoolFull (503). A bulk job asks for a few
 * labels at a time (BULK_LABEL_LANES), however many rows it has, so the bound is met by a flood of single orders only.
 * See ARCHITECTURE.md#render-pool.
 */
export function createRenderPool(size: number, queue = Infinity): LabelRenderer {
  const pool = createWorkerPool<LabelRequest, RenderedLabel>(workerModule('render-worker', import.meta.url), size, 'label renderer', {
    tasksPerThread: 2,
    queue,
    retryAfterSeconds: 1,
    // Run from source, loaded natively rather than through tsx's loader: about 20 MB less a thread (the built server's threads do so anyway).
    preload: ['pdfkit', 'bwip-js/node', 'any-ascii'],
  });
  let started = false;
  return {
    render(request) {
      if (!started) pool.warm();
      started = true;
      return pool.run(request);
    },
    close: () => pool.close(),
  };
}
