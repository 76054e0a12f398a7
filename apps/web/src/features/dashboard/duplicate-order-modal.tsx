import { useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Modal, Spinner } from 'react-bootstrap';
import { toast } from '../../components/toast.tsx';
import type { Order } from '@portal/contract';
import { errorMessage } from '../../api/client.ts';
import { useCurrentUser } from '../../api/current-user.ts';
import { ORDERS_QUERY_KEY, duplicateOrder } from '../../api/orders.ts';
import { money } from '../../components/format.ts';
import { asyncHandler } from '../../components/async-handler.ts';

/** 'Duplicate Order': confirm, post, then the list reloads and the modal closes. */
export function DuplicateOrderModal({ order: current, onClose }: { order: Order | null; onClose: () => void }) {
  // The last order stays on screen while the modal fades out.
  const last = useRef(current);
  if (current) last.current = current;
  const order = last.current;
  const queryClient = useQueryClient();
  const { refresh } = useCurrentUser();
  const inFlight = useRef(false);
  const [busy, setBusy] = useState(false);

  const confirm = async () => {
    if (!current || inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    try {
      const { message } = await duplicateOrder(current._id);
      toast.success(message);
    } catch (error) {
      toast.error(errorMessage(error));
    } finally {
      // Also after a failure: a refused label leaves a cancelled, refunded order in the list.
      await Promise.all([queryClient.invalidateQueries({ queryKey: ORDERS_QUERY_KEY }), refresh()]);
      inFlight.current = false;
      setBusy(false);
      onClose();
    }
  };

  return (
    <Modal show={current !== null} onHide={busy ? () => undefined : onClose} centered>
      <Modal.Header closeButton={!busy}>
        <Modal.Title as="h5">Duplicate Order</Modal.Title>
      </Modal.Header>
      <Modal.Body>
        {order && (
          <>
            <p className="mb-2">
              Create a new order with the same details as order <strong>{order.OrderId}</strong>?
            </p>
            <p className="mb-2">
              {order.labelType.name}, {order.fromName} to {order.toName}.
            </p>
            <p className="mb-0 text-muted small">It is priced again and charged to your balance (last time {money(order.price)}).</p>
          </>
        )}
      </Modal.Body>
      <Modal.Footer>
        <Button variant="secondary" onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button variant="primary" onClick={asyncHandler(confirm)} disabled={busy}>
          {busy && <Spinner animation="border" size="sm" className="me-2" />}
          Duplicate
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
