import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Button } from 'react-bootstrap';
import { ORDER_POLL_MS, isProcessingStatus, weightUnitFor, type adminOrdersResponse } from '@portal/contract';
import { adminOrdersQuery, downloadAdminLabel, type AdminOrdersFilter } from '../../../api/admin.ts';
import { useDownload } from '../../../api/mutation.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { formatDate, money } from '../../../components/format.ts';
import { PagedTable, type Columns } from '../../../components/paged-table.tsx';
import { StatusBadge } from '../../../components/status-badge.tsx';
import { RefundBadge } from '../../../components/refund-badge.tsx';
import { CancelOrderModal, type CancellableOrder } from './cancel-order-modal.tsx';
import { OrderModal, isCancellable } from './order-modal.tsx';

export type LabelOrdersFilter = AdminOrdersFilter;
type AdminOrder = ReturnType<typeof adminOrdersResponse.parse>['orders'][number];

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
  // Weight under the type and tracking under the order id: the list fits its card at 1366 px, its actions on screen.
  const columns: Columns<AdminOrder> = [
    {
      header: 'Order ID',
      cell: (order) => (
        <>
          <span className="font-monospace">{order.OrderId}</span>
          {order.tracking && (
            <span className="d-block font-monospace text-muted" data-testid="admin-order-tracking">
              {order.tracking}
            </span>
          )}
        </>
      ),
    },
    showOwner && { header: 'Customer', cell: (order) => <Link to={`/admin/users/${encodeURIComponent(order.owner._id)}`}>@{order.owner.tgId}</Link> },
    {
      header: 'Type',
      cell: (order) => (
        <>
          {order.labelType.name}
          <span className="d-block text-muted" data-testid="admin-order-weight">
            {order.weight} {weightUnitFor(order.labelType.uid)}
          </span>
        </>
      ),
    },
    { header: 'From', cell: (order) => order.fromName },
    { header: 'To', cell: (order) => order.toName },
    { header: 'Price', className: 'text-end', cell: (order) => money(order.price) },
    {
      header: 'Status',
      cell: (order) => (
        <>
          <StatusBadge status={order.status} title={order.note ?? undefined} />
          <RefundBadge status={order.refundStatus} note={order.refundNote} />
        </>
      ),
    },
    { header: 'Created', cell: (order) => formatDate(order.createdAt) },
    {
      header: 'Action',
      td: { className: 'text-nowrap' },
      cell: (order) => (
        <>
          <Button size="sm" variant="outline-primary" className="me-1" onClick={() => setOpened(order._id)}>
            Open
          </Button>
          {/* No label to download while its refund is asked or once it is refunded (pdf is null then). */}
          {order.status === 'completed' && order.pdf && (
            <Button size="sm" variant="outline-success" className="me-1" disabled={label.saving?._id === order._id} onClick={() => label.download(order)}>
              Download
            </Button>
          )}
          {isCancellable(order.status) && (
            <Button size="sm" variant="outline-danger" onClick={() => setCancelling(order)}>
              Cancel
            </Button>
          )}
        </>
      ),
    },
  ];

  return (
    <>
      <PagedTable
        query={orders}
        rows={orders.data?.orders ?? []}
        columns={columns}
        what="the orders"
        empty="No orders match"
        testId="admin-orders-table"
        rowProps={(order) => ({ 'data-testid': 'admin-order-row', 'data-order-id': order._id })}
        compact
        pager={{ label: 'Orders pages', ...list.pager }}
      />
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
