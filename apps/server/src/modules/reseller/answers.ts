import {
  RESELLER_API_PREFIX,
  bulkStageOf,
  centsToDollars,
  type BulkJobStatusAnswer,
  type Order,
  type ResellerOrder,
  type WebhookEvent,
} from '@portal/contract';
import type { JobInfo } from '../../queue/job-queue.ts';
import type { BulkService } from '../bulk/service.ts';

/** What the reseller API shows of things, with absolute download URLs on `base` (the shop's origin, or '' for a path). */
export const orderDownloadUrl = (base: string, orderId: string) => `${base}${RESELLER_API_PREFIX}/order/download/${orderId}`;
export const bulkDownloadUrl = (base: string, bulkOrderId: string) => `${base}${RESELLER_API_PREFIX}/order/download-bulk-order/${bulkOrderId}`;

export function resellerOrderOf(order: Order, base: string): ResellerOrder {
  return {
    id: order._id,
    orderId: order.OrderId,
    status: order.status,
    labelType: { uid: order.labelType.uid, name: order.labelType.name },
    design: order.design,
    weight: order.weight,
    price: order.price,
    tracking: order.tracking,
    trackingStatus: order.trackingStatus,
    trackingUrl: order.trackingPage && `${base}${order.trackingPage}`,
    fromName: order.fromName,
    toName: order.toName,
    note: order.note,
    createdAt: order.createdAt,
    downloadUrl: order.pdf ? orderDownloadUrl(base, order._id) : null,
    refundStatus: order.refundStatus,
    refundNote: order.refundNote,
    shipDate: order.shipDate,
    reference: order.reference,
    reference2: order.reference2,
    returnOf: order.returnOf,
    returnId: order.returnId,
    isReturn: order.isReturn,
    insurance: order.insurance,
  };
}

type OwnBulk = NonNullable<Awaited<ReturnType<BulkService['findOwn']>>>;

export function bulkSummaryOf(bulk: OwnBulk, base: string): NonNullable<WebhookEvent['data']['bulkOrder']> {
  const completed = bulk.status === 'completed';
  return {
    id: bulk.id,
    job_id: bulk.job_id,
    labelType: { uid: bulk.label_type_uid, name: bulk.label_type_name },
    totalOrders: bulk.total_orders,
    made: bulk.made,
    failed: bulk.failed,
    total: centsToDollars(Number(bulk.total_cents) - bulk.refundedCents),
    downloadUrl: completed && bulk.zip_key ? bulkDownloadUrl(base, bulk.id) : null,
    completedAt: bulk.completed_at,
  };
}

/**
 * A bulk job as the API shows it. The bulk order is the truth of progress and completion (its job
 * may be gone from the queue's history); the job tells waiting, active and failed.
 */
export function bulkJobStatusOf(bulk: OwnBulk, job: JobInfo | null, base: string): BulkJobStatusAnswer {
  const completed = bulk.status === 'completed';
  const state = completed ? 'completed' : job?.state === 'active' ? 'active' : job?.state === 'failed' ? 'failed' : 'waiting';
  const progress = completed ? 100 : Math.max(0, Math.min(99, bulk.progress));
  return {
    type: 'success',
    message: completed ? 'The bulk order is completed' : `The bulk order is ${state}`,
    job_id: bulk.job_id ?? '',
    bulkorder_id: bulk.id,
    state,
    progress,
    stage: bulkStageOf(state, progress),
    totalOrders: bulk.total_orders,
    made: bulk.made,
    failed: bulk.failed,
    downloadUrl: completed && bulk.zip_key ? bulkDownloadUrl(base, bulk.id) : null,
    createdAt: bulk.created_at,
    completedAt: bulk.completed_at,
  };
}
