import { useRef } from 'react';
import { useForm, useWatch, type FieldErrors, type Resolver, type UseFormRegisterReturn } from 'react-hook-form';
import { Card, Col, Form, Row } from 'react-bootstrap';
import type { Address, CreateOrderBody, CreateOrderInput, LabelType } from '@portal/contract';
import { ADDRESS_TEXT_EXAMPLE, formatAddressText, parseAddressText, type ParseResult } from './parse-address.ts';
import {
  LabelTypeFields,
  SubmitOrderButton,
  checkOrder,
  fieldErrors,
  orderPayload,
  useOrderPrice,
  useSubmitOrder,
  type OrderIssue,
  type OrderSide,
} from './order-form-parts.tsx';
import { useSavedAddresses } from '../../api/addresses.ts';
import { SavedAddressSelect } from '../../components/saved-address-select.tsx';
import { useLabelTypes } from '../../api/catalog.ts';

type QuickValues = Pick<CreateOrderBody, 'labelType' | 'design' | 'Weight' | 'FromPhone' | 'ToPhone'> & { fromText: string; toText: string };

const sideOf = (parsed: ParseResult, phone: string | null | undefined): OrderSide => {
  const a = parsed.ok ? parsed.address : { name: '', street: '', street2: '', city: '', state: '', zip: '' };
  return { Name: a.name, Street: a.street, Street2: a.street2, City: a.city, State: a.state, Zip: a.zip, Phone: phone ?? '' };
};

/** An issue about a From or To field belongs under that side's text, except the phone, which has its own input. */
const quickField = (field: string) =>
  field === 'FromPhone' || field === 'ToPhone' ? field : field.startsWith('From') ? 'fromText' : field.startsWith('To') ? 'toText' : field;

type AddressTextCardProps = {
  side: 'From' | 'To';
  text: UseFormRegisterReturn;
  phone: UseFormRegisterReturn;
  showPhone: boolean;
  errors: FieldErrors<QuickValues>;
  addresses: Address[];
  onPick: (address: Address) => void;
};

function AddressTextCard({ side, text, phone, showPhone, errors, addresses, onPick }: AddressTextCardProps) {
  const key = side === 'From' ? 'fromText' : 'toText';
  const phoneError = errors[`${side}Phone`];
  return (
    <Card className="h-100" data-testid={`${side.toLowerCase()}-card`}>
      <Card.Header as="h6">{side}</Card.Header>
      <Card.Body>
        <SavedAddressSelect id={`quick-${side.toLowerCase()}-saved`} addresses={addresses} onPick={onPick} />
        <Form.Group controlId={`quick-${side.toLowerCase()}-text`} className="mb-3">
          <Form.Label>{side} Address Data</Form.Label>
          <Form.Control as="textarea" rows={4} placeholder={ADDRESS_TEXT_EXAMPLE} isInvalid={!!errors[key]} {...text} />
          <Form.Control.Feedback type="invalid">{errors[key]?.message}</Form.Control.Feedback>
          <Form.Text>Line 1 name; line 2 street and optional ", street 2"; line 3 "city, state"; line 4 ZIP.</Form.Text>
        </Form.Group>
        {showPhone && (
          <Form.Group controlId={`quick-${side.toLowerCase()}-phone`}>
            <Form.Label>Phone</Form.Label>
            <Form.Control type="tel" placeholder="Optional" isInvalid={!!phoneError} {...phone} />
            <Form.Control.Feedback type="invalid">{phoneError?.message}</Form.Control.Feedback>
          </Form.Group>
        )}
      </Card.Body>
    </Card>
  );
}

/** Quick Order: each address pasted as four lines of text, or filled from a saved address. */
export function QuickOrderForm() {
  const labelTypes = useLabelTypes();
  const addresses = useSavedAddresses();
  const { submit, busy } = useSubmitOrder();
  // The resolver is made once; it reads the newest label type list through this ref.
  const typesRef = useRef<LabelType[]>(labelTypes);
  typesRef.current = labelTypes;

  const resolver: Resolver<QuickValues, unknown, CreateOrderInput> = async (values) => {
    const uid = typesRef.current.find((t) => t._id === values.labelType)?.uid ?? '';
    const from = parseAddressText(values.fromText);
    const to = parseAddressText(values.toText);
    const issues: OrderIssue[] = [];
    if (!from.ok) issues.push({ field: 'fromText', message: from.message });
    if (!to.ok) issues.push({ field: 'toText', message: to.message });
    const checked = checkOrder(orderPayload(values, uid, sideOf(from, values.FromPhone), sideOf(to, values.ToPhone)), uid);
    if (!checked.ok) issues.push(...checked.issues);
    if (checked.ok && issues.length === 0) return { values: checked.order, errors: {} };
    return { values: {}, errors: fieldErrors(issues, quickField) as FieldErrors<QuickValues> };
  };

  const { register, handleSubmit, control, setValue, formState } = useForm<QuickValues, unknown, CreateOrderInput>({
    resolver,
    defaultValues: { labelType: '', design: '', Weight: '', fromText: '', toText: '', FromPhone: '', ToPhone: '' },
  });
  const [labelType, weight] = useWatch({ control, name: ['labelType', 'Weight'] });
  const selected = labelTypes.find((t) => t._id === labelType);
  const price = useOrderPrice(labelType, weight);
  const { errors, isSubmitted } = formState;

  const fill = (field: 'fromText' | 'toText') => (address: Address) =>
    setValue(field, formatAddressText(address), { shouldDirty: true, shouldValidate: isSubmitted });

  return (
    <Form onSubmit={handleSubmit(submit)} noValidate data-testid="quick-order-form">
      <LabelTypeFields
        idPrefix="quick"
        labelTypes={labelTypes}
        selected={selected}
        fields={{ labelType: register('labelType'), design: register('design'), Weight: register('Weight') }}
        errors={errors}
      />
      <Row className="g-3 mb-4">
        {(['From', 'To'] as const).map((side) => (
          <Col md={6} key={side}>
            <AddressTextCard
              side={side}
              text={register(side === 'From' ? 'fromText' : 'toText')}
              phone={register(`${side}Phone`)}
              showPhone={selected?.uid === 'fedex_ground'}
              errors={errors}
              addresses={addresses}
              onPick={fill(side === 'From' ? 'fromText' : 'toText')}
            />
          </Col>
        ))}
      </Row>
      <SubmitOrderButton price={price} busy={busy} />
    </Form>
  );
}
