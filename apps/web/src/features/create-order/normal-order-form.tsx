import { useEffect, useRef } from 'react';
import { useForm, useWatch, type FieldErrors, type Resolver, type UseFormGetValues, type UseFormRegister } from 'react-hook-form';
import { Card, Col, Form, Row } from 'react-bootstrap';
import { countryFor, regionsFor, type Address, type CreateOrderBody, type CreateOrderInput, type LabelType } from '@portal/contract';
import {
  LabelTypeFields,
  SubmitOrderButton,
  checkOrder,
  fieldErrors,
  orderPayload,
  useOrderPrice,
  useSubmitOrder,
  type OrderSide,
} from './order-form-parts.tsx';
import { useSavedAddresses } from '../../api/addresses.ts';
import { SavedAddressSelect } from '../../components/saved-address-select.tsx';
import { useLabelTypes } from '../../api/catalog.ts';
import { RegionOptions } from '../../components/region-options.tsx';

type Side = 'From' | 'To';

const text = (value: unknown) => (typeof value === 'string' ? value : value == null ? '' : String(value));

const sideOf = (values: CreateOrderBody, side: Side): OrderSide => ({
  Name: text(values[`${side}Name`]),
  Company: text(values[`${side}Company`]),
  Street: text(values[`${side}Street`]),
  Street2: text(values[`${side}Street2`]),
  City: text(values[`${side}City`]),
  State: text(values[`${side}State`]),
  Zip: text(values[`${side}Zip`]),
  Phone: text(values[`${side}Phone`]),
});

type AddressCardProps = {
  side: Side;
  uid: string;
  register: UseFormRegister<CreateOrderBody>;
  errors: FieldErrors<CreateOrderBody>;
  addresses: Address[];
  onPick: (address: Address) => void;
};

/** Name, Company, Street, Street 2, City, State, ZIP, the fixed Country and, for FedEx Ground, Phone. */
function AddressCard({ side, uid, register, errors, addresses, onPick }: AddressCardProps) {
  const id = (field: string) => `normal-${side.toLowerCase()}-${field}`;
  const field = (name: 'Name' | 'Company' | 'Street' | 'Street2' | 'City' | 'Zip' | 'Phone', label: string, props: Record<string, unknown> = {}) => {
    const key = `${side}${name}` as const;
    return (
      <Form.Group controlId={id(name.toLowerCase())}>
        <Form.Label>{label}</Form.Label>
        <Form.Control isInvalid={!!errors[key]} {...props} {...register(key)} />
        <Form.Control.Feedback type="invalid">{errors[key]?.message}</Form.Control.Feedback>
      </Form.Group>
    );
  };
  const stateError = errors[`${side}State`];
  return (
    <Card className="h-100" data-testid={`${side.toLowerCase()}-card`}>
      <Card.Header as="h6">{side}</Card.Header>
      <Card.Body>
        <SavedAddressSelect id={id('saved')} addresses={addresses} onPick={onPick} />
        <Row className="g-3">
          <Col sm={6}>{field('Name', 'Name')}</Col>
          <Col sm={6}>{field('Company', 'Company', { placeholder: 'Optional' })}</Col>
          <Col sm={6}>{field('Street', 'Street')}</Col>
          <Col sm={6}>{field('Street2', 'Street 2', { placeholder: 'Optional' })}</Col>
          <Col sm={6}>{field('City', 'City')}</Col>
          <Col sm={6}>
            <Form.Group controlId={id('state')}>
              <Form.Label>State</Form.Label>
              <Form.Select isInvalid={!!stateError} {...register(`${side}State`)}>
                <RegionOptions regions={regionsFor(uid)} />
              </Form.Select>
              <Form.Control.Feedback type="invalid">{stateError?.message}</Form.Control.Feedback>
            </Form.Group>
          </Col>
          <Col sm={6}>{field('Zip', 'ZIP')}</Col>
          <Col sm={6}>
            <Form.Group controlId={id('country')}>
              <Form.Label>Country</Form.Label>
              <Form.Control value={countryFor(uid)} readOnly disabled />
            </Form.Group>
          </Col>
          {uid === 'fedex_ground' && <Col sm={6}>{field('Phone', 'Phone', { type: 'tel', placeholder: 'Optional' })}</Col>}
        </Row>
      </Card.Body>
    </Card>
  );
}

const EMPTY_SIDE = (side: Side) => ({
  [`${side}Name`]: '',
  [`${side}Company`]: '',
  [`${side}Street`]: '',
  [`${side}Street2`]: '',
  [`${side}City`]: '',
  [`${side}State`]: '',
  [`${side}Zip`]: '',
  [`${side}Phone`]: '',
});

/** Normal Order: separate address fields, which a saved address can fill. */
export function NormalOrderForm() {
  const labelTypes = useLabelTypes();
  const addresses = useSavedAddresses();
  const { submit, busy } = useSubmitOrder();
  const typesRef = useRef<LabelType[]>(labelTypes);
  typesRef.current = labelTypes;

  const resolver: Resolver<CreateOrderBody, unknown, CreateOrderInput> = async (values) => {
    const uid = typesRef.current.find((t) => t._id === values.labelType)?.uid ?? '';
    const checked = checkOrder(orderPayload(values, uid, sideOf(values, 'From'), sideOf(values, 'To')), uid);
    return checked.ok ? { values: checked.order, errors: {} } : { values: {}, errors: fieldErrors(checked.issues) as FieldErrors<CreateOrderBody> };
  };

  const { register, handleSubmit, control, setValue, getValues, formState } = useForm<CreateOrderBody, unknown, CreateOrderInput>({
    resolver,
    defaultValues: { labelType: '', design: '', Weight: '', ...EMPTY_SIDE('From'), ...EMPTY_SIDE('To') } as CreateOrderBody,
  });
  const [labelType, weight] = useWatch({ control, name: ['labelType', 'Weight'] });
  const selected = labelTypes.find((t) => t._id === labelType);
  const uid = selected?.uid ?? '';
  const price = useOrderPrice(labelType, weight);
  const { errors, isSubmitted } = formState;

  // The state list follows the type's country: a state of the other country is cleared.
  useEffect(() => clearForeignStates(uid, getValues, setValue), [uid]);

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
    <Form onSubmit={handleSubmit(submit)} noValidate data-testid="normal-order-form">
      <LabelTypeFields
        idPrefix="normal"
        labelTypes={labelTypes}
        selected={selected}
        fields={{ labelType: register('labelType'), design: register('design'), Weight: register('Weight') }}
        errors={errors}
      />
      <Row className="g-3 mb-4">
        {(['From', 'To'] as const).map((side) => (
          <Col lg={6} key={side}>
            <AddressCard side={side} uid={uid} register={register} errors={errors} addresses={addresses} onPick={fill(side)} />
          </Col>
        ))}
      </Row>
      <SubmitOrderButton price={price} busy={busy} />
    </Form>
  );
}

function clearForeignStates(uid: string, getValues: UseFormGetValues<CreateOrderBody>, setValue: (name: 'FromState' | 'ToState', value: string) => void) {
  const allowed = regionsFor(uid).map((r) => r.ID);
  for (const name of ['FromState', 'ToState'] as const) {
    const current = getValues(name);
    if (current && !allowed.includes(current)) setValue(name, '');
  }
}
