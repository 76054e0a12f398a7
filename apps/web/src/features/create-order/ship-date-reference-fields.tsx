import type { UseFormRegisterReturn } from 'react-hook-form';
import { Col, Form, Row } from 'react-bootstrap';
import { REFERENCE_MAX, SHIP_DATE_DAYS_AHEAD, getShopTimeZone, referenceMaxFor, shopDay } from '@portal/contract';

type Props = {
  idPrefix: string;
  /** The chosen label type's uid ('' before one is chosen): its carrier sets how long a reference line may be. */
  uid: string;
  fields: { ShipDate: UseFormRegisterReturn; Reference: UseFormRegisterReturn; Reference2: UseFormRegisterReturn };
  errors: { ShipDate?: { message?: string }; Reference?: { message?: string }; Reference2?: { message?: string } };
};

const CARRIER_WORD = (uid: string) => (uid.startsWith('ups_') ? 'UPS' : uid.startsWith('fedex') ? 'FedEx' : 'USPS');

/**
 * Ship date (today to SHIP_DATE_DAYS_AHEAD days ahead, days of the shop's time zone, as the server counts them) and the two reference
 * lines the label prints, each with the chosen carrier's limit. Three columns on a wide screen, one under the other on a
 * phone.
 */
export function ShipDateReferenceFields({ idPrefix, uid, fields, errors }: Props) {
  const max = uid ? referenceMaxFor(uid) : REFERENCE_MAX;
  const hint = uid ? `At most ${max} characters (${CARRIER_WORD(uid)})` : `At most ${max} characters`;
  const reference = (name: 'Reference' | 'Reference2', label: string) => (
    <Col sm={4}>
      <Form.Group controlId={`${idPrefix}-${name.toLowerCase()}`}>
        <Form.Label>{label}</Form.Label>
        <Form.Control maxLength={max} placeholder="Optional, printed on the label" isInvalid={!!errors[name]} {...fields[name]} />
        <Form.Control.Feedback type="invalid">{errors[name]?.message}</Form.Control.Feedback>
        <Form.Text>{hint}</Form.Text>
      </Form.Group>
    </Col>
  );
  return (
    <Row className="g-3 mb-3" data-testid={`${idPrefix}-ship-date-reference`}>
      <Col sm={4}>
        <Form.Group controlId={`${idPrefix}-ship-date`}>
          <Form.Label>Ship date</Form.Label>
          <Form.Control type="date" min={shopDay(0)} max={shopDay(SHIP_DATE_DAYS_AHEAD)} isInvalid={!!errors.ShipDate} {...fields.ShipDate} />
          <Form.Control.Feedback type="invalid">{errors.ShipDate?.message}</Form.Control.Feedback>
          <Form.Text>
            Today to {SHIP_DATE_DAYS_AHEAD} days ahead (days of the shop's time zone, {getShopTimeZone()})
          </Form.Text>
        </Form.Group>
      </Col>
      {reference('Reference', 'Reference')}
      {reference('Reference2', 'Reference 2')}
    </Row>
  );
}
