import { useEffect, useRef } from 'react';
import { Button, Card, ProgressBar } from 'react-bootstrap';
import { DASHBOARD_PAGE_SIZE, ORDER_POLL_MS, isBulkFinished, isProcessingStatus, type BulkOrder } from '@portal/contract';
import { BULK_DOWNLOADS, bulkOrdersQuery, downloadBulkFile, type BulkDownload } from '../../api/bulk.ts';
import { useCurrentUser } from '../../api/current-user.ts';
import { useDownload } from '../../api/mutation.ts';
import { usePagedList } from '../../api/paged-list.ts';
import { formatDate, money } from '../../components/format.ts';
import { PagedTable, type Columns } from '../../components/paged-table.tsx';
import { ScanFormButton } from '../../components/scan-form-button.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';

/** Spec section 4: a bulk order is completed, processing, or otherwise pending. */
export const bulkStatus = (status: string): 'completed' | 'failed' | 'processing' | 'pending' =>
  status === 'completed' || status === 'failed' ? status : isProcessingStatus(status) ? 'processing' : 'pending';

/** 'n / total' while labels are still missing, otherwise the total. */
const orderCount = (order: BulkOrder) =>
  order.orders.length < order.totalOrders ? `${order.orders.length} / ${order.totalOrders}` : String(order.totalOrders);

/** A bulk order's status, with its progress while it is processing. */
function BulkStatus({ status, progress }: { status: ReturnType<typeof bulkStatus>; progress: number }) {
  return (
    <span className="bulk-status">
      <StatusBadge status={status} />
      {status === 'processing' && (
        // The percentage sits over the whole bar, not inside its fill, so it reads at 0-10% too.
        <span className="bulk-progress mt-1" data-testid="bulk-progress">
          <ProgressBar now={progress} animated aria-label="Progress" />
          <span className="bulk-progress-label" aria-hidden>
            {Math.round(progress)}%
          </span>
        </span>
      )}
    </span>
  );
}

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
  const columns: Columns<BulkOrder> = [
    { header: '#', td: { className: 'stack-hide' }, cell: (_, index) => (page - 1) * DASHBOARD_PAGE_SIZE + index + 1 },
    { header: 'Created At', td: { className: 'stack-key' }, cell: (order) => formatDate(order.createdAt) },
    { header: 'Type', td: { 'data-label': 'Type' }, cell: (order) => order.labelType.name },
    {
      header: 'Orders',
      className: 'text-end',
      td: { 'data-label': 'Orders', 'data-testid': 'bulk-order-count' },
      cell: (order) => (
        <span>
          {orderCount(order)}
          {order.failedOrders > 0 && <span className="d-block text-danger">{order.failedOrders} failed</span>}
        </span>
      ),
    },
    { header: 'Total', className: 'text-end', td: { 'data-label': 'Total' }, cell: (order) => money(order.total) },
    {
      header: 'Status',
      th: { style: { minWidth: '10rem' } },
      td: { 'data-label': 'Status' },
      cell: (order) => <BulkStatus status={bulkStatus(order.status)} progress={order.progress} />,
    },
    {
      header: 'Files',
      td: { className: 'text-nowrap stack-actions' },
      cell: (order) =>
        isBulkFinished(bulkStatus(order.status)) &&
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
        )),
    },
    {
      header: 'SCAN form',
      td: { className: 'stack-actions' },
      // A finished order with labels: its labels on forms, one a from address.
      cell: (order) => isBulkFinished(bulkStatus(order.status)) && order.pdf && <ScanFormButton body={{ bulkOrderId: order._id }} />,
    },
  ];

  return (
    <Card className="mb-4">
      <Card.Header as="h6">CSV Orders</Card.Header>
      <Card.Body>
        <PagedTable
          query={bulk}
          rows={bulk.data?.orders ?? []}
          columns={columns}
          what="the CSV orders"
          empty="No CSV orders yet"
          testId="bulk-orders-table"
          rowProps={(order) => ({
            id: `bulk-${order._id}`,
            'data-testid': 'bulk-order-row',
            'data-bulk-id': order._id,
            'data-status': bulkStatus(order.status),
          })}
          compact
          stack
          pager={{ label: 'CSV Orders pages', ...list.pager }}
        />
      </Card.Body>
    </Card>
  );
}
