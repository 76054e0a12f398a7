// One label-rendering thread of the render pool: a LabelRequest in, { tracking, pdf } out.
import { serveWorkerTasks } from '../../lib/worker-task.ts';
import type { LabelRequest } from './label-provider.ts';
import type { RenderedLabel } from './render-pool.ts';
import { renderLabel } from './render-label.ts';
import { trackingNumberFor } from './tracking-numbers.ts';

serveWorkerTasks<LabelRequest, RenderedLabel>(async (request) => {
  const tracking = trackingNumberFor(request.uid, request.orderId, request.to.zip);
  const pdf = new Uint8Array(await renderLabel(request, tracking)); // an unshared buffer, so it can be transferred
  return { value: { tracking: tracking.tracking, pdf }, transfer: [pdf.buffer] };
});
