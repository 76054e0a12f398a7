import { useEffect, useRef, type RefObject } from 'react';
import { useForm, useWatch, type Control, type FieldErrors, type Resolver, type UseFormRegisterReturn } from 'react-hook-form';
import { Card, Col, Form, Row } from 'react-bootstrap';
import { countryFor, shopDay, type Address, type CreateOrderBody, type CreateOrderInput, type LabelType, type Rate } from '@portal/contract';
import { ADDRESS_TEXT_EXAMPLE, formatAddressText, parseAddressText, readAddressText, type ParseResult } from './parse-address.ts';
import {
  LabelTypeFields,
  SubmitOrderButton,
  checkOrder,
  draftText,
  fieldErrors,
  orderPayload,
  packageFields,
  useOrderPrice,
  useInsurancePrice,
  InsuranceField,
  useSubmitOrder,
  type OrderDraft,
  type OrderIssue,
  type OrderSide,
} from './order-form-parts.tsx';
import { useSavedAddresses } from '../../api/addresses.ts';
import { SavedAddressSelect } from '../../components/saved-address-select.tsx';
import { PrintsAs } from '../../components/prints-as.tsx';
import { useLabelTypes } from '../../api/catalog.ts';
import { toastError } from '../../api/mutation.ts';
import { ShipDateReferenceFields } from './ship-date-reference-fields.tsx';
import { CompareRates, chosenFields, ratesPackage, useCompareRates } from './compare-rates.tsx';

type QuickValues = Pick<
  CreateOrderBody,
  | 'labelType'
  | 'design'
  | 'Weight'
  | 'Length'
  | 'Width'
  | 'Height'
  | 'FromPhone'
  | 'ToPhone'
  | 'ToEmail'
  | 'ShipDate'
  | 'Reference'
  | 'Reference2'
  | 'Insurance'
> & {
  fromText: string;
  toText: string;
};

const sideOf = (parsed: ParseResult, phone: string | null | undefined): OrderSide => {
  const a = parsed.ok ? parsed.address : { name: '', street: '', street2: '', city: '', state: '', zip: '' };
  return { Name: a.name, Street: a.street, Street2: a.street2, City: a.city, State: a.state, Zip: a.zip, Phone: phone ?? '' };
};

/** The four lines of a draft's side, or '' when it has no address. */
const textOf = (side: OrderSide) =>
  [side.Name, side.Street, side.Street2, side.City, side.State, side.Zip].some((v) => v)
    ? formatAddressText({ name: side.Name, street: side.Street, street2: side.Street2 ?? '', city: side.City, state: side.State, zip: side.Zip })
    : '';

/** A draft's side from the text as it is (even unfinished), keeping the company the text has no line for. */
function draftSide(text: string, phone: unknown, before: OrderSide): OrderSide {
  const a = readAddressText(text);
  return {
    Name: a.name,
    Company: text.trim() ? before.Company : '',
    Street: a.street,
    Street2: a.street2,
    City: a.city,
    State: a.state,
    Zip: a.zip,
    Phone: draftText(phone),
  };
}

/** An issue about a From or To field belongs under that side's text, except the phones and email, which have their own inputs. */
const quickField = (field: string) =>
  field === 'FromPhone' || field === 'ToPhone' || field === 'ToEmail'
    ? field
    : field.startsWith('From')
      ? 'fromText'
      : field.startsWith('To')
        ? 'toText'
        : field;

type AddressTextCardProps = {
  side: 'From' | 'To';
  control: Control<QuickValues, unknown, CreateOrderInput>;
  text: UseFormRegisterReturn;
  phone: UseFormRegisterReturn;
  showPhone: boolean;
  /** The recipient's email input (the To side only). */
  email?: UseFormRegisterReturn;
  errors: FieldErrors<QuickValues>;
  addresses: Address[];
  country: string;
  onPick: (address: Address) => void;
};

function AddressTextCard({ side, control, text, phone, showPhone, email, errors, addresses, country, onPick }: AddressTextCardProps) {
  const key = side === 'From' ? 'fromText' : 'toText';
  const phoneError = errors[`${side}Phone`];
  return (
    <Card className="h-100" data-testid={`${side.toLowerCase()}-card`}>
      <Card.Header as="h2" className="h6">
        {side}
      </Card.Header>
      <Card.Body>
        <SavedAddressSelect key={country} id={`quick-${side.toLowerCase()}-saved`} addresses={addresses} country={country} onPick={onPick} />
        <Form.Group controlId={`quick-${side.toLowerCase()}-text`} className="mb-3">
          <Form.Label>{side} Address Data</Form.Label>
          <Form.Control as="textarea" rows={4} placeholder={ADDRESS_TEXT_EXAMPLE} isInvalid={!!errors[key]} {...text} />
          <Form.Control.Feedback type="invalid">{errors[key]?.message}</Form.Control.Feedback>
          {/* The lines a label prints otherwise (王小明 prints as Wang Xiao Ming), as Normal Order says under each field. */}
          <PrintsAs control={control} name={key} lines />
          <Form.Text className="d-block">Line 1 name; line 2 street and optional ", street 2"; line 3 "city, state"; line 4 ZIP.</Form.Text>
        </Form.Group>
        {showPhone && (
          <Form.Group controlId={`quick-${side.toLowerCase()}-phone`}>
            <Form.Label>Phone</Form.Label>
            <Form.Control type="tel" placeholder="Optional, e.g. (214) 555-0100" isInvalid={!!phoneError} {...phone} />
            <Form.Control.Feedback type="invalid">{phoneError?.message}</Form.Control.Feedback>
          </Form.Group>
        )}
        {email && (
          <Form.Group controlId={`quick-${side.toLowerCase()}-email`} className={showPhone ? 'mt-3' : undefined}>
            <Form.Label>Email</Form.Label>
            <Form.Control type="email" placeholder="Optional: the recipient is mailed the tracking" isInvalid={!!errors.ToEmail} {...email} />
            <Form.Control.Feedback type="invalid">{errors.ToEmail?.message}</Form.Control.Feedback>
          </Form.Group>
        )}
      </Card.Body>
    </Card>
  );
}

/** Quick Order: each address pasted as four lines of text, or filled from a saved address; it starts from what the Normal Order tab left. */
export function QuickOrderForm({ draft }: { draft: RefObject<OrderDraft> }) {
  const labelTypes = useLabelTypes();
  const addresses = useSavedAddresses();
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
    const checked = await checkOrder(orderPayload(values, uid, sideOf(from, values.FromPhone), sideOf(to, values.ToPhone)), uid);
    // A text that is not four lines yet is named once, not field by field.
    const unread = (field: string | null) => quickField(field ?? '') === (from.ok ? null : 'fromText') || quickField(field ?? '') === (to.ok ? null : 'toText');
    if (!checked.ok) issues.push(...checked.issues.filter((issue) => !unread(issue.field)));
    if (checked.ok && issues.length === 0) return { values: checked.order, errors: {} };
    return { values: {}, errors: fieldErrors(issues, quickField) as FieldErrors<QuickValues> };
  };

  const start = draft.current;
  const { register, handleSubmit, control, setValue, getValues, setError, watch, formState } = useForm<QuickValues, unknown, CreateOrderInput>({
    resolver,
    defaultValues: {
      labelType: start.labelType,
      design: start.design,
      Weight: start.Weight,
      fromText: textOf(start.from),
      toText: textOf(start.to),
      FromPhone: start.from.Phone ?? '',
      ToPhone: start.to.Phone ?? '',
      ShipDate: shopDay(),
    },
  });
  const { submit, busy } = useSubmitOrder((issues) => {
    for (const [name, error] of Object.entries(fieldErrors(issues, quickField))) setError(name as keyof QuickValues, error);
  });

  // Every change is kept for the Normal Order tab, which reads it (the text read into its fields) when it opens.
  useEffect(() => {
    const { unsubscribe } = watch(() => {
      const values = getValues();
      const before = draft.current;
      draft.current = {
        labelType: values.labelType,
        design: draftText(values.design),
        Weight: draftText(values.Weight),
        from: draftSide(values.fromText, values.FromPhone, before.from),
        to: draftSide(values.toText, values.ToPhone, before.to),
      };
    });
    return unsubscribe;
  }, [draft, watch, getValues]);
  const [labelType, weight] = useWatch({ control, name: ['labelType', 'Weight'] });
  const selected = labelTypes.find((t) => t._id === labelType);
  const price = useOrderPrice(labelType, weight);
  const insurance = useInsurancePrice(labelType, weight, useWatch({ control, name: 'Insurance' }));
  const { errors, isSubmitted } = formState;

  // Compare rates: the package (weight, the ZIPs of both texts); a chosen row selects its type, and the order is bought at its quote.
  const [fromText, toText, shipDate, length, width, height] = useWatch({ control, name: ['fromText', 'toText', 'ShipDate', 'Length', 'Width', 'Height'] });
  const pkg = ratesPackage({
    Weight: weight,
    WeightUnit: selected?.weightUnit ?? 'lb',
    FromZip: readAddressText(fromText ?? '').zip,
    ToZip: readAddressText(toText ?? '').zip,
    ShipDate: shipDate,
    Length: length,
    Width: width,
    Height: height,
  });
  const rates = useCompareRates(pkg, selected?.uid ?? '');
  const chooseRate = (rate: Rate) => {
    const chosen = chosenFields(rate, labelTypes, rates, weight);
    if (chosen)
      for (const [name, value] of Object.entries(chosen)) setValue(name as 'labelType' | 'Weight', value, { shouldDirty: true, shouldValidate: isSubmitted });
  };

  const fill = (field: 'fromText' | 'toText') => (address: Address) =>
    setValue(field, formatAddressText(address), { shouldDirty: true, shouldValidate: isSubmitted });

  return (
    // The resolver loads the contract's checks; if that fails, a toast says so.
    <Form
      onSubmit={(event) =>
        void handleSubmit((order) => submit(rates.body(order), (rates.price ?? price) + insurance.price, rates.refused))(event).catch(toastError)
      }
      noValidate
      data-testid="quick-order-form"
    >
      <LabelTypeFields
        idPrefix="quick"
        labelTypes={labelTypes}
        selected={selected}
        fields={{
          labelType: register('labelType'),
          design: register('design'),
          Weight: register('Weight'),
          Length: register('Length'),
          Width: register('Width'),
          Height: register('Height'),
        }}
        errors={errors}
        weight={weight}
        onPickPackage={(saved) => {
          for (const [name, value] of Object.entries(packageFields(saved, selected?.weightUnit ?? 'lb')))
            setValue(name as 'Weight' | 'Length' | 'Width' | 'Height', value, { shouldDirty: true, shouldValidate: isSubmitted });
        }}
      />
      <ShipDateReferenceFields
        idPrefix="quick"
        uid={selected?.uid ?? ''}
        fields={{ ShipDate: register('ShipDate'), Reference: register('Reference'), Reference2: register('Reference2') }}
        errors={errors}
      />
      <InsuranceField idPrefix="quick" field={register('Insurance')} error={errors.Insurance?.message} insurance={insurance} />
      <Row className="g-3 mb-4">
        {(['From', 'To'] as const).map((side) => (
          <Col md={6} key={side}>
            <AddressTextCard
              side={side}
              control={control}
              text={register(side === 'From' ? 'fromText' : 'toText')}
              phone={register(`${side}Phone`)}
              showPhone={selected?.uid === 'fedex_ground'}
              email={side === 'To' ? register('ToEmail') : undefined}
              errors={errors}
              addresses={addresses}
              country={countryFor(selected?.uid ?? '')}
              onPick={fill(side === 'From' ? 'fromText' : 'toText')}
            />
          </Col>
        ))}
      </Row>
      <CompareRates rates={rates} ready={pkg !== null} selectedUid={selected?.uid ?? ''} onChoose={chooseRate} />
      <SubmitOrderButton price={(rates.price ?? price) + insurance.price} busy={busy} selected={selected} weight={weight} />
    </Form>
  );
}
