import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, ProgressBar, Spinner, Table } from 'react-bootstrap';
import { toast } from '../../components/toast.tsx';
import { DASHBOARD_PAGE_SIZE, ORDER_POLL_MS, isBulkFinished, isProcessingStatus, type BulkOrder } from '@portal/contract';
import { BULK_DOWNLOADS, BULK_ORDERS_QUERY_KEY, downloadBulkFile, readBulkOrders, type BulkDownload } from '../../api/bulk.ts';
import { errorMessage } from '../../api/client.ts';
import { useCurrentUser } from '../../api/current-user.ts';
import { formatDate, money } from '../../components/format.ts';
import { Pagination } from '../../components/pagination.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { asyncHandler } from '../../components/async-handler.ts';

/** Spec section 4: a bulk order is completed, processing, or otherwise pending. */
export const bulkStatus = (status: string): 'completed' | 'failed' | 'processing' | 'pending' =>
  status === 'completed' || status === 'failed' ? status : isProcessingStatus(status) ? 'processing' : 'pending';

/** 'n / total' while labels are still missing, otherwise the total. */
const orderCount = (order: BulkOrder) => (order.orders.length < order.totalOrders ? `${order.orders.length} / ${order.totalOrders}` : String(order.totalOrders));

/**
 * CSV Orders: every bulk order, newest first, with its status (and progress while processing) and
 * the Zip, CSV and PDF downloads once completed. Reloads every 5 s while any order is unfinished.
 */
export function BulkOrdersCard() {
  const [page, setPage] = useState(1);
  const [downloading, setDownloading] = useState<string | null>(null);
  const { refresh } = useCurrentUser();
  const bulk = useQuery({
    queryKey: BULK_ORDERS_QUERY_KEY,
    queryFn: readBulkOrders,
    refetchOnMount: 'always',
    refetchInterval: (query) => (query.state.data?.orders.some((o) => !isBulkFinished(o.status)) ? ORDER_POLL_MS : false),
  });
  useEffect(() => {
    if (bulk.error) console.error('Failed to load bulk orders', bulk.error);
  }, [bulk.error]);
  const all = bulk.data?.orders ?? [];
  const totalPages = Math.max(1, Math.ceil(all.length / DASHBOARD_PAGE_SIZE));
  useEffect(() => {
    if (page > totalPages) setPage(totalPages);
  }, [page, totalPages]);
  const rows = all.slice((page - 1) * DASHBOARD_PAGE_SIZE, page * DASHBOARD_PAGE_SIZE);

  // A finished job may have refunded failed rows: read the balance again when an order completes.
  const unfinished = useRef<Set<string> | null>(null);
  useEffect(() => {
    if (!bulk.data) return;
    const now = new Set(bulk.data.orders.filter((o) => !isBulkFinished(o.status)).map((o) => o._id));
    if (unfinished.current && [...unfinished.current].some((id) => !now.has(id))) void refresh();
    unfinished.current = now;
  }, [bulk.data]);

  const download = async (order: BulkOrder, file: BulkDownload) => {
    const key = `${order._id}:${file.kind}`;
    setDownloading(key);
    try {
      await downloadBulkFile(order._id, file);
    } catch (error) {
      toast.error(errorMessage(error));
    } finally {
      setDownloading((current) => (current === key ? null : current));
    }
  };

  return (
    <Card className="mb-4">
      <Card.Header as="h6">CSV Orders</Card.Header>
      <Card.Body>
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
            {bulk.isSuccess && all.length === 0 && (
              <tr>
                <td colSpan={7} className="text-center text-muted">
                  No CSV orders yet
                </td>
              </tr>
            )}
            {rows.map((order, index) => {
              const status = bulkStatus(order.status);
              return (
                <tr key={order._id} data-testid="bulk-order-row" data-bulk-id={order._id} data-status={status}>
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
                          disabled={downloading === `${order._id}:${file.kind}`}
                          onClick={asyncHandler(() => download(order, file))}
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
        <Pagination label="CSV Orders pages" page={page} totalPages={totalPages} onPageChange={setPage} />
      </Card.Body>
    </Card>
  );
}
