import { useState } from 'react';
import { Button } from 'react-bootstrap';
import { refundBlocked, type Order } from '@portal/contract';
import { useRefundOrders } from '../../api/orders.ts';
import { ConfirmModal, type Confirmation } from '../../components/confirm-modal.tsx';

/** How a refused label is named: its order number, and its tracking number when it has one. */
const labelName = (order: Pick<Order, 'OrderId' | 'tracking'>) => (order.tracking ? `${order.OrderId} (${order.tracking})` : order.OrderId);

/**
 * 'Request refund' of the selected orders, asked twice (a refunded label can no longer be used); each order is
 * answered on its own, and the toast names each refused label and why. A label the carrier has scanned is not asked:
 * the bar says why in place of the button (or beside it, when others can be asked). The selection is cleared once asked.
 */
export function RefundSelectedButton({ orders, onDone }: { orders: Order[]; onDone: () => void }) {
  const byId = new Map(orders.map((order) => [order._id, order]));
  const refund = useRefundOrders((id) => {
    const order = byId.get(id);
    return order ? labelName(order) : id.slice(0, 8).toUpperCase();
  });
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  const blocked = orders.flatMap((order) => {
    const why = refundBlocked(order);
    return why ? [{ order, why }] : [];
  });
  const ids = orders.filter((order) => !refundBlocked(order)).map((order) => order._id);
  const ask = () =>
    setConfirmation({
      title: 'Request refund',
      body: `Refund ${ids.length === 1 ? 'this label' : `these ${ids.length} labels`}? They can no longer be used.`,
      confirmLabel: 'Request refund',
      variant: 'danger',
      run: (done) =>
        refund.mutate(ids, {
          onSuccess: () => {
            done();
            onDone();
          },
        }),
    });
  return (
    <>
      {ids.length > 0 && (
        <Button size="sm" variant="outline-danger" onClick={ask}>
          Request refund{blocked.length > 0 ? ` (${ids.length})` : ''}
        </Button>
      )}
      {blocked.length > 0 && (
        <span className="small text-muted" data-testid="refund-blocked">
          {orders.length === 1 ? blocked[0]!.why : blocked.map(({ order, why }) => `${order.OrderId}: ${why}`).join('; ')}
        </span>
      )}
      <ConfirmModal confirmation={confirmation} busy={refund.isPending} onClose={() => setConfirmation(null)} />
    </>
  );
}
