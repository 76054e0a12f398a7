import { useEffect, useLayoutEffect } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Form, InputGroup, Spinner } from 'react-bootstrap';
import { toast } from '../../../components/toast.tsx';
import { fedexPriceBody } from '@portal/contract';
import { errorMessage } from '../../../api/client.ts';
import { money } from '../../../components/format.ts';
import { ADMIN_QUERY_KEY, adminKey, readFedexPrice, updateFedexPrice } from '../api.ts';
import { asyncHandler } from '../../../components/async-handler.ts';

/** /admin/fedex-price: the one flat price of a FedEx hand-made order. */
export function FedexPricePage() {
  const queryClient = useQueryClient();
  const current = useQuery({ queryKey: adminKey('fedex-price'), queryFn: readFedexPrice, refetchOnMount: 'always' });
  const { register, handleSubmit, reset, formState } = useForm<{ price: unknown }, unknown, { price: number }>({ resolver: zodResolver(fedexPriceBody), defaultValues: { price: '' } });
  // Before the price is painted, so nothing typed into the field is cleared.
  useLayoutEffect(() => {
    if (current.data) reset({ price: current.data.price.toFixed(2) });
  }, [current.data, reset]);
  useEffect(() => {
    if (current.error) toast.error(errorMessage(current.error));
  }, [current.error]);

  const onSubmit = handleSubmit(async ({ price }) => {
    try {
      const saved = await updateFedexPrice(price);
      toast.success(`FedEx hand-made price saved: ${money(saved.price)}`);
      await queryClient.invalidateQueries({ queryKey: ADMIN_QUERY_KEY });
    } catch (error) {
      toast.error(errorMessage(error));
    }
  });

  return (
    <Card style={{ maxWidth: 520 }}>
      <Card.Header>
        <h2 className="h6 mb-0">FedEx hand-made price</h2>
      </Card.Header>
      <Card.Body>
        <p className="small text-muted">Every FedEx hand-made order costs this flat price. New orders only; orders already placed keep theirs.</p>
        <p>
          Current price: <strong data-testid="fedex-price">{current.data ? money(current.data.price) : '…'}</strong>
        </p>
        <Form onSubmit={asyncHandler(onSubmit)} noValidate>
          <Form.Group controlId="fedex-price-input" className="mb-3">
            <Form.Label>New price</Form.Label>
            <InputGroup hasValidation>
              <InputGroup.Text>$</InputGroup.Text>
              <Form.Control type="number" step="0.01" min="0.01" isInvalid={!!formState.errors.price} {...register('price')} />
              <Form.Control.Feedback type="invalid">{formState.errors.price?.message}</Form.Control.Feedback>
            </InputGroup>
          </Form.Group>
          <Button type="submit" disabled={formState.isSubmitting || current.isPending}>
            {formState.isSubmitting && <Spinner animation="border" size="sm" className="me-2" />}
            Save price
          </Button>
        </Form>
      </Card.Body>
    </Card>
  );
}
