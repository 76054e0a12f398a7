import { useRef, useState, type ReactNode } from 'react';
import { Button, Modal, Spinner } from 'react-bootstrap';
import { asyncHandler } from '../../components/async-handler.ts';

export type Confirmation = {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  variant?: 'primary' | 'danger' | 'warning' | 'success';
  /** Runs the change; the modal closes when it resolves and stays open (for another try) when it throws. */
  run: () => Promise<void>;
};

/** 'Are you sure?' before a change that cannot be taken back by accident; one call for a double click. */
export function ConfirmModal({ confirmation: current, onClose }: { confirmation: Confirmation | null; onClose: () => void }) {
  // The last question stays on screen while the modal fades out.
  const last = useRef(current);
  if (current) last.current = current;
  const confirmation = last.current;
  const inFlight = useRef(false);
  const [busy, setBusy] = useState(false);

  const confirm = async () => {
    if (!current || inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    try {
      await current.run();
      onClose();
    } catch {
      // run() has told the user why.
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  };

  return (
    <Modal show={current !== null} onHide={busy ? () => undefined : onClose} centered>
      <Modal.Header closeButton={!busy}>
        <Modal.Title as="h5">{confirmation?.title}</Modal.Title>
      </Modal.Header>
      <Modal.Body>{confirmation?.body}</Modal.Body>
      <Modal.Footer>
        <Button variant="secondary" onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button variant={confirmation?.variant ?? 'primary'} onClick={asyncHandler(confirm)} disabled={busy}>
          {busy && <Spinner animation="border" size="sm" className="me-2" />}
          {confirmation?.confirmLabel}
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
