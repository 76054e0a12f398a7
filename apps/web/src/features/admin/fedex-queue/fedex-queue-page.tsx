import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Button, Card } from 'react-bootstrap';
import { FEDEX_PAGE_SIZE, type AdminFedexOrder } from '@portal/contract';
import { downloadAdminFedexInvoice, fedexQueueQuery } from '../../../api/admin.ts';
import { useDownload } from '../../../api/mutation.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { FedexOrderModal } from '../../../components/fedex-order-modal.tsx';
import { formatClock, formatDate, money } from '../../../components/format.ts';
import { PagedTable, type Columns } from '../../../components/paged-table.tsx';
import { FedexActionModal, type FedexAction } from './fedex-order-actions.tsx';

/** A side of the order: the name, and the city and country under it. */
const Party = ({ side }: { side: { name: string; city: string; country: string } }) => (
  <>
    {side.name}
    <div className="text-muted">
      {side.city}, {side.country}
    </div>
  </>
);

/** /admin/fedex-queue: pending FedEx hand-made orders, oldest first; view one, get its invoice, complete it with the label or cancel it. */
export function FedexQueuePage() {
  const [viewing, setViewing] = useState<AdminFedexOrder | null>(null);
  const [action, setAction] = useState<FedexAction | null>(null);
  const invoice = useDownload(downloadAdminFedexInvoice);
  const list = usePagedList({ query: fedexQueueQuery });
  const { query: queue, page } = list;

  const act = (kind: FedexAction['kind'], order: AdminFedexOrder) => {
    setViewing(null);
    setAction({ kind, order });
  };
  const actions = (order: AdminFedexOrder) => (
    <>
      <Button size="sm" variant="outline-secondary" disabled={invoice.saving?._id === order._id} onClick={() => invoice.download(order)}>
        Invoice
      </Button>
      <Button size="sm" variant="success" onClick={() => act('complete', order)}>
        Complete
      </Button>
      <Button size="sm" variant="outline-danger" onClick={() => act('cancel', order)}>
        Cancel
      </Button>
    </>
  );
  const columns: Columns<AdminFedexOrder> = [
    { header: '#', cell: (_, index) => (page - 1) * FEDEX_PAGE_SIZE + index + 1 },
    // The full id is in the View Order modal; the start tells orders apart in a short queue.
    { header: 'OrderId', td: (order) => ({ className: 'font-monospace', title: order.uuid }), cell: (order) => order.uuid.slice(0, 8) },
    { header: 'Customer', cell: (order) => <Link to={`/admin/users/${encodeURIComponent(order.owner._id)}`}>@{order.owner.tgId}</Link> },
    { header: 'From', td: { className: 'text-nowrap' }, cell: (order) => <Party side={order.from} /> },
    { header: 'To', td: { className: 'text-nowrap' }, cell: (order) => <Party side={order.to} /> },
    { header: 'Price', className: 'text-end', cell: (order) => money(order.price) },
    {
      header: 'Pickup',
      td: { className: 'text-nowrap' },
      cell: (order) =>
        order.pickup ? (
          <>
            {order.pickupDate}
            <div className="text-muted">
              {formatClock(order.pickupTime)} - {formatClock(order.pickupEndTime)}
            </div>
          </>
        ) : (
          'No'
        ),
    },
    { header: 'Created At', cell: (order) => formatDate(order.createdAt) },
    {
      header: 'Action',
      cell: (order) => (
        <div className="d-flex gap-1 text-nowrap">
          <Button size="sm" variant="outline-primary" onClick={() => setViewing(order)}>
            View
          </Button>
          {actions(order)}
        </div>
      ),
    },
  ];

  return (
    <Card>
      <Card.Header className="d-flex flex-wrap align-items-baseline gap-2">
        <h2 className="h6 mb-0 me-auto">FedEx hand-made queue</h2>
        {queue.data && (
          <span className="small text-muted" data-testid="fedex-queue-total">
            {queue.data.total} pending, oldest first
          </span>
        )}
      </Card.Header>
      <Card.Body>
        <PagedTable
          query={queue}
          rows={queue.data?.orders ?? []}
          columns={columns}
          what="the FedEx queue"
          empty={<span data-testid="fedex-queue-empty">The FedEx hand-made queue is empty: no order waits for an operator.</span>}
          testId="fedex-queue-table"
          rowProps={(order) => ({ 'data-testid': 'fedex-queue-row', 'data-order-id': order._id })}
          compact
          pager={{ label: 'FedEx queue pages', ...list.pager }}
        />
      </Card.Body>
      <FedexOrderModal order={viewing} onClose={() => setViewing(null)} actions={viewing && actions(viewing)}>
        {viewing && (
          <p className="small" data-testid="fedex-order-owner">
            Customer: {viewing.owner.username} (@{viewing.owner.tgId}), placed {formatDate(viewing.createdAt)}, paid {money(viewing.price)}
          </p>
        )}
      </FedexOrderModal>
      <FedexActionModal action={action} onClose={() => setAction(null)} />
    </Card>
  );
}
