// One label-rendering thread of the render pool: a LabelRequest in, { tracking, pdf } out.
import { parentPort } from 'node:worker_threads';
import type { LabelRequest } from './label-provider.ts';
import { renderLabel } from './render-label.ts';
import { trackingNumberFor } from './tracking-numbers.ts';

parentPort!.on('message', async (request: LabelRequest) => {
  try {
    const tracking = trackingNumberFor(request.uid, request.orderId, request.to.zip);
    const pdf = new Uint8Array(await renderLabel(request, tracking)); // an unshared buffer, so it can be transferred
    parentPort!.postMessage({ ok: true, tracking: tracking.tracking, pdf }, [pdf.buffer]);
  } catch (error) {
    parentPort!.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
