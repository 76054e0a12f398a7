import { useRef } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Card, Col, Form, InputGroup, Row, Spinner } from 'react-bootstrap';
import { adjustBalanceBody, type AdjustBalanceBody } from '@portal/contract';
import { useAdjustBalance } from '../../../api/admin.ts';

type Adjustment = { direction: 'credit' | 'debit'; amount: number; reason: string };

/** A fresh idempotency key: 16 random bytes in hex (crypto.randomUUID needs a secure context; a shop may be opened over plain http). */
const newKey = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

/** Credit or debit with a required reason. The server refuses a debit below zero; its message shows in a toast. */
export function AdjustBalanceForm({ userId }: { userId: string }) {
  const { register, handleSubmit, reset, formState } = useForm<AdjustBalanceBody, unknown, Adjustment>({
    resolver: zodResolver(adjustBalanceBody),
    defaultValues: { direction: 'credit', amount: '', reason: '' },
  });

  /**
   * One idempotency key per submission: a submission sent again as it was (its answer lost, or a second click) keeps
   * its key, so the customer is credited once; once it succeeded, or with other values, the next gets a new key.
   */
  const submission = useRef<{ values: string; key: string } | null>(null);
  const adjust = useAdjustBalance();
  const busy = adjust.isPending;
  const onSubmit = handleSubmit((body) => {
    const values = JSON.stringify(body);
    if (submission.current?.values !== values) submission.current = { values, key: newKey() };
    adjust.mutate(
      { userId, body, key: submission.current.key },
      {
        onSuccess: () => {
          submission.current = null;
          reset({ direction: body.direction, amount: '', reason: '' });
        },
      },
    );
  });

  return (
    <Card className="h-100">
      <Card.Header as="h6">Credit or debit</Card.Header>
      <Card.Body>
        <Form onSubmit={(event) => void onSubmit(event)} noValidate aria-label="Credit or debit">
          <Row className="g-2 mb-2">
            <Col xs={5}>
              <Form.Group controlId="adjust-direction">
                <Form.Label className="small">Direction</Form.Label>
                <Form.Select size="sm" {...register('direction')}>
                  <option value="credit">Credit (add)</option>
                  <option value="debit">Debit (take)</option>
                </Form.Select>
              </Form.Group>
            </Col>
            <Col xs={7}>
              <Form.Group controlId="adjust-amount">
                <Form.Label className="small">Amount</Form.Label>
                <InputGroup size="sm" hasValidation>
                  <InputGroup.Text>$</InputGroup.Text>
                  <Form.Control type="number" inputMode="decimal" step="0.01" min="0.01" isInvalid={!!formState.errors.amount} {...register('amount')} />
                  <Form.Control.Feedback type="invalid">{formState.errors.amount?.message}</Form.Control.Feedback>
                </InputGroup>
              </Form.Group>
            </Col>
          </Row>
          <Form.Group controlId="adjust-reason" className="mb-3">
            <Form.Label className="small">Reason</Form.Label>
            <Form.Control
              size="sm"
              as="textarea"
              rows={2}
              placeholder="Shown in the audit log and the ledger note"
              isInvalid={!!formState.errors.reason}
              {...register('reason')}
            />
            <Form.Control.Feedback type="invalid">{formState.errors.reason?.message}</Form.Control.Feedback>
          </Form.Group>
          <Button type="submit" size="sm" disabled={busy}>
            {busy && <Spinner animation="border" size="sm" className="me-2" />}
            Apply
          </Button>
        </Form>
      </Card.Body>
    </Card>
  );
}
