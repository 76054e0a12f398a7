import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Spinner, Table } from 'react-bootstrap';
import { toast } from '../../../components/toast.tsx';
import { ADMIN_PAGE_SIZE, ORDER_POLL_MS, isProcessingStatus, weightUnitFor, type AdminOrdersQuery } from '@portal/contract';
import { errorMessage } from '../../../api/client.ts';
import { formatDate, money } from '../../../components/format.ts';
import { StatusBadge } from '../../../components/status-badge.tsx';
import { adminKey, downloadAdminLabel, readAdminOrders } from '../api.ts';
import { usePageOf } from '../../../components/pagination.tsx';
import { ListPager } from '../list-pager.tsx';
import { CancelOrderModal, type CancellableOrder } from './cancel-order-modal.tsx';
import { OrderModal, isCancellable } from './order-modal.tsx';
import { asyncHandler } from '../../../components/async-handler.ts';

export type LabelOrdersFilter = Omit<AdminOrdersQuery, 'page' | 'limit'>;

/**
 * Every customer's label orders matching the filter, newest first: open one, download its label,
 * cancel it while it waits. A new filter starts again at page 1.
 */
export function LabelOrdersList({ filter, showOwner = true }: { filter: LabelOrdersFilter; showOwner?: boolean }) {
  const [page, setPage] = usePageOf(filter);
  const [opened, setOpened] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState<CancellableOrder | null>(null);
  const [downloading, setDownloading] = useState<string | null>(null);

  const orders = useQuery({
    queryKey: adminKey('orders', filter, page),
    queryFn: () => readAdminOrders({ ...filter, page, limit: ADMIN_PAGE_SIZE }),
    placeholderData: keepPreviousData,
    refetchOnMount: 'always',
    refetchInterval: (query) => (query.state.data?.orders.some((o) => isProcessingStatus(o.status)) ? ORDER_POLL_MS : false),
  });
  useEffect(() => {
    if (orders.error) {
      console.error('Failed to load orders', orders.error);
      toast.error(errorMessage(orders.error));
    }
  }, [orders.error]);
  const rows = orders.data?.orders ?? [];
  const columns = showOwner ? 11 : 10;

  const download = async (order: { _id: string; tracking: string | null }) => {
    setDownloading(order._id);
    try {
      await downloadAdminLabel(order);
    } catch (error) {
      toast.error(errorMessage(error));
    } finally {
      setDownloading(null);
    }
  };

  return (
    <>
      <Table responsive hover size="sm" className="align-middle small mb-3" data-testid="admin-orders-table">
        <thead>
          <tr>
            <th>Order ID</th>
            {showOwner && <th>Customer</th>}
            <th>Type</th>
            <th>From</th>
            <th>To</th>
            <th>Weight</th>
            <th className="text-end">Price</th>
            <th>Status</th>
            <th>Tracking</th>
            <th>Created</th>
            <th>Action</th>
          </tr>
        </thead>
        <tbody>
          {orders.isPending && (
            <tr>
              <td colSpan={columns} className="text-center">
                <Spinner animation="border" size="sm" />
              </td>
            </tr>
          )}
          {orders.isSuccess && rows.length === 0 && (
            <tr>
              <td colSpan={columns} className="text-center text-muted">
                No orders match
              </td>
            </tr>
          )}
          {rows.map((order) => (
            <tr key={order._id} data-testid="admin-order-row" data-order-id={order._id}>
              <td className="font-monospace">{order.OrderId}</td>
              {showOwner && (
                <td>
                  <Link to={`/admin/users/${encodeURIComponent(order.owner._id)}`}>@{order.owner.tgId}</Link>
                </td>
              )}
              <td>{order.labelType.name}</td>
              <td>{order.fromName}</td>
              <td>{order.toName}</td>
              <td>
                {order.weight} {weightUnitFor(order.labelType.uid)}
              </td>
              <td className="text-end">{money(order.price)}</td>
              <td>
                <StatusBadge status={order.status} title={order.note ?? undefined} />
              </td>
              <td className="font-monospace">{order.tracking ?? ''}</td>
              <td>{formatDate(order.createdAt)}</td>
              <td className="text-nowrap">
                <Button size="sm" variant="outline-primary" className="me-1" onClick={() => setOpened(order._id)}>
                  Open
                </Button>
                {order.status === 'completed' && (
                  <Button size="sm" variant="outline-success" className="me-1" disabled={downloading === order._id} onClick={asyncHandler(() => download(order))}>
                    Download
                  </Button>
                )}
                {isCancellable(order.status) && (
                  <Button size="sm" variant="outline-danger" onClick={() => setCancelling(order)}>
                    Cancel
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
      <ListPager label="Orders pages" page={page} totalPages={orders.data?.totalPages ?? 1} onPageChange={setPage} />
      <OrderModal
        orderId={opened}
        onClose={() => setOpened(null)}
        onDownload={asyncHandler(download)}
        onCancel={(order) => {
          setOpened(null);
          setCancelling(order);
        }}
      />
      <CancelOrderModal order={cancelling} onClose={() => setCancelling(null)} />
    </>
  );
}
