import { useLayoutEffect, useRef } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Form, Modal, Spinner } from 'react-bootstrap';
import { toast } from '../../../components/toast.tsx';
import { cancelOrderBody } from '@portal/contract';
import { errorMessage } from '../../../api/client.ts';
import { money } from '../../../components/format.ts';
import { ADMIN_QUERY_KEY, cancelAdminOrder } from '../api.ts';
import { asyncHandler } from '../../../components/async-handler.ts';

export type CancellableOrder = { _id: string; OrderId: string; price: number; owner: { tgId: string } };

/** Cancels an order still pending or processing, with a required reason; the server refunds its price. */
export function CancelOrderModal({ order: current, onClose }: { order: CancellableOrder | null; onClose: () => void }) {
  const last = useRef(current);
  if (current) last.current = current;
  const order = last.current;
  const queryClient = useQueryClient();
  const { register, handleSubmit, reset, formState } = useForm<{ reason: string }>({ resolver: zodResolver(cancelOrderBody), defaultValues: { reason: '' } });
  // Before the modal is painted, so nothing typed into it is cleared.
  useLayoutEffect(() => {
    if (current) reset({ reason: '' });
  }, [current, reset]);

  const onSubmit = handleSubmit(async ({ reason }) => {
    if (!current) return;
    try {
      const { message } = await cancelAdminOrder(current._id, reason);
      toast.success(message);
      onClose();
    } catch (error) {
      toast.error(errorMessage(error));
    } finally {
      // Also after a refusal: the order may have changed meanwhile.
      await queryClient.invalidateQueries({ queryKey: ADMIN_QUERY_KEY });
    }
  });
  const busy = formState.isSubmitting;

  return (
    <Modal show={current !== null} onHide={busy ? () => undefined : onClose} centered>
      <Form onSubmit={asyncHandler(onSubmit)} noValidate>
        <Modal.Header closeButton={!busy}>
          <Modal.Title as="h5">Cancel order</Modal.Title>
        </Modal.Header>
        <Modal.Body>
          {order && (
            <p>
              Cancel order <strong className="font-monospace">{order.OrderId}</strong> of @{order.owner.tgId}? Its price, {money(order.price)}, goes back to the customer's balance.
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
