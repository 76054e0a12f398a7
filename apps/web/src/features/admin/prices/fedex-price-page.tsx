import { useLayoutEffect } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Form, InputGroup, Spinner } from 'react-bootstrap';
import { fedexPriceBody } from '@portal/contract';
import { money } from '../../../components/format.ts';
import { LoadError } from '../../../components/load-error.tsx';
import { adminFedexPriceQuery, useUpdateFedexPrice } from '../../../api/admin.ts';

/** /admin/fedex-price: the one flat price of a FedEx hand-made order. */
export function FedexPricePage() {
  const current = useQuery({ ...adminFedexPriceQuery(), refetchOnMount: 'always' });
  const { register, handleSubmit, reset, formState } = useForm<{ price: unknown }, unknown, { price: number }>({
    resolver: zodResolver(fedexPriceBody),
    defaultValues: { price: '' },
  });
  // Before the price is painted, so nothing typed into the field is cleared.
  useLayoutEffect(() => {
    if (current.data) reset({ price: current.data.price.toFixed(2) });
  }, [current.data, reset]);
  const update = useUpdateFedexPrice();
  const onSubmit = handleSubmit(({ price }) => update.mutate(price));

  return (
    <Card style={{ maxWidth: 520 }}>
      <Card.Header>
        <h2 className="h6 mb-0">FedEx hand-made price</h2>
      </Card.Header>
      <Card.Body>
        <LoadError query={current} what="the price" />
        <p className="small text-muted">Every FedEx hand-made order costs this flat price. New orders only; orders already placed keep theirs.</p>
        <p>
          Current price: <strong data-testid="fedex-price">{current.data ? money(current.data.price) : '…'}</strong>
        </p>
        <Form onSubmit={(event) => void onSubmit(event)} noValidate>
          <Form.Group controlId="fedex-price-input" className="mb-3">
            <Form.Label>New price</Form.Label>
            <InputGroup hasValidation>
              <InputGroup.Text>$</InputGroup.Text>
              <Form.Control type="number" step="0.01" min="0.01" isInvalid={!!formState.errors.price} {...register('price')} />
              <Form.Control.Feedback type="invalid">{formState.errors.price?.message}</Form.Control.Feedback>
            </InputGroup>
          </Form.Group>
          <Button type="submit" disabled={update.isPending || current.isPending}>
            {update.isPending && <Spinner animation="border" size="sm" className="me-2" />}
            Save price
          </Button>
        </Form>
      </Card.Body>
    </Card>
  );
}
