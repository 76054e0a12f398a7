import { useRef } from 'react';
import { Button, Modal, Spinner } from 'react-bootstrap';
import type { Order } from '@portal/contract';
import { useDuplicateOrder } from '../../api/orders.ts';
import { money } from '../../components/format.ts';

/** 'Duplicate Order': confirm, post, then the list reloads and the modal closes (after a refusal too). */
export function DuplicateOrderModal({ order: current, onClose }: { order: Order | null; onClose: () => void }) {
  // The last order stays on screen while the modal fades out.
  const last = useRef(current);
  if (current) last.current = current;
  const order = last.current;
  const duplicate = useDuplicateOrder();
  const busy = duplicate.isPending;

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
        <Button variant="primary" onClick={() => current && duplicate.mutate(current._id, { onSettled: onClose })} disabled={busy}>
          {busy && <Spinner animation="border" size="sm" className="me-2" />}
          Duplicate
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
