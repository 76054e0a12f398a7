import { get, useFieldArray, useWatch, type Control, type FieldErrors, type UseFormRegister } from 'react-hook-form';
import { Button, Col, Form, Row, Table } from 'react-bootstrap';
import { FEDEX_CURRENCIES, FEDEX_MAX_ITEMS, SHIPMENT_PURPOSES, SHIPMENT_PURPOSE_LABELS } from '@portal/contract';
import { PrintsAs } from '../../components/prints-as.tsx';
import type { FedexForm } from './address-fields.tsx';

export const EMPTY_ITEM = { units: '', description: '', weight: '', value: '', tariff: '' };

const COLUMNS = [
  { key: 'units', label: 'Units', type: 'number', width: '6rem' },
  { key: 'description', label: 'Description', type: 'text' },
  { key: 'weight', label: 'Weight', type: 'number', width: '7rem' },
  { key: 'value', label: 'Value', type: 'number', width: '8rem' },
  { key: 'tariff', label: 'Tariff Code', type: 'text', width: '9rem' },
] as const;

/** Units x value summed in cents, so ten lines of 0.10 make 1.00; unfinished lines count as 0. */
function totalValue(items: { units?: unknown; value?: unknown }[] | undefined): number {
  const cents = (items ?? []).reduce((sum, item) => {
    const units = Number(item.units);
    const value = Number(item.value);
    return Number.isFinite(units) && Number.isFinite(value) ? sum + units * Math.round(value * 100) : sum;
  }, 0);
  return cents / 100;
}

type Props = { control: Control<FedexForm>; register: UseFormRegister<FedexForm>; errors: FieldErrors<FedexForm> };

/** Commercial Invoice Builder: purpose, currency and 1 to 10 items, with the running total value. */
export function InvoiceItemsFields({ control, register, errors }: Props) {
  const { fields, append, remove } = useFieldArray({ control, name: 'invoiceItems' });
  const [items, currency] = useWatch({ control, name: ['invoiceItems', 'currency'] });
  const full = fields.length >= FEDEX_MAX_ITEMS;
  const listError = (get(errors, 'invoiceItems.root') ?? get(errors, 'invoiceItems')) as { message?: string } | undefined;

  return (
    <>
      <Row className="g-3 mb-3">
        <Col sm={6} md={4}>
          <Form.Group controlId="fedex-purpose">
            <Form.Label>Shipment Purpose</Form.Label>
            <Form.Select {...register('shipmentPurpose')}>
              {SHIPMENT_PURPOSES.map((purpose) => (
                <option key={purpose} value={purpose}>
                  {SHIPMENT_PURPOSE_LABELS[purpose]}
                </option>
              ))}
            </Form.Select>
          </Form.Group>
        </Col>
        <Col sm={6} md={4}>
          <Form.Group controlId="fedex-currency">
            <Form.Label>Currency</Form.Label>
            <Form.Select {...register('currency')}>
              {FEDEX_CURRENCIES.map((code) => (
                <option key={code} value={code}>
                  {code}
                </option>
              ))}
            </Form.Select>
          </Form.Group>
        </Col>
      </Row>
      {/* On phones each item is a card (invoice-items in styles.css): its fields two by two under their names, its number and ✕ on top. */}
      <Table responsive size="sm" className="align-top mb-2 invoice-items" data-testid="invoice-items">
        <thead>
          <tr>
            <th>#</th>
            {COLUMNS.map((column) => (
              <th key={column.key} style={{ width: 'width' in column ? column.width : undefined }}>
                {column.label}
              </th>
            ))}
            <th />
          </tr>
        </thead>
        <tbody>
          {fields.map((field, index) => (
            <tr key={field.id} data-testid="invoice-item">
              <td className="pt-2 item-number">
                <span className="d-md-none">Item </span>
                {index + 1}
              </td>
              {COLUMNS.map((column) => {
                const name = `invoiceItems.${index}.${column.key}` as const;
                const error = get(errors, name) as { message?: string } | undefined;
                return (
                  <td key={column.key} data-label={column.label} className={column.key === 'description' ? 'item-wide' : undefined}>
                    <Form.Control
                      size="sm"
                      type={column.type}
                      step={column.type === 'number' ? 'any' : undefined}
                      aria-label={`Item ${index + 1} ${column.label}`}
                      isInvalid={!!error}
                      {...register(name)}
                    />
                    <Form.Control.Feedback type="invalid">{error?.message}</Form.Control.Feedback>
                    {column.key === 'description' && <PrintsAs control={control} name={name} />}
                  </td>
                );
              })}
              <td className="item-remove">
                <Button size="sm" variant="outline-danger" aria-label={`Remove item ${index + 1}`} disabled={fields.length <= 1} onClick={() => remove(index)}>
                  ✕
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
      {listError?.message && <div className="text-danger small mb-2">{listError.message}</div>}
      <div className="d-flex flex-wrap align-items-center gap-3">
        <Button size="sm" variant="outline-primary" disabled={full} onClick={() => append({ ...EMPTY_ITEM })}>
          Add Item
        </Button>
        <span className="small text-muted" data-testid="invoice-item-count">
          {fields.length} of {FEDEX_MAX_ITEMS} items
        </span>
        <span className="ms-auto fw-semibold" data-testid="invoice-total">
          Total Value: {totalValue(items).toFixed(2)} {currency}
        </span>
      </div>
    </>
  );
}
