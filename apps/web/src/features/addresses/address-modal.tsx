import { useLayoutEffect } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Button, Col, Form, Modal, Row, Spinner } from 'react-bootstrap';
import { ADDRESS_COUNTRY, ADDRESS_DUPLICATE, addressBody, type Address, type AddressBody } from '@portal/contract';
import { useSaveAddress } from '../../api/addresses.ts';
import { RegionOptions } from '../../components/region-options.tsx';
import { PrintsAs } from '../../components/prints-as.tsx';
import { AddressCheckNote, useAddressCheck } from '../../components/address-check.tsx';

const EMPTY: AddressBody = { name: '', company: '', street: '', street2: '', city: '', state: '', zip: '', country: ADDRESS_COUNTRY };
const valuesOf = (address: Address | null): AddressBody =>
  address
    ? {
        name: address.name,
        company: address.company,
        street: address.street,
        street2: address.street2,
        city: address.city,
        state: address.state,
        zip: address.zip,
        country: ADDRESS_COUNTRY,
      }
    : EMPTY;

const keyOf = (parts: unknown[]) =>
  parts
    .map((part) =>
      String(part ?? '')
        .trim()
        .toLowerCase()
        .replace(/\s+/g, ' '),
    )
    .join('|');
const placeKey = (a: Partial<AddressBody>) => keyOf([a.street, a.street2, a.city, a.state, a.zip]);
const samePlace = (a: Partial<AddressBody>, b: Partial<AddressBody>) => placeKey(a) === placeKey(b);
/** The whole entry, as the server compares it to refuse saving it twice (409). */
const sameEntry = (a: Partial<AddressBody>, b: Partial<AddressBody>) => keyOf([a.name, a.company]) === keyOf([b.name, b.company]) && samePlace(a, b);

type AddressModalProps = {
  show: boolean;
  /** The address being updated; null adds a new one. */
  address: Address | null;
  /** The saved addresses, to warn of saving one twice. */
  saved: Address[];
  onClose: () => void;
};

/** 'Add Address' or 'Update Address': state from the 50 states plus DC and PR, Country fixed to United States, ZIP or ZIP+4. */
export function AddressModal({ show, address, saved, onClose }: AddressModalProps) {
  const { register, handleSubmit, reset, formState, control, setValue } = useForm<AddressBody>({ resolver: zodResolver(addressBody), defaultValues: EMPTY });
  // The same place saved already (another entry): said, not refused (two names for one address can be meant); the
  // same name and company too is the same entry, which the server refuses: said, and Save waits for a change.
  const typed = useWatch({ control });
  const others = typed.street && typed.zip ? saved.filter((other) => other._id !== address?._id) : [];
  const copy = others.find((other) => sameEntry(other, typed));
  const twin = copy ?? others.find((other) => samePlace(other, typed));
  const { errors } = formState;
  const save = useSaveAddress();
  const addressCheck = useAddressCheck<'address'>();
  const { clear } = addressCheck;
  const busy = save.isPending || addressCheck.checking;

  // Before the modal is painted, so nothing typed into it is cleared.
  useLayoutEffect(() => {
    if (show) reset(valuesOf(address));
    if (show) clear();
  }, [show, address, reset, clear]);

  // The carrier's word on the address before it is saved (when the shop verifies addresses): a corrected one is offered first.
  const onSubmit = handleSubmit(async (body) => {
    if (await addressCheck.mayGoOn({ address: { ...body, zip: String(body.zip) } })) save.mutate({ id: address?._id ?? null, body }, { onSuccess: onClose });
  });
  const takeSuggested = (suggested: { street: string; street2: string; city: string; state: string; zip: string }) => {
    for (const name of ['street', 'street2', 'city', 'state', 'zip'] as const) setValue(name, suggested[name], { shouldDirty: true });
    addressCheck.used('address', suggested);
  };

  const title = address ? 'Update Address' : 'Add Address';
  const text = (name: 'name' | 'company' | 'street' | 'street2' | 'city', label: string, optional = false) => (
    <Form.Group controlId={`address-${name}`}>
      <Form.Label>{label}</Form.Label>
      <Form.Control placeholder={optional ? 'Optional' : undefined} isInvalid={!!errors[name]} {...register(name)} />
      <Form.Control.Feedback type="invalid">{errors[name]?.message}</Form.Control.Feedback>
      <PrintsAs control={control} name={name} />
    </Form.Group>
  );

  return (
    <Modal show={show} onHide={busy ? () => undefined : onClose} centered size="lg">
      <Form onSubmit={(event) => void onSubmit(event)} noValidate aria-label={title}>
        <Modal.Header closeButton={!busy}>
          <Modal.Title as="h5">{title}</Modal.Title>
        </Modal.Header>
        <Modal.Body>
          {twin && (
            <Alert variant={copy ? 'danger' : 'warning'} className="py-2" data-testid="duplicate-address">
              {copy ? `${ADDRESS_DUPLICATE}: change it, or cancel.` : `This address is already saved as “${twin.name}”.`}
            </Alert>
          )}
          <AddressCheckNote title="Address" checked={addressCheck.checks.address} onUse={takeSuggested} className="mb-3" />
          <Row className="g-3">
            <Col sm={6}>{text('name', 'Name')}</Col>
            <Col sm={6}>{text('company', 'Company', true)}</Col>
            <Col sm={6}>{text('street', 'Street')}</Col>
            <Col sm={6}>{text('street2', 'Street 2', true)}</Col>
            <Col sm={6}>{text('city', 'City')}</Col>
            <Col sm={6}>
              <Form.Group controlId="address-state">
                <Form.Label>State</Form.Label>
                <Form.Select isInvalid={!!errors.state} {...register('state')}>
                  <RegionOptions />
                </Form.Select>
                <Form.Control.Feedback type="invalid">{errors.state?.message}</Form.Control.Feedback>
              </Form.Group>
            </Col>
            <Col sm={6}>
              <Form.Group controlId="address-zip">
                <Form.Label>ZIP</Form.Label>
                <Form.Control inputMode="numeric" maxLength={10} placeholder="12345 or 12345-6789" isInvalid={!!errors.zip} {...register('zip')} />
                <Form.Control.Feedback type="invalid">{errors.zip?.message}</Form.Control.Feedback>
              </Form.Group>
            </Col>
            <Col sm={6}>
              <Form.Group controlId="address-country">
                <Form.Label>Country</Form.Label>
                <Form.Control readOnly disabled value={ADDRESS_COUNTRY} />
              </Form.Group>
            </Col>
          </Row>
        </Modal.Body>
        <Modal.Footer>
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" disabled={busy || !!copy}>
            {busy && <Spinner animation="border" size="sm" className="me-2" />}
            {address ? 'Update' : 'Save'}
          </Button>
        </Modal.Footer>
      </Form>
    </Modal>
  );
}
