import { get, type Control, type FieldErrors, type Path, type UseFormRegister } from 'react-hook-form';
import { Col, Form, Row } from 'react-bootstrap';
import { COUNTRIES, type CreateFedexOrderBody } from '@portal/contract';
import { PrintsAs } from '../../components/prints-as.tsx';

export type FedexForm = CreateFedexOrderBody;

const FIELDS = [
  { key: 'name', label: 'Name', printed: true },
  { key: 'street', label: 'Street', printed: true },
  { key: 'street2', label: 'Street 2', optional: true, printed: true },
  { key: 'city', label: 'City', printed: true },
  { key: 'state', label: 'State', optional: true, printed: true },
  { key: 'zip', label: 'ZIP' },
  { key: 'phone', label: 'Phone', type: 'tel' },
  { key: 'email', label: 'Email', type: 'email', optional: true },
  { key: 'country', label: 'Country' },
] as const;
export type AddressKey = (typeof FIELDS)[number]['key'];

type AddressFieldsProps = {
  /** Prefixes the inputs' ids. */
  idPrefix: string;
  /** The form field of each address line; an address without `email` (the pickup) shows no Email. */
  names: Partial<Record<AddressKey, Path<FedexForm>>>;
  control: Control<FedexForm>;
  register: UseFormRegister<FedexForm>;
  errors: FieldErrors<FedexForm>;
};

/** Name, Street, Street 2, City, State, ZIP, Phone, Email and Country (a select of ISO 3166 countries). */
export function AddressFields({ idPrefix, names, control, register, errors }: AddressFieldsProps) {
  return (
    <Row className="g-3">
      {FIELDS.map((field) => {
        const name = names[field.key];
        if (!name) return null;
        const error = get(errors, name) as { message?: string } | undefined;
        const id = `${idPrefix}-${field.key}`;
        return (
          <Col sm={field.key === 'name' || field.key === 'country' ? 12 : 6} key={field.key}>
            <Form.Group controlId={id}>
              <Form.Label>{field.label}</Form.Label>
              {field.key === 'country' ? (
                <Form.Select isInvalid={!!error} {...register(name)}>
                  <option value="">Select country</option>
                  {COUNTRIES.map((country) => (
                    <option key={country.code} value={country.code}>
                      {country.name}
                    </option>
                  ))}
                </Form.Select>
              ) : (
                <Form.Control
                  type={'type' in field ? field.type : 'text'}
                  placeholder={'optional' in field ? 'Optional' : undefined}
                  isInvalid={!!error}
                  {...register(name)}
                />
              )}
              <Form.Control.Feedback type="invalid">{error?.message}</Form.Control.Feedback>
              {'printed' in field && <PrintsAs control={control} name={name} />}
            </Form.Group>
          </Col>
        );
      })}
    </Row>
  );
}
