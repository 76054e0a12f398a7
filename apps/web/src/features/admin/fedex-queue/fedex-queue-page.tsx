import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Button, Card, Spinner, Table } from 'react-bootstrap';
import { FEDEX_PAGE_SIZE, type AdminFedexOrder } from '@portal/contract';
import { downloadAdminFedexInvoice, fedexQueueQuery } from '../../../api/admin.ts';
import { useDownload } from '../../../api/mutation.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { FedexOrderModal } from '../../../components/fedex-order-modal.tsx';
import { formatClock, formatDate, money } from '../../../components/format.ts';
import { LoadError } from '../../../components/load-error.tsx';
import { Pagination } from '../../../components/pagination.tsx';
import { FedexActionModal, type FedexAction } from './fedex-order-actions.tsx';

const place = (address: { city: string; country: string }) => `${address.city}, ${address.country}`;

/** /admin/fedex-queue: pending FedEx hand-made orders, oldest first; view one, get its invoice, complete it with the label or cancel it. */
export function FedexQueuePage() {
  const [viewing, setViewing] = useState<AdminFedexOrder | null>(null);
  const [action, setAction] = useState<FedexAction | null>(null);
  const invoice = useDownload(downloadAdminFedexInvoice);
  const list = usePagedList({ query: fedexQueueQuery });
  const { query: queue, page } = list;
  const orders = queue.data?.orders ?? [];

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
        <LoadError query={queue} what="the FedEx queue" />
        <Table responsive hover size="sm" className="align-middle small mb-3" data-testid="fedex-queue-table">
          <thead>
            <tr>
              <th>#</th>
              <th>OrderId</th>
              <th>Customer</th>
              <th>From</th>
              <th>To</th>
              <th className="text-end">Price</th>
              <th>Pickup</th>
              <th>Created At</th>
              <th>Action</th>
            </tr>
          </thead>
          <tbody>
            {queue.isPending && (
              <tr>
                <td colSpan={9} className="text-center">
                  <Spinner animation="border" size="sm" />
                </td>
              </tr>
            )}
            {queue.isSuccess && orders.length === 0 && (
              <tr>
                <td colSpan={9} className="text-center text-muted" data-testid="fedex-queue-empty">
                  The FedEx hand-made queue is empty: no order waits for an operator.
                </td>
              </tr>
            )}
            {orders.map((order, index) => (
              <tr key={order._id} data-testid="fedex-queue-row" data-order-id={order._id}>
                <td>{(page - 1) * FEDEX_PAGE_SIZE + index + 1}</td>
                {/* The full id is in the View Order modal; the start tells orders apart in a short queue. */}
                <td className="font-monospace" title={order.uuid}>
                  {order.uuid.slice(0, 8)}
                </td>
                <td>
                  <Link to={`/admin/users/${encodeURIComponent(order.owner._id)}`}>@{order.owner.tgId}</Link>
                </td>
                <td className="text-nowrap">
                  {order.from.name}
                  <div className="text-muted">{place(order.from)}</div>
                </td>
                <td className="text-nowrap">
                  {order.to.name}
                  <div className="text-muted">{place(order.to)}</div>
                </td>
                <td className="text-end">{money(order.price)}</td>
                <td className="text-nowrap">
                  {order.pickup ? (
                    <>
                      {order.pickupDate}
                      <div className="text-muted">
                        {formatClock(order.pickupTime)} - {formatClock(order.pickupEndTime)}
                      </div>
                    </>
                  ) : (
                    'No'
                  )}
                </td>
                <td>{formatDate(order.createdAt)}</td>
                <td>
                  <div className="d-flex gap-1 text-nowrap">
                    <Button size="sm" variant="outline-primary" onClick={() => setViewing(order)}>
                      View
                    </Button>
                    {actions(order)}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
        <Pagination label="FedEx queue pages" {...list.pager} />
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
