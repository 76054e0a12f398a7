import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, Spinner, Table } from 'react-bootstrap';
import { toast } from '../../../components/toast.tsx';
import { FEDEX_PAGE_SIZE, type AdminFedexOrder } from '@portal/contract';
import { errorMessage } from '../../../api/client.ts';
import { FedexOrderModal } from '../../../components/fedex-order-modal.tsx';
import { formatDate, money } from '../../../components/format.ts';
import { adminKey, downloadAdminFedexInvoice, readFedexQueue } from '../api.ts';
import { ListPager } from '../list-pager.tsx';
import { FedexActionModal, type FedexAction } from './fedex-order-actions.tsx';
import { asyncHandler } from '../../../components/async-handler.ts';

const place = (address: { city: string; country: string }) => `${address.city}, ${address.country}`;

/** /admin/fedex-queue: pending FedEx hand-made orders, oldest first; view one, get its invoice, complete it with the label or cancel it. */
export function FedexQueuePage() {
  const [page, setPage] = useState(1);
  const [viewing, setViewing] = useState<AdminFedexOrder | null>(null);
  const [action, setAction] = useState<FedexAction | null>(null);
  const [downloading, setDownloading] = useState<string | null>(null);
  const queue = useQuery({
    queryKey: adminKey('fedex-queue', page),
    queryFn: () => readFedexQueue(page, FEDEX_PAGE_SIZE),
    placeholderData: keepPreviousData,
    refetchOnMount: 'always',
  });
  useEffect(() => {
    if (queue.error) toast.error(errorMessage(queue.error));
  }, [queue.error]);
  const orders = queue.data?.orders ?? [];

  const act = (kind: FedexAction['kind'], order: AdminFedexOrder) => {
    setViewing(null);
    setAction({ kind, order });
  };
  const downloadInvoice = async (order: AdminFedexOrder) => {
    setDownloading(order._id);
    try {
      await downloadAdminFedexInvoice(order);
    } catch (error) {
      toast.error(errorMessage(error));
    } finally {
      setDownloading(null);
    }
  };
  const actions = (order: AdminFedexOrder) => (
    <>
      <Button size="sm" variant="outline-secondary" disabled={downloading === order._id} onClick={asyncHandler(() => downloadInvoice(order))}>
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
                        {order.pickupTime}-{order.pickupEndTime}
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
        <ListPager label="FedEx queue pages" page={page} totalPages={queue.data?.totalPages ?? 1} onPageChange={setPage} />
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
