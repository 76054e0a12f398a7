import { useEffect, useRef, type RefObject } from 'react';
import { useForm, useWatch, type Control, type FieldErrors, type Resolver, type UseFormRegister } from 'react-hook-form';
import { Card, Col, Form, Row } from 'react-bootstrap';
import { countryFor, regionsFor, shopDay, type Address, type CreateOrderBody, type CreateOrderInput, type LabelType, type Rate } from '@portal/contract';
import {
  LabelTypeFields,
  SubmitOrderButton,
  checkOrder,
  useOrderChecks,
  draftText,
  fieldErrors,
  orderPayload,
  packageFields,
  useOrderPrice,
  useInsurancePrice,
  InsuranceField,
  useSubmitOrder,
  type OrderDraft,
  type OrderSide,
} from './order-form-parts.tsx';
import { useSavedAddresses } from '../../api/addresses.ts';
import { SavedAddressSelect } from '../../components/saved-address-select.tsx';
import { useLabelTypes } from '../../api/catalog.ts';
import { RegionOptions } from '../../components/region-options.tsx';
import { useUnsavedInputPrompt } from '../../components/unsaved-input.tsx';
import { toastError } from '../../api/mutation.ts';
import { PrintsAs } from '../../components/prints-as.tsx';
import { AddressCheckNote, useAddressCheck } from '../../components/address-check.tsx';
import { ShipDateReferenceFields } from './ship-date-reference-fields.tsx';
import { CompareRates, chosenFields, ratesPackage, useCompareRates } from './compare-rates.tsx';

type Side = 'From' | 'To';

const sideOf = (values: CreateOrderBody, side: Side): OrderSide => ({
  Name: draftText(values[`${side}Name`]),
  Company: draftText(values[`${side}Company`]),
  Street: draftText(values[`${side}Street`]),
  Street2: draftText(values[`${side}Street2`]),
  City: draftText(values[`${side}City`]),
  State: draftText(values[`${side}State`]),
  Zip: draftText(values[`${side}Zip`]),
  Phone: draftText(values[`${side}Phone`]),
});

type AddressCardProps = {
  side: Side;
  uid: string;
  register: UseFormRegister<CreateOrderBody>;
  control: Control<CreateOrderBody, unknown, CreateOrderInput>;
  errors: FieldErrors<CreateOrderBody>;
  addresses: Address[];
  onPick: (address: Address) => void;
};

/** Name, Company, Street, Street 2, City, State, ZIP, the fixed Country and, for FedEx Ground, Phone. */
function AddressCard({ side, uid, register, control, errors, addresses, onPick }: AddressCardProps) {
  const id = (field: string) => `normal-${side.toLowerCase()}-${field}`;
  const field = (name: 'Name' | 'Company' | 'Street' | 'Street2' | 'City' | 'Zip' | 'Phone', label: string, props: Record<string, unknown> = {}) => {
    const key = `${side}${name}` as const;
    return (
      <Form.Group controlId={id(name.toLowerCase())}>
        <Form.Label>{label}</Form.Label>
        <Form.Control isInvalid={!!errors[key]} {...props} {...register(key)} />
        <Form.Control.Feedback type="invalid">{errors[key]?.message}</Form.Control.Feedback>
        {name !== 'Zip' && name !== 'Phone' && <PrintsAs control={control} name={key} />}
      </Form.Group>
    );
  };
  // A state that is not in the type's list (left by another type or tab) is shown as itself, with why.
  const state = draftText(useWatch({ control, name: `${side}State` }));
  const regions = regionsFor(uid);
  const checks = useOrderChecks();
  const foreign = state && checks && !regions.some((r) => r.ID === state) ? checks.stateViolation(side, state, uid) : null;
  const stateError = errors[`${side}State`]?.message ?? foreign;
  const country = countryFor(uid);
  // Canada's words for them (UPS types ship inside Canada).
  const canada = country === 'Canada';
  return (
    <Card className="flex-grow-1" data-testid={`${side.toLowerCase()}-card`}>
      <Card.Header as="h2" className="h6">
        {side}
      </Card.Header>
      <Card.Body>
        <SavedAddressSelect key={country} id={id('saved')} addresses={addresses} country={country} onPick={onPick} />
        <Row className="g-3">
          <Col sm={6}>{field('Name', 'Name')}</Col>
          <Col sm={6}>{field('Company', 'Company', { placeholder: 'Optional' })}</Col>
          <Col sm={6}>{field('Street', 'Street')}</Col>
          <Col sm={6}>{field('Street2', 'Street 2', { placeholder: 'Optional' })}</Col>
          <Col sm={6}>{field('City', 'City')}</Col>
          <Col sm={6}>
            <Form.Group controlId={id('state')}>
              <Form.Label>{canada ? 'Province' : 'State'}</Form.Label>
              {/* Controlled by the form's value, so a value the options no longer list stays shown. */}
              <Form.Select isInvalid={!!stateError} {...register(`${side}State`)} value={state}>
                <RegionOptions regions={regions} current={state} />
              </Form.Select>
              <Form.Control.Feedback type="invalid">{stateError}</Form.Control.Feedback>
            </Form.Group>
          </Col>
          <Col sm={6}>{field('Zip', canada ? 'Postal code' : 'ZIP')}</Col>
          <Col sm={6}>
            <Form.Group controlId={id('country')}>
              <Form.Label>Country</Form.Label>
              <Form.Control value={country} readOnly disabled />
            </Form.Group>
          </Col>
          {uid === 'fedex_ground' && <Col sm={6}>{field('Phone', 'Phone', { type: 'tel', placeholder: 'Optional, e.g. (214) 555-0100' })}</Col>}
          {side === 'To' && (
            <Col sm={12}>
              <Form.Group controlId={id('email')}>
                <Form.Label>Email</Form.Label>
                <Form.Control type="email" placeholder="Optional: the recipient is mailed the tracking" isInvalid={!!errors.ToEmail} {...register('ToEmail')} />
                <Form.Control.Feedback type="invalid">{errors.ToEmail?.message}</Form.Control.Feedback>
              </Form.Group>
            </Col>
          )}
        </Row>
      </Card.Body>
    </Card>
  );
}

const sideValues = (side: Side, from: OrderSide) => ({
  [`${side}Name`]: from.Name,
  [`${side}Company`]: from.Company ?? '',
  [`${side}Street`]: from.Street,
  [`${side}Street2`]: from.Street2 ?? '',
  [`${side}City`]: from.City,
  [`${side}State`]: from.State,
  [`${side}Zip`]: from.Zip,
  [`${side}Phone`]: from.Phone ?? '',
});

/** Normal Order: separate address fields, which a saved address can fill; it starts from what the Quick Order tab left. */
export function NormalOrderForm({ draft }: { draft: RefObject<OrderDraft> }) {
  const labelTypes = useLabelTypes();
  const addresses = useSavedAddresses();
  const typesRef = useRef<LabelType[]>(labelTypes);
  typesRef.current = labelTypes;

  const resolver: Resolver<CreateOrderBody, unknown, CreateOrderInput> = async (values) => {
    const uid = typesRef.current.find((t) => t._id === values.labelType)?.uid ?? '';
    const checked = await checkOrder(orderPayload(values, uid, sideOf(values, 'From'), sideOf(values, 'To')), uid);
    return checked.ok ? { values: checked.order, errors: {} } : { values: {}, errors: fieldErrors(checked.issues) as FieldErrors<CreateOrderBody> };
  };

  const start = draft.current;
  const { register, handleSubmit, control, setValue, getValues, setError, watch, formState } = useForm<CreateOrderBody, unknown, CreateOrderInput>({
    resolver,
    defaultValues: {
      labelType: start.labelType,
      design: start.design,
      Weight: start.Weight,
      ...sideValues('From', start.from),
      ...sideValues('To', start.to),
      ShipDate: shopDay(),
    } as CreateOrderBody,
  });
  const { submit, busy } = useSubmitOrder((issues) => {
    for (const [name, error] of Object.entries(fieldErrors(issues))) setError(name as keyof CreateOrderBody, error);
  });
  const [labelType, weight] = useWatch({ control, name: ['labelType', 'Weight'] });
  const selected = labelTypes.find((t) => t._id === labelType);
  const uid = selected?.uid ?? '';
  const price = useOrderPrice(labelType, weight);
  const insurance = useInsurancePrice(labelType, weight, useWatch({ control, name: 'Insurance' }));
  const { errors, isSubmitted } = formState;

  // Compare rates: the package (weight, dimensions when the form has them, both ZIPs); a chosen row selects its type,
  // and the order is bought at its quote.
  const [length, width, height, fromZip, toZip, shipDate] = useWatch({ control, name: ['Length', 'Width', 'Height', 'FromZip', 'ToZip', 'ShipDate'] });
  const pkg = ratesPackage({
    Weight: weight,
    WeightUnit: selected?.weightUnit ?? 'lb',
    Length: length,
    Width: width,
    Height: height,
    FromZip: fromZip,
    ToZip: toZip,
    ShipDate: shipDate,
  });
  const rates = useCompareRates(pkg, uid);
  const chooseRate = (rate: Rate) => {
    const chosen = chosenFields(rate, labelTypes, rates, weight);
    if (chosen)
      for (const [name, value] of Object.entries(chosen)) setValue(name as 'labelType' | 'Weight', value, { shouldDirty: true, shouldValidate: isSubmitted });
  };
  const addressCheck = useAddressCheck<Side>();
  const linesOf = (order: CreateOrderInput, side: Side) => ({
    name: order[`${side}Name`],
    company: order[`${side}Company`] ?? '',
    street: order[`${side}Street`],
    street2: order[`${side}Street2`] ?? '',
    city: order[`${side}City`],
    state: order[`${side}State`],
    zip: order[`${side}Zip`],
    country: countryFor(uid),
  });
  // The carrier's word on both addresses before paying (when the shop verifies them): a corrected one is offered first.
  const place = async (order: CreateOrderInput) => {
    if (await addressCheck.mayGoOn({ From: linesOf(order, 'From'), To: linesOf(order, 'To') }))
      submit(rates.body(order), (rates.price ?? price) + insurance.price, rates.refused);
  };
  const takeSuggested = (side: Side) => (suggested: { street: string; street2: string; city: string; state: string; zip: string }) => {
    const options = { shouldDirty: true, shouldValidate: isSubmitted };
    setValue(`${side}Street`, suggested.street, options);
    setValue(`${side}Street2`, suggested.street2, options);
    setValue(`${side}City`, suggested.city, options);
    setValue(`${side}State`, suggested.state, options);
    setValue(`${side}Zip`, suggested.zip, options);
    addressCheck.used(side, suggested);
  };
  const leavePrompt = useUnsavedInputPrompt(formState.isDirty);

  // Every change is kept for the Quick Order tab, which reads it when it opens.
  useEffect(() => {
    const { unsubscribe } = watch(() => {
      const values = getValues();
      draft.current = {
        labelType: values.labelType,
        design: draftText(values.design),
        Weight: draftText(values.Weight),
        from: sideOf(values, 'From'),
        to: sideOf(values, 'To'),
      };
    });
    return unsubscribe;
  }, [draft, watch, getValues]);

  const fill = (side: Side) => (address: Address) => {
    const options = { shouldDirty: true, shouldValidate: isSubmitted };
    setValue(`${side}Name`, address.name, options);
    setValue(`${side}Company`, address.company, options);
    setValue(`${side}Street`, address.street, options);
    setValue(`${side}Street2`, address.street2, options);
    setValue(`${side}City`, address.city, options);
    setValue(`${side}State`, address.state, options);
    setValue(`${side}Zip`, address.zip, options);
  };

  return (
    // The resolver loads the contract's checks; if that fails, a toast says so.
    <Form onSubmit={(event) => void handleSubmit(place)(event).catch(toastError)} noValidate data-testid="normal-order-form">
      <LabelTypeFields
        idPrefix="normal"
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
        idPrefix="normal"
        uid={uid}
        fields={{ ShipDate: register('ShipDate'), Reference: register('Reference'), Reference2: register('Reference2') }}
        errors={errors}
      />
      <InsuranceField idPrefix="normal" field={register('Insurance')} error={errors.Insurance?.message} insurance={insurance} />
      <Row className="g-3 mb-4">
        {(['From', 'To'] as const).map((side) => (
          // A column of the card and what the carrier said of its address, the cards as tall as each other.
          <Col lg={6} key={side} className="d-flex flex-column gap-2">
            <AddressCard side={side} uid={uid} register={register} control={control} errors={errors} addresses={addresses} onPick={fill(side)} />
            <AddressCheckNote title={`${side} address`} checked={addressCheck.checks[side]} onUse={takeSuggested(side)} />
          </Col>
        ))}
      </Row>
      <CompareRates rates={rates} ready={pkg !== null} selectedUid={uid} onChoose={chooseRate} />
      <SubmitOrderButton price={(rates.price ?? price) + insurance.price} busy={busy || addressCheck.checking} selected={selected} weight={weight} />
      {leavePrompt}
    </Form>
  );
}
