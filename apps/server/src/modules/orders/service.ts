import { createLabelFiles, type LabelFiles } from './label-files.ts';
import { createLabelPipeline, type LabelPipeline, type LabelPipelineDeps } from './label-pipeline.ts';
import { createPlacing, type Placing, type PlacingDeps } from './placing.ts';
import { createOrderViews } from './views.ts';

// The orders domain, in parts a newcomer can find:
// - placing.ts: placing and charging a single order (and the row every order, single or bulk, is written as);
// - label-pipeline.ts: buying, recovering and recording labels, and cancelling and refunding waiting orders;
// - label-files.ts: downloads of labels (PDF, ZPL, selections, a bulk order's file) and reading them from their packs;
// - views.ts: the customer's reads (history pages, one order, its details);
// - refunds.ts (label refunds), order-search.ts (the search box and its index), tracking.ts, repository.ts (the SQL).
// This file builds them from the same deps and returns what routes and other modules use.

/** Everything the parts are built from: what each needs is named (and explained) by the part's own deps type. */
export type OrderDeps = LabelPipelineDeps & PlacingDeps;

export function createOrderService(deps: OrderDeps) {
  const pipeline = createLabelPipeline(deps);
  const placing = createPlacing(deps, pipeline);
  const labelFiles = createLabelFiles(deps);
  const views = createOrderViews(deps.db);
  return {
    // Placing and charging (placing.ts).
    place: placing.place,
    invalidBody: placing.invalidBody,
    duplicate: placing.duplicate,
    placeReturn: placing.placeReturn,
    insertRows: placing.insertRows,

    // The label pipeline (label-pipeline.ts).
    providerName: pipeline.providerName,
    labelLanes: pipeline.labelLanes,
    makeLabels: pipeline.makeLabels,
    recheck: pipeline.recheck,
    cancel: pipeline.cancel,
    giveUp: pipeline.giveUp,
    cancelWaiting: pipeline.cancelWaiting,
    completeWaiting: pipeline.completeWaiting,

    // Downloads and label files (label-files.ts).
    labelPdf: labelFiles.labelPdf,
    labelFile: labelFiles.labelFile,
    selectedLabels: labelFiles.selectedLabels,
    labelsIn: labelFiles.labelsIn,
    writeLabels: labelFiles.writeLabels,

    // Read views (views.ts).
    list: views.list,
    listAfter: views.listAfter,
    getOwn: views.getOwn,
    detail: views.detail,
    listAll: views.listAll,
    pickupsOf: views.pickupsOf,
    countByStatus: views.countByStatus,
    find: views.find,
  };
}
export type OrderService = ReturnType<typeof createOrderService>;

/**
 * What a bulk order uses of orders (modules/bulk/service.ts): its rows written with its charge, the pipeline that buys
 * and records their labels, and the files they are downloaded as. The order service is one.
 */
export type BulkOrderPort = Pick<Placing, 'insertRows'> &
  Pick<LabelPipeline, 'providerName' | 'labelLanes' | 'makeLabels' | 'recheck' | 'giveUp'> &
  Pick<LabelFiles, 'labelsIn' | 'writeLabels'>;

// What other modules use of the parts: a module reaches another only through its service.ts (eslint's portal/boundaries).
export { orderRowFor, type OnCharged } from './placing.ts';
export type { LabelOutcome } from './label-pipeline.ts';
export { isRefundHeld, readLabel } from './label-files.ts';
export { toOrder, type OrderPickups } from './views.ts';
/** Label refunds live in refunds.ts; other modules reach them through here. */
export type { RefundFilter, RefundService } from './refunds.ts';
export type { ScanFormService } from './scan-forms.ts';
export type { PickupService } from './pickups.ts';
