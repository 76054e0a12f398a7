import type { Order } from '@portal/contract';
import { useDuplicateOrder } from '../../api/orders.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { money } from '../../components/format.ts';

/** 'Duplicate Order': confirm, post, then the list reloads and the modal closes (after a refusal too). */
export function DuplicateOrderModal({ order, onClose }: { order: Order | null; onClose: () => void }) {
  const duplicate = useDuplicateOrder();
  return (
    <ConfirmModal
      confirmation={
        order && {
          title: 'Duplicate Order',
          body: (
            <>
              <p className="mb-2">
                Create a new order with the same details as order <strong>{order.OrderId}</strong>?
              </p>
              <p className="mb-2">
                {order.labelType.name}, {order.fromName} to {order.toName}.
              </p>
              <p className="mb-0 text-muted small">It is priced again and charged to your balance (last time {money(order.price)}).</p>
            </>
          ),
          confirmLabel: 'Duplicate',
          run: (done) => duplicate.mutate(order._id, { onSettled: done }),
        }
      }
      busy={duplicate.isPending}
      onClose={onClose}
    />
  );
}
