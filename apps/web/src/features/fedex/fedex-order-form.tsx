import { useEffect, type KeyboardEvent, type ReactNode } from 'react';
import { get, useForm, useWatch, type FieldError, type Path, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Col, Form, Row, Spinner } from 'react-bootstrap';
import {
  DEFAULT_FEDEX_CURRENCY,
  DEFAULT_SHIPMENT_PURPOSE,
  DIMENSION_UNITS,
  PICKUP_DAYS_AHEAD,
  PICKUP_LATEST_START,
  PICKUP_WINDOW_HOURS,
  WEIGHT_UNITS,
  createFedexOrderBody,
  isPickupTime,
  pickupAddressTimeZone,
  pickupDateRange,
  regionIdFor,
  pickupAddressSchema,
  pickupEndTime,
  pickupProblem,
  type CreateFedexOrderInput,
} from '@portal/contract';
import { ApiError } from '../../api/client.ts';
import { fedexPriceQuery, useCreateFedexOrder } from '../../api/fedex.ts';
import { AddressFields, type AddressKey, type FedexForm } from './address-fields.tsx';
import { EMPTY_ITEM, InvoiceItemsFields } from './invoice-items-fields.tsx';
import { useUnsavedInputPrompt } from '../../components/unsaved-input.tsx';
import { formatClock, money } from '../../components/format.ts';

/** The browser's time zone: the pickup's when its address does not tell. */
const BROWSER_TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

const ADDRESS_KEYS = ['name', 'street', 'street2', 'city', 'state', 'zip', 'phone', 'email', 'country'] as const;
const capitalized = (key: string) => key[0]!.toUpperCase() + key.slice(1);
/** fromName, fromStreet, ... (or toName, ...) for each address line. */
const sideNames = (side: 'from' | 'to') =>
  Object.fromEntries(ADDRESS_KEYS.map((key) => [key, `${side}${capitalized(key)}`])) as Record<AddressKey, Path<FedexForm>>;
/** The pickup's address lines (all but email), which 'Same as sender' copies from the sender's. */
const PICKUP_KEYS = ADDRESS_KEYS.filter((key) => key !== 'email');

const PICKUP_NAMES = Object.fromEntries(PICKUP_KEYS.map((key) => [key, `pickupInfo.${key}`])) as Partial<Record<AddressKey, Path<FedexForm>>>;

const emptySide = (side: 'from' | 'to') => Object.fromEntries(ADDRESS_KEYS.map((key) => [`${side}${capitalized(key)}`, '']));

/** Today is counted in the browser's zone, which the server checks the pickup date against. */
const defaultValues = (): FedexForm =>
  ({
    ...(emptySide('from') as object),
    ...(emptySide('to') as object),
    weight: '',
    length: '',
    width: '',
    height: '',
    weightUnit: 'lbs',
    dimensionUnit: 'inch',
    specialNotes: '',
    signature: false,
    pickup: false,
    pickupDate: '',
    pickupTime: '',
    timeZone: BROWSER_TIME_ZONE,
    pickupInfo: { name: '', street: '', street2: '', city: '', state: '', zip: '', phone: '', country: '' },
    invoiceItems: [{ ...EMPTY_ITEM }],
    shipmentPurpose: DEFAULT_SHIPMENT_PURPOSE,
    currency: DEFAULT_FEDEX_CURRENCY,
  }) as FedexForm;

const contractResolver = zodResolver(createFedexOrderBody);

/**
 * The contract's rules. It checks the pickup only once every field has the right type, so while
 * another field is still empty the pickup's own problems are added here, to be marked at once.
 */
const resolver: Resolver<FedexForm, unknown, CreateFedexOrderInput> = async (values, context, options) => {
  const result = await contractResolver(values, context, options);
  if (!values.pickup || Object.keys(result.errors).length === 0) return result;
  const errors: Record<string, unknown> = { ...result.errors };
  const mark = (target: Record<string, unknown>, key: string, message: string) => {
    target[key] ??= { type: 'custom', message } satisfies FieldError;
  };
  const problem = pickupProblem(values);
  if (problem) mark(errors, problem.path, problem.message);
  const address = pickupAddressSchema.safeParse(values.pickupInfo ?? {});
  if (!address.success) {
    const pickupInfo: Record<string, unknown> = { ...(errors.pickupInfo as object) };
    for (const issue of address.error.issues) mark(pickupInfo, String(issue.path[0]), issue.message);
    errors.pickupInfo = pickupInfo;
  }
  return { values: {}, errors: errors as typeof result.errors };
};

/** The Enter key never submits the form (a textarea still takes new lines, a focused button still works). */
function blockEnterSubmit(event: KeyboardEvent<HTMLFormElement>) {
  const target = event.target as HTMLElement;
  if (event.key === 'Enter' && target.tagName === 'INPUT') event.preventDefault();
}

/** The flat price, loaded on entry; a failed lookup is logged and the price is 0. */
function useFedexPrice(): number {
  const query = useQuery({ ...fedexPriceQuery(), refetchOnMount: 'always' });
  useEffect(() => {
    if (query.error) console.error('Failed to look up the FedEx price', query.error);
  }, [query.error]);
  return query.data?.price ?? 0;
}

function Section({ title, children, testId }: { title: string; children: ReactNode; testId: string }) {
  return (
    <Card className="mb-3" data-testid={testId}>
      <Card.Header as="h6">{title}</Card.Header>
      <Card.Body>{children}</Card.Body>
    </Card>
  );
}

/** Create Order: the FedEx order with its commercial invoice, paid at the flat price. */
export function FedexOrderForm({ onCreated }: { onCreated: () => void }) {
  const price = useFedexPrice();
  const create = useCreateFedexOrder();
  const busy = create.isPending;
  const { register, handleSubmit, control, trigger, setValue, getValues, formState } = useForm<FedexForm, unknown, CreateFedexOrderInput>({
    resolver,
    defaultValues: defaultValues(),
  });
  const { errors } = formState;
  // Leaving the page with input not sent asks first (once sent, the form gives way to the Orders tab).
  const leavePrompt = useUnsavedInputPrompt(formState.isDirty);
  const [pickup, pickupTime, timeZone, pickupCountry, pickupState] = useWatch({
    control,
    name: ['pickup', 'pickupTime', 'timeZone', 'pickupInfo.country', 'pickupInfo.state'],
  });
  // A pickup happens at the pickup address: its day and window are counted in that address's zone (state or
  // country), in the browser's when the address does not tell.
  const addressZone = pickupAddressTimeZone(String(pickupCountry ?? ''), regionIdFor(String(pickupState ?? '')) ?? String(pickupState ?? ''));
  const zone = addressZone ?? BROWSER_TIME_ZONE;
  useEffect(() => {
    if (timeZone !== zone) setValue('timeZone', zone);
  }, [zone, timeZone, setValue]);
  const range = pickupDateRange(String(timeZone ?? '')) ?? undefined;
  // The pickup is most often at the sender's: its address lines are copied in one click (and checked again once the form was sent).
  const pickupFromSender = () => {
    const sender = sideNames('from');
    for (const key of PICKUP_KEYS)
      setValue(`pickupInfo.${key}` as Path<FedexForm>, String(getValues(sender[key]) ?? ''), { shouldDirty: true, shouldValidate: formState.isSubmitted });
  };
  const message = (name: Path<FedexForm>) => (get(errors, name) as { message?: string } | undefined)?.message;

  const submit = handleSubmit((order) =>
    create.mutate(order, {
      onSuccess: onCreated,
      // A rule that changed since the form was checked (the pickup day may have rolled over) is marked on its field.
      onError: (error) => {
        if (error instanceof ApiError && error.status === 400) void trigger();
      },
    }),
  );

  const numberField = (name: 'weight' | 'length' | 'width' | 'height', label: string) => (
    <Form.Group controlId={`fedex-${name}`}>
      <Form.Label>{label}</Form.Label>
      <Form.Control type="number" inputMode="decimal" min={0} step="any" isInvalid={!!message(name)} {...register(name)} />
      <Form.Control.Feedback type="invalid">{message(name)}</Form.Control.Feedback>
    </Form.Group>
  );

  return (
    <Form onSubmit={(event) => void submit(event)} onKeyDown={blockEnterSubmit} noValidate data-testid="fedex-order-form">
      <Row className="g-3">
        <Col lg={6}>
          <Section title="Sender" testId="fedex-sender-card">
            <AddressFields idPrefix="fedex-from" names={sideNames('from')} control={control} register={register} errors={errors} />
          </Section>
        </Col>
        <Col lg={6}>
          <Section title="Receiver" testId="fedex-receiver-card">
            <AddressFields idPrefix="fedex-to" names={sideNames('to')} control={control} register={register} errors={errors} />
          </Section>
        </Col>
      </Row>

      <Section title="Package Details" testId="fedex-package-card">
        <Row className="g-3">
          <Col sm={6} md={2}>
            {numberField('weight', 'Weight')}
          </Col>
          <Col sm={6} md={2}>
            <Form.Group controlId="fedex-weight-unit">
              <Form.Label>Weight Unit</Form.Label>
              <Form.Select {...register('weightUnit')}>
                {WEIGHT_UNITS.map((unit) => (
                  <option key={unit}>{unit}</option>
                ))}
              </Form.Select>
            </Form.Group>
          </Col>
          <Col sm={4} md={2}>
            {numberField('length', 'Length')}
          </Col>
          <Col sm={4} md={2}>
            {numberField('width', 'Width')}
          </Col>
          <Col sm={4} md={2}>
            {numberField('height', 'Height')}
          </Col>
          <Col sm={6} md={2}>
            <Form.Group controlId="fedex-dimension-unit">
              <Form.Label>Dimension Unit</Form.Label>
              <Form.Select {...register('dimensionUnit')}>
                {DIMENSION_UNITS.map((unit) => (
                  <option key={unit}>{unit}</option>
                ))}
              </Form.Select>
            </Form.Group>
          </Col>
        </Row>
      </Section>

      <Row className="g-3">
        <Col lg={9}>
          <Section title="Pickup" testId="fedex-pickup-card">
            <Form.Check type="switch" id="fedex-pickup" label="Schedule a FedEx pickup (optional)" {...register('pickup')} />
            {pickup && (
              <div className="mt-3">
                <Row className="g-3 mb-3">
                  <Col sm={4}>
                    <Form.Group controlId="fedex-pickup-date">
                      <Form.Label>Pickup Date</Form.Label>
                      <Form.Control type="date" min={range?.min} max={range?.max} isInvalid={!!message('pickupDate')} {...register('pickupDate')} />
                      <Form.Control.Feedback type="invalid">{message('pickupDate')}</Form.Control.Feedback>
                    </Form.Group>
                  </Col>
                  <Col sm={4}>
                    <Form.Group controlId="fedex-pickup-time">
                      <Form.Label>From Pickup Time</Form.Label>
                      <Form.Control type="time" max={PICKUP_LATEST_START} isInvalid={!!message('pickupTime')} {...register('pickupTime')} />
                      <Form.Control.Feedback type="invalid">{message('pickupTime')}</Form.Control.Feedback>
                    </Form.Group>
                  </Col>
                  <Col sm={4}>
                    <Form.Group controlId="fedex-pickup-end">
                      <Form.Label>To Pickup Time</Form.Label>
                      <Form.Control readOnly value={typeof pickupTime === 'string' && isPickupTime(pickupTime) ? formatClock(pickupEndTime(pickupTime)) : ''} />
                    </Form.Group>
                  </Col>
                  <Col xs={12} className="small text-muted">
                    Today to {PICKUP_DAYS_AHEAD} days ahead; a {PICKUP_WINDOW_HOURS}-hour window starting at the latest at {formatClock(PICKUP_LATEST_START)},
                    in <span data-testid="pickup-time-zone">{String(timeZone)}</span> time (
                    {addressZone ? 'the pickup address' : 'your browser; the pickup address does not tell'}).
                    {message('timeZone') && <div className="text-danger">{message('timeZone')}</div>}
                  </Col>
                </Row>
                <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
                  <h6 className="small text-uppercase text-muted mb-0 me-auto">Pickup Address</h6>
                  <Button size="sm" variant="outline-secondary" onClick={pickupFromSender}>
                    Same as sender
                  </Button>
                </div>
                <AddressFields idPrefix="fedex-pickup" names={PICKUP_NAMES} control={control} register={register} errors={errors} />
              </div>
            )}
          </Section>
        </Col>
        <Col lg={3}>
          <Section title="Signature" testId="fedex-signature-card">
            <Form.Check id="fedex-signature" label="Signature required on delivery" {...register('signature')} />
          </Section>
        </Col>
      </Row>

      <Section title="Commercial Invoice Builder" testId="fedex-invoice-card">
        <InvoiceItemsFields control={control} register={register} errors={errors} />
      </Section>

      <Section title="Special Notes" testId="fedex-notes-card">
        <Form.Group controlId="fedex-notes">
          <Form.Label visuallyHidden>Special Notes</Form.Label>
          <Form.Control as="textarea" rows={2} placeholder="Optional" isInvalid={!!message('specialNotes')} {...register('specialNotes')} />
          <Form.Control.Feedback type="invalid">{message('specialNotes')}</Form.Control.Feedback>
        </Form.Group>
      </Section>

      <Button type="submit" size="lg" disabled={busy} data-testid="fedex-pay">
        {busy && <Spinner animation="border" size="sm" className="me-2" />}
        Pay {money(price)}
      </Button>
      {leavePrompt}
    </Form>
  );
}
