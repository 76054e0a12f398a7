import { useLayoutEffect, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, ButtonGroup, Card, Form, ListGroup, Modal, Spinner } from 'react-bootstrap';
import { faqBody, type AdminContent } from '@portal/contract';
import { useDeleteFaq, useReorderFaqs, useSaveFaq, type FaqText } from '../../../api/admin.ts';
import { ConfirmModal, type Confirmation } from '../../../components/confirm-modal.tsx';

type Faq = AdminContent['faqs'][number];
/** null: closed; { faq: null }: a new FAQ; { faq }: editing that one. */
type Editing = { faq: Faq | null } | null;

function FaqModal({ editing, onClose }: { editing: Editing; onClose: () => void }) {
  const last = useRef(editing);
  if (editing) last.current = editing;
  const faq = last.current?.faq ?? null;
  const { register, handleSubmit, reset, formState } = useForm<FaqText>({ resolver: zodResolver(faqBody), defaultValues: { question: '', answer: '' } });
  // Before the modal is painted, so nothing typed into it is cleared.
  useLayoutEffect(() => {
    if (editing) reset({ question: editing.faq?.question ?? '', answer: editing.faq?.answer ?? '' });
  }, [editing, reset]);

  const save = useSaveFaq();
  const busy = save.isPending;
  const onSubmit = handleSubmit((body) => save.mutate({ faqId: faq?._id ?? null, body }, { onSuccess: onClose }));

  return (
    <Modal show={editing !== null} onHide={busy ? () => undefined : onClose} centered size="lg">
      <Form onSubmit={(event) => void onSubmit(event)} noValidate aria-label="FAQ">
        <Modal.Header closeButton={!busy}>
          <Modal.Title as="h5">{faq ? 'Edit FAQ' : 'Add FAQ'}</Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <Form.Group controlId="faq-question" className="mb-3">
            <Form.Label>Question</Form.Label>
            <Form.Control isInvalid={!!formState.errors.question} {...register('question')} />
            <Form.Control.Feedback type="invalid">{formState.errors.question?.message}</Form.Control.Feedback>
          </Form.Group>
          <Form.Group controlId="faq-answer">
            <Form.Label>Answer</Form.Label>
            <Form.Control as="textarea" rows={4} isInvalid={!!formState.errors.answer} {...register('answer')} />
            <Form.Control.Feedback type="invalid">{formState.errors.answer?.message}</Form.Control.Feedback>
          </Form.Group>
        </Modal.Body>
        <Modal.Footer>
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" disabled={busy}>
            {busy && <Spinner animation="border" size="sm" className="me-2" />}
            Save FAQ
          </Button>
        </Modal.Footer>
      </Form>
    </Modal>
  );
}

/** The FAQs customers read, in their order: add, edit, delete, move up or down. */
export function FaqsCard({ faqs }: { faqs: Faq[] }) {
  const [editing, setEditing] = useState<Editing>(null);
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  const reorder = useReorderFaqs();
  const remove = useDeleteFaq();
  const moving = reorder.isPending;
  const ordered = [...faqs].sort((a, b) => a.position - b.position);

  const move = (index: number, by: -1 | 1) => {
    const ids = ordered.map((f) => f._id);
    const [moved] = ids.splice(index, 1);
    ids.splice(index + by, 0, moved!);
    reorder.mutate(ids);
  };
  const askDelete = (faq: Faq) =>
    setConfirmation({
      title: 'Delete FAQ',
      body: `Delete “${faq.question}”?`,
      confirmLabel: 'Delete',
      variant: 'danger',
      run: (done) => remove.mutate(faq._id, { onSuccess: done }),
    });

  return (
    <Card className="mb-4">
      <Card.Header className="d-flex align-items-center">
        <h6 className="mb-0 me-auto">FAQs</h6>
        <Button size="sm" onClick={() => setEditing({ faq: null })}>
          Add FAQ
        </Button>
      </Card.Header>
      <ListGroup variant="flush" data-testid="admin-faqs">
        {ordered.length === 0 && <ListGroup.Item className="text-muted">No FAQs yet</ListGroup.Item>}
        {ordered.map((faq, index) => (
          <ListGroup.Item key={faq._id} className="d-flex gap-3 align-items-start" data-testid="admin-faq">
            <div className="me-auto">
              <div className="fw-semibold" data-testid="faq-question">
                {faq.question}
              </div>
              <div className="small text-muted" style={{ whiteSpace: 'pre-wrap' }}>
                {faq.answer}
              </div>
            </div>
            <ButtonGroup size="sm">
              <Button variant="outline-secondary" aria-label={`Move up: ${faq.question}`} disabled={moving || index === 0} onClick={() => move(index, -1)}>
                ↑
              </Button>
              <Button
                variant="outline-secondary"
                aria-label={`Move down: ${faq.question}`}
                disabled={moving || index === ordered.length - 1}
                onClick={() => move(index, 1)}
              >
                ↓
              </Button>
              <Button variant="outline-primary" onClick={() => setEditing({ faq })}>
                Edit
              </Button>
              <Button variant="outline-danger" onClick={() => askDelete(faq)}>
                Delete
              </Button>
            </ButtonGroup>
          </ListGroup.Item>
        ))}
      </ListGroup>
      <FaqModal editing={editing} onClose={() => setEditing(null)} />
      <ConfirmModal confirmation={confirmation} busy={remove.isPending} onClose={() => setConfirmation(null)} />
    </Card>
  );
}
