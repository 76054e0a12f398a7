import { useLayoutEffect, useRef } from 'react';
import { useForm } from 'react-hook-form';
import { Button, Form, Modal, Spinner } from 'react-bootstrap';
import {
  FEDEX_LABEL_MAX_BYTES,
  FEDEX_LABEL_NOT_PDF,
  FEDEX_LABEL_TOO_LARGE,
  FEDEX_NOTES_MAX,
  cancelFedexOrderBody,
  type AdminFedexOrder,
} from '@portal/contract';
import { money } from '../../../components/format.ts';
import { useFedexQueueAction } from '../../../api/admin.ts';

export type FedexAction = { kind: 'complete' | 'cancel'; order: AdminFedexOrder };

const LABEL_MISSING = 'Choose the label PDF';

/** The label file's problem, checked before the upload; the server checks it again. */
function labelProblem(files: FileList | undefined): string | true {
  const file = files?.[0];
  if (!file) return LABEL_MISSING;
  if (file.type !== 'application/pdf' && !file.name.toLowerCase().endsWith('.pdf')) return FEDEX_LABEL_NOT_PDF;
  if (file.size > FEDEX_LABEL_MAX_BYTES) return FEDEX_LABEL_TOO_LARGE;
  return true;
}

/** Cancel's note is required: the contract's rule and message. */
function cancelNoteProblem(note: string): string | true {
  const parsed = cancelFedexOrderBody.safeParse({ note });
  return parsed.success || parsed.error.issues[0]!.message;
}

type Fields = { note: string; label?: FileList };

/**
 * Complete (upload the label PDF, optional note) or Cancel (required note; the server refunds the
 * price) a pending order. The server's message is the toast, a 409 (someone was first) too; the
 * queue reloads either way.
 */
export function FedexActionModal({ action: current, onClose }: { action: FedexAction | null; onClose: () => void }) {
  // The last order stays on screen while the modal fades out.
  const last = useRef(current);
  if (current) last.current = current;
  const action = last.current;
  const completing = action?.kind === 'complete';
  const queueAction = useFedexQueueAction();
  const busy = queueAction.isPending;
  const { register, handleSubmit, reset, formState } = useForm<Fields>({ defaultValues: { note: '' } });
  // Before the modal is painted, so nothing typed into it is cleared.
  useLayoutEffect(() => {
    if (current) reset({ note: '' });
  }, [current, reset]);

  const onSubmit = handleSubmit(({ note, label }) => {
    if (!current) return;
    const orderId = current.order._id;
    queueAction.mutate(current.kind === 'complete' ? { kind: 'complete', orderId, label: label![0]!, note: note.trim() } : { kind: 'cancel', orderId, note }, {
      onSuccess: onClose,
    });
  });
  const { errors } = formState;

  return (
    <Modal show={current !== null} onHide={busy ? () => undefined : onClose} centered>
      <Form onSubmit={(event) => void onSubmit(event)} noValidate aria-label={completing ? 'Complete FedEx order' : 'Cancel FedEx order'}>
        <Modal.Header closeButton={!busy}>
          <Modal.Title as="h5">{completing ? 'Complete FedEx order' : 'Cancel FedEx order'}</Modal.Title>
        </Modal.Header>
        <Modal.Body>
          {action && (
            <p>
              Order <strong className="font-monospace">{action.order.uuid}</strong> of @{action.order.owner.tgId}
              {completing
                ? ': the customer can download the label once it is uploaded.'
                : `: its price, ${money(action.order.price)}, goes back to the customer's balance.`}
            </p>
          )}
          {completing && (
            <Form.Group controlId="fedex-label" className="mb-3">
              <Form.Label>Label PDF</Form.Label>
              <Form.Control type="file" accept="application/pdf,.pdf" isInvalid={!!errors.label} {...register('label', { validate: labelProblem })} />
              <Form.Control.Feedback type="invalid">{errors.label?.message}</Form.Control.Feedback>
              <Form.Text>At most {FEDEX_LABEL_MAX_BYTES / 1024 / 1024} MB.</Form.Text>
            </Form.Group>
          )}
          <Form.Group controlId="fedex-action-note">
            <Form.Label>{completing ? 'Note (optional)' : 'Note'}</Form.Label>
            <Form.Control
              as="textarea"
              rows={2}
              maxLength={FEDEX_NOTES_MAX}
              isInvalid={!!errors.note}
              {...register('note', { validate: (note) => completing || cancelNoteProblem(note) })}
            />
            <Form.Control.Feedback type="invalid">{errors.note?.message}</Form.Control.Feedback>
            <Form.Text>The customer sees it as the Status Note.</Form.Text>
          </Form.Group>
        </Modal.Body>
        <Modal.Footer>
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            Close
          </Button>
          <Button type="submit" variant={completing ? 'success' : 'danger'} disabled={busy}>
            {busy && <Spinner animation="border" size="sm" className="me-2" />}
            {completing ? 'Complete order' : 'Cancel and refund'}
          </Button>
        </Modal.Footer>
      </Form>
    </Modal>
  );
}
