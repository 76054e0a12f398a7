import { useLayoutEffect, useRef } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Form, Modal, Spinner } from 'react-bootstrap';
import { cancelOrderBody } from '@portal/contract';
import { money } from '../../../components/format.ts';
import { useCancelAdminOrder } from '../../../api/admin.ts';

export type CancellableOrder = { _id: string; OrderId: string; price: number; owner: { tgId: string } };

/** Cancels an order still pending or processing, with a required reason; the server refunds its price (voiding first a label already bought upstream). */
export function CancelOrderModal({ order: current, onClose }: { order: CancellableOrder | null; onClose: () => void }) {
  const last = useRef(current);
  if (current) last.current = current;
  const order = last.current;
  const cancel = useCancelAdminOrder();
  const busy = cancel.isPending;
  const { register, handleSubmit, reset, formState } = useForm<{ reason: string }>({ resolver: zodResolver(cancelOrderBody), defaultValues: { reason: '' } });
  // Before the modal is painted, so nothing typed into it is cleared.
  useLayoutEffect(() => {
    if (current) reset({ reason: '' });
  }, [current, reset]);

  const onSubmit = handleSubmit(({ reason }) => current && cancel.mutate({ orderId: current._id, reason }, { onSuccess: onClose }));

  return (
    <Modal show={current !== null} onHide={busy ? () => undefined : onClose} centered>
      <Form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Modal.Header closeButton={!busy}>
          <Modal.Title as="h5">Cancel order</Modal.Title>
        </Modal.Header>
        <Modal.Body>
          {order && (
            <p>
              Cancel order <strong className="font-monospace">{order.OrderId}</strong> of @{order.owner.tgId}? Its price, {money(order.price)}, goes back to the
              customer's balance. If the label was already bought upstream, it is voided first, and the price goes back once the carrier accepts the void.
            </p>
          )}
          <Form.Group controlId="cancel-reason">
            <Form.Label>Reason</Form.Label>
            <Form.Control as="textarea" rows={2} isInvalid={!!formState.errors.reason} {...register('reason')} />
            <Form.Control.Feedback type="invalid">{formState.errors.reason?.message}</Form.Control.Feedback>
          </Form.Group>
        </Modal.Body>
        <Modal.Footer>
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            Keep order
          </Button>
          <Button type="submit" variant="danger" disabled={busy}>
            {busy && <Spinner animation="border" size="sm" className="me-2" />}
            Cancel and refund
          </Button>
        </Modal.Footer>
      </Form>
    </Modal>
  );
}
