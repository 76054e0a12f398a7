import { useLayoutEffect } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Card, Col, Form, Row, Spinner } from 'react-bootstrap';
import { toast } from '../../../components/toast.tsx';
import DOMPurify from 'dompurify';
import { errorMessage } from '../../../api/client.ts';
import { ADMIN_QUERY_KEY, updateTos } from '../api.ts';
import { asyncHandler } from '../../../components/async-handler.ts';

/** The terms of service as HTML, beside a preview sanitized the way the Terms page shows it; the server sanitizes again on save. */
export function TermsCard({ tos }: { tos: string }) {
  const queryClient = useQueryClient();
  const { register, handleSubmit, reset, control, formState } = useForm<{ tos: string }>({ defaultValues: { tos } });
  // Before a refetched text is painted, so nothing typed after it is cleared.
  useLayoutEffect(() => reset({ tos }), [tos, reset]);
  const html = useWatch({ control, name: 'tos' });

  const onSubmit = handleSubmit(async (values) => {
    try {
      const saved = await updateTos(values.tos);
      toast.success(saved.message);
      reset({ tos: saved.tos });
      await Promise.all([ADMIN_QUERY_KEY, ['tos']].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    } catch (error) {
      toast.error(errorMessage(error));
    }
  });

  return (
    <Card className="mb-4">
      <Card.Header as="h6">Terms of service</Card.Header>
      <Card.Body>
        <Form onSubmit={asyncHandler(onSubmit)} noValidate aria-label="Terms of service">
          <Row className="g-3">
            <Col lg={6}>
              <Form.Group controlId="tos-html">
                <Form.Label>HTML</Form.Label>
                <Form.Control as="textarea" rows={16} className="font-monospace small" {...register('tos')} />
              </Form.Group>
            </Col>
            <Col lg={6}>
              <div className="form-label">Preview</div>
              <div className="border rounded p-3 bg-white tos-content" style={{ maxHeight: 420, overflowY: 'auto' }} data-testid="tos-preview" dangerouslySetInnerHTML={{ __html: DOMPurify.sanitize(html ?? '') }} />
            </Col>
          </Row>
          <Button type="submit" size="sm" className="mt-3" disabled={formState.isSubmitting}>
            {formState.isSubmitting && <Spinner animation="border" size="sm" className="me-2" />}
            Save terms
          </Button>
        </Form>
      </Card.Body>
    </Card>
  );
}
