import { useState } from 'react';
import { Button } from 'react-bootstrap';
import { useRefundOrders } from '../../api/orders.ts';

/**
 * 'Request refund' of the selected orders, asked twice (a refunded label can no longer be used); each order is
 * answered on its own, and the toast says which were refused and why. The selection is cleared once asked.
 */
export function RefundSelectedButton({ ids, onDone }: { ids: string[]; onDone: () => void }) {
  const refund = useRefundOrders();
  const [confirming, setConfirming] = useState(false);
  if (!confirming)
    return (
      <Button size="sm" variant="outline-danger" onClick={() => setConfirming(true)}>
        Request refund
      </Button>
    );
  return (
    <span className="d-inline-flex align-items-center gap-2 small" data-testid="refund-confirm">
      Refund {ids.length === 1 ? 'this label' : `these ${ids.length} labels`}? They can no longer be used.
      <Button
        size="sm"
        variant="danger"
        disabled={refund.isPending}
        onClick={() =>
          refund.mutate(ids, {
            onSuccess: () => {
              setConfirming(false);
              onDone();
            },
          })
        }
      >
        Yes, request refund
      </Button>
      <Button size="sm" variant="outline-secondary" onClick={() => setConfirming(false)}>
        Cancel
      </Button>
    </span>
  );
}
