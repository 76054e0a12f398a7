import { useState } from 'react';
import { Button } from 'react-bootstrap';
import { useRefundOrders } from '../../api/orders.ts';
import { ConfirmModal, type Confirmation } from '../../components/confirm-modal.tsx';

/**
 * 'Request refund' of the selected orders, asked twice (a refunded label can no longer be used); each order is
 * answered on its own, and the toast says which were refused and why. The selection is cleared once asked.
 */
export function RefundSelectedButton({ ids, onDone }: { ids: string[]; onDone: () => void }) {
  const refund = useRefundOrders();
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
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
      <Button size="sm" variant="outline-danger" onClick={ask}>
        Request refund
      </Button>
      <ConfirmModal confirmation={confirmation} busy={refund.isPending} onClose={() => setConfirmation(null)} />
    </>
  );
}
