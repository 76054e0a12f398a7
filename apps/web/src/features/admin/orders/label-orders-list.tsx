import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Button, Spinner, Table } from 'react-bootstrap';
import { ORDER_POLL_MS, isProcessingStatus, weightUnitFor } from '@portal/contract';
import { adminOrdersQuery, downloadAdminLabel, type AdminOrdersFilter } from '../../../api/admin.ts';
import { useDownload } from '../../../api/mutation.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { formatDate, money } from '../../../components/format.ts';
import { LoadError } from '../../../components/load-error.tsx';
import { Pagination } from '../../../components/pagination.tsx';
import { StatusBadge } from '../../../components/status-badge.tsx';
import { CancelOrderModal, type CancellableOrder } from './cancel-order-modal.tsx';
import { OrderModal, isCancellable } from './order-modal.tsx';

export type LabelOrdersFilter = AdminOrdersFilter;

/**
 * Every customer's label orders matching the filter, newest first: open one, download its label,
 * cancel it while it waits. A new filter starts again at page 1.
 */
export function LabelOrdersList({ filter, showOwner = true }: { filter: LabelOrdersFilter; showOwner?: boolean }) {
  const [opened, setOpened] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState<CancellableOrder | null>(null);
  const label = useDownload(downloadAdminLabel);

  const list = usePagedList({
    query: (page) => adminOrdersQuery(filter, page),
    poll: (data) => (data.orders.some((o) => isProcessingStatus(o.status)) ? ORDER_POLL_MS : false),
  });
  const orders = list.query;
  const rows = orders.data?.orders ?? [];
  const columns = showOwner ? 11 : 10;

  return (
    <>
      <LoadError query={orders} what="the orders" />
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
                  <Button size="sm" variant="outline-success" className="me-1" disabled={label.saving?._id === order._id} onClick={() => label.download(order)}>
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
      <Pagination label="Orders pages" {...list.pager} />
      <OrderModal
        orderId={opened}
        onClose={() => setOpened(null)}
        onDownload={label.download}
        onCancel={(order) => {
          setOpened(null);
          setCancelling(order);
        }}
      />
      <CancelOrderModal order={cancelling} onClose={() => setCancelling(null)} />
    </>
  );
}
