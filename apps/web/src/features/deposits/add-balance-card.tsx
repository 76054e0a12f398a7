import { useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Button, Card, Form, InputGroup, Spinner } from 'react-bootstrap';
import {
  BONUS_TIERS,
  DEPOSIT_MAX,
  DEPOSIT_MIN,
  bonusCents,
  bonusPercent,
  centsToDollars,
  createInvoiceBody,
  dollarsToCents,
  paymentMethodLabel,
  PAYMENT_METHODS,
  type CreateInvoiceBody,
  type PaymentMethod,
} from '@portal/contract';
import { useCreateInvoice } from '../../api/billing.ts';
import { money } from '../../components/format.ts';

/** The form holds the field's text; the contract's schema turns it into the number the call sends. */
type FormOutput = { amount: number; type: PaymentMethod };

const usd = (dollars: number) => `$${dollars.toLocaleString('en-US')}`;
/** The tiers from lowest to highest, as the notice reads them. */
const TIERS_ASCENDING = [...BONUS_TIERS].reverse();

function BonusNotice({ amount }: { amount: unknown }) {
  const dollars = Number(amount);
  const percent = amount !== '' && Number.isFinite(dollars) ? bonusPercent(dollars) : 0;
  return (
    <Alert variant="info" className="mb-3" data-testid="bonus-notice">
      <strong>Deposit bonus:</strong> {TIERS_ASCENDING.map((tier) => `above ${usd(tier.above)} get ${tier.percent}%`).join(', ')}.
      {percent > 0 && (
        <div className="mt-1 small" data-testid="bonus-preview">
          This deposit earns a {percent}% bonus: {money(centsToDollars(bonusCents(dollarsToCents(dollars), percent)))} extra.
        </div>
      )}
    </Alert>
  );
}

/** Amount and method; a valid submit creates an invoice and sends the browser to its hosted payment page. */
export function AddBalanceCard() {
  const { register, handleSubmit, control, formState } = useForm<CreateInvoiceBody, unknown, FormOutput>({
    resolver: zodResolver(createInvoiceBody),
    defaultValues: { amount: '', type: 'crypto' },
  });
  const amount = useWatch({ control, name: 'amount' });
  const invoice = useCreateInvoice();
  // After success the button stays disabled while the browser leaves for the payment page.
  const busy = invoice.isPending || invoice.isSuccess;
  const onSubmit = handleSubmit((body) => invoice.mutate(body));

  return (
    <Card className="h-100">
      <Card.Header as="h6">Add Balance</Card.Header>
      <Card.Body>
        <BonusNotice amount={amount} />
        <Form onSubmit={(event) => void onSubmit(event)} noValidate>
          <Form.Group className="mb-3" controlId="deposit-amount">
            <Form.Label>Amount</Form.Label>
            <InputGroup hasValidation>
              <InputGroup.Text>$</InputGroup.Text>
              <Form.Control
                type="number"
                inputMode="decimal"
                min={DEPOSIT_MIN}
                max={DEPOSIT_MAX}
                step="0.01"
                placeholder="Enter amount"
                required
                isInvalid={!!formState.errors.amount}
                {...register('amount')}
              />
              <Form.Control.Feedback type="invalid">{formState.errors.amount?.message}</Form.Control.Feedback>
            </InputGroup>
          </Form.Group>
          <Form.Group className="mb-3" controlId="deposit-method">
            <Form.Label>Payment Method</Form.Label>
            <Form.Select {...register('type')}>
              {PAYMENT_METHODS.map((method) => (
                <option key={method} value={method}>
                  {paymentMethodLabel(method)}
                </option>
              ))}
            </Form.Select>
          </Form.Group>
          <Button type="submit" disabled={busy}>
            {busy && <Spinner animation="border" size="sm" className="me-2" />}
            Add Balance
          </Button>
        </Form>
      </Card.Body>
    </Card>
  );
}
