import { useRef, type ReactNode } from 'react';
import { Button, Modal, Spinner } from 'react-bootstrap';

export type Confirmation = {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  /** The way back; 'Cancel' unless the question reads better with another word ('Stay'). */
  cancelLabel?: string;
  variant?: 'primary' | 'danger' | 'warning' | 'success';
  /** Starts the change (a mutation, which refuses a second call while one is on its way); `done` closes the modal once it succeeds. A refusal leaves it open for another try. */
  run: (done: () => void) => void;
};

/**
 * 'Are you sure?' before a change that cannot be taken back by accident: the one confirmation of every screen (no
 * window.confirm, no modal of its own). `busy` is the change's pending state.
 */
export function ConfirmModal({ confirmation: current, busy, onClose }: { confirmation: Confirmation | null; busy: boolean; onClose: () => void }) {
  // The last question stays on screen while the modal fades out.
  const last = useRef(current);
  if (current) last.current = current;
  const confirmation = last.current;

  return (
    <Modal show={current !== null} onHide={busy ? () => undefined : onClose} centered data-testid="confirm-modal">
      <Modal.Header closeButton={!busy}>
        <Modal.Title as="h5">{confirmation?.title}</Modal.Title>
      </Modal.Header>
      <Modal.Body>{confirmation?.body}</Modal.Body>
      <Modal.Footer>
        <Button variant="secondary" onClick={onClose} disabled={busy}>
          {confirmation?.cancelLabel ?? 'Cancel'}
        </Button>
        <Button variant={confirmation?.variant ?? 'primary'} onClick={() => current?.run(onClose)} disabled={busy}>
          {busy && <Spinner animation="border" size="sm" className="me-2" />}
          {confirmation?.confirmLabel}
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
