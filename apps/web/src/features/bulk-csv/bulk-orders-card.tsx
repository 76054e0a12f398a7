import { useEffect, useRef } from 'react';
import { Button, Card, ProgressBar, Spinner, Table } from 'react-bootstrap';
import { DASHBOARD_PAGE_SIZE, ORDER_POLL_MS, isBulkFinished, isProcessingStatus, type BulkOrder } from '@portal/contract';
import { BULK_DOWNLOADS, bulkOrdersQuery, downloadBulkFile, type BulkDownload } from '../../api/bulk.ts';
import { useCurrentUser } from '../../api/current-user.ts';
import { useDownload } from '../../api/mutation.ts';
import { usePagedList } from '../../api/paged-list.ts';
import { formatDate, money } from '../../components/format.ts';
import { LoadError } from '../../components/load-error.tsx';
import { Pagination } from '../../components/pagination.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';

/** Spec section 4: a bulk order is completed, processing, or otherwise pending. */
export const bulkStatus = (status: string): 'completed' | 'failed' | 'processing' | 'pending' =>
  status === 'completed' || status === 'failed' ? status : isProcessingStatus(status) ? 'processing' : 'pending';

/** 'n / total' while labels are still missing, otherwise the total. */
const orderCount = (order: BulkOrder) =>
  order.orders.length < order.totalOrders ? `${order.orders.length} / ${order.totalOrders}` : String(order.totalOrders);

/**
 * CSV Orders: every bulk order, newest first, with its status (and progress while processing) and
 * the Zip, CSV and PDF downloads once completed. Reloads every 5 s while any order is unfinished.
 */
export function BulkOrdersCard() {
  const { refresh } = useCurrentUser();
  const list = usePagedList({
    query: bulkOrdersQuery,
    poll: (data) => (data.unfinished.length > 0 ? ORDER_POLL_MS : false),
  });
  const { query: bulk, page } = list;
  const rows = bulk.data?.orders ?? [];
  const files = useDownload(({ order, file }: { order: BulkOrder; file: BulkDownload }) => downloadBulkFile(order._id, file));

  // A finished job may have refunded failed rows: read the balance again when an order completes.
  const unfinished = useRef<Set<string> | null>(null);
  const nowUnfinished = bulk.data?.unfinished;
  useEffect(() => {
    if (!nowUnfinished) return;
    const now = new Set(nowUnfinished);
    if (unfinished.current && [...unfinished.current].some((id) => !now.has(id))) void refresh();
    unfinished.current = now;
  }, [nowUnfinished, refresh]);

  return (
    <Card className="mb-4">
      <Card.Header as="h6">CSV Orders</Card.Header>
      <Card.Body>
        <LoadError query={bulk} what="the CSV orders" />
        <Table responsive hover size="sm" className="align-middle mb-3 small table-stack" data-testid="bulk-orders-table">
          <thead>
            <tr>
              <th>#</th>
              <th>Created At</th>
              <th>Type</th>
              <th className="text-end">Orders</th>
              <th className="text-end">Total</th>
              <th style={{ minWidth: '10rem' }}>Status</th>
              <th>Files</th>
            </tr>
          </thead>
          <tbody>
            {bulk.isPending && (
              <tr>
                <td colSpan={7} className="text-center">
                  <Spinner animation="border" size="sm" />
                </td>
              </tr>
            )}
            {bulk.isSuccess && bulk.data.total === 0 && (
              <tr>
                <td colSpan={7} className="text-center text-muted">
                  No CSV orders yet
                </td>
              </tr>
            )}
            {rows.map((order, index) => {
              const status = bulkStatus(order.status);
              return (
                <tr key={order._id} id={`bulk-${order._id}`} data-testid="bulk-order-row" data-bulk-id={order._id} data-status={status}>
                  <td className="stack-hide">{(page - 1) * DASHBOARD_PAGE_SIZE + index + 1}</td>
                  <td className="stack-key">{formatDate(order.createdAt)}</td>
                  <td data-label="Type">{order.labelType.name}</td>
                  <td className="text-end" data-label="Orders" data-testid="bulk-order-count">
                    <span>
                      {orderCount(order)}
                      {order.failedOrders > 0 && <span className="d-block text-danger">{order.failedOrders} failed</span>}
                    </span>
                  </td>
                  <td className="text-end" data-label="Total">
                    {money(order.total)}
                  </td>
                  <td data-label="Status">
                    <span className="bulk-status">
                      <StatusBadge status={status} />
                      {status === 'processing' && (
                        // The percentage sits over the whole bar, not inside its fill, so it reads at 0-10% too.
                        <span className="bulk-progress mt-1" data-testid="bulk-progress">
                          <ProgressBar now={order.progress} animated aria-label="Progress" />
                          <span className="bulk-progress-label" aria-hidden>
                            {Math.round(order.progress)}%
                          </span>
                        </span>
                      )}
                    </span>
                  </td>
                  <td className="text-nowrap stack-actions">
                    {isBulkFinished(status) &&
                      // An order whose every row failed has a report but no labels: no PDF or ZIP.
                      BULK_DOWNLOADS.filter((file) => order[file.kind]).map((file) => (
                        <Button
                          key={file.kind}
                          size="sm"
                          variant="outline-success"
                          className="me-1"
                          disabled={files.saving?.order._id === order._id && files.saving.file === file}
                          onClick={() => files.download({ order, file })}
                          title={`Download ${file.fileName}`}
                        >
                          {file.label}
                        </Button>
                      ))}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </Table>
        <Pagination label="CSV Orders pages" {...list.pager} />
      </Card.Body>
    </Card>
  );
}
