import { createWorkerPool } from '../../lib/worker-pool.ts';
import type { LabelRequest } from './label-provider.ts';
import { trackingNumberFor } from './tracking-numbers.ts';

export type RenderedLabel = { tracking: string; pdf: Uint8Array };

/** Turns a label request into its tracking number and PDF. */
export interface LabelRenderer {
  render(request: LabelRequest): Promise<RenderedLabel>;
  /** Starts what rendering needs now rather than on the first label. */
  warm(): void;
  close(): Promise<void>;
}

/** Renders on the calling thread (pdfkit is loaded on the first label: a process rendering on threads never loads it). */
export const inlineRenderer = (): LabelRenderer => ({
  async render(request) {
    const { renderLabel } = await import('./render-label.ts');
    const tracking = trackingNumberFor(request.uid, request.orderId, request.to.zip);
    return { tracking: tracking.tracking, pdf: await renderLabel(request, tracking) };
  },
  warm() {},
  async close() {},
});

/**
 * Renders on `size` worker threads: a label costs a few milliseconds of CPU, and a machine with spare
 * cores renders in parallel. Each thread is given two labels at once, so it starts the next one
 * while this thread is still busy recording the last.
 */
export function createRenderPool(size: number): LabelRenderer {
  const pool = createWorkerPool<LabelRequest, RenderedLabel>(new URL('./render-worker.ts', import.meta.url), size, 'label renderer', { tasksPerThread: 2 });
  return { render: (request) => pool.run(request), warm: () => pool.warm(), close: () => pool.close() };
}
