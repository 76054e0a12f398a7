import { useLayoutEffect } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { Button, Card, Col, Form, Row, Spinner } from 'react-bootstrap';
import DOMPurify from 'dompurify';
import { useUpdateTos } from '../../../api/admin.ts';

/** The terms of service as HTML, beside a preview sanitized the way the Terms page shows it; the server sanitizes again on save. */
export function TermsCard({ tos }: { tos: string }) {
  const { register, handleSubmit, reset, control } = useForm<{ tos: string }>({ defaultValues: { tos } });
  // Before a refetched text is painted, so nothing typed after it is cleared.
  useLayoutEffect(() => reset({ tos }), [tos, reset]);
  const html = useWatch({ control, name: 'tos' });

  const update = useUpdateTos();
  // The field shows the terms as the server kept them (sanitized).
  const onSubmit = handleSubmit((values) => update.mutate(values.tos, { onSuccess: (saved) => reset({ tos: saved.tos }) }));

  return (
    <Card className="mb-4">
      <Card.Header as="h6">Terms of service</Card.Header>
      <Card.Body>
        <Form onSubmit={(event) => void onSubmit(event)} noValidate aria-label="Terms of service">
          <Row className="g-3">
            <Col lg={6}>
              <Form.Group controlId="tos-html">
                <Form.Label>HTML</Form.Label>
                <Form.Control as="textarea" rows={16} className="font-monospace small" {...register('tos')} />
              </Form.Group>
            </Col>
            <Col lg={6}>
              <div className="form-label">Preview</div>
              <div
                className="border rounded p-3 bg-white tos-content"
                style={{ maxHeight: 420, overflowY: 'auto' }}
                data-testid="tos-preview"
                dangerouslySetInnerHTML={{ __html: DOMPurify.sanitize(html ?? '') }}
              />
            </Col>
          </Row>
          <Button type="submit" size="sm" className="mt-3" disabled={update.isPending}>
            {update.isPending && <Spinner animation="border" size="sm" className="me-2" />}
            Save terms
          </Button>
        </Form>
      </Card.Body>
    </Card>
  );
}
