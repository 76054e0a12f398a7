import { useState } from 'react';
import { Alert, Button, Col, Form, Row, Spinner } from 'react-bootstrap';
import { PICKUP_INSTRUCTIONS_MAX, nextUspsPickupDay, shopDay, type Pickup, type PickupAnswer } from '@portal/contract';
import { errorMessage } from '../../api/client.ts';
import { useBookPickup, useRatePickup } from '../../api/pickups.ts';
import { pickupFee } from './pickup-fee.ts';

/** The answer shown under the form: it stays until the form is used again (a toast would go before it is read). */
type Outcome = { variant: 'success' | 'info' | 'danger'; text: string };

/** Tomorrow as the reader's own yyyy-mm-dd (a date field's value), not UTC's. */
function tomorrow(): string {
  const day = new Date();
  day.setDate(day.getDate() + 1);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
}

/** The day a pickup is first offered: USPS's next business day after the shop's today (the only day it takes), else tomorrow. */
const firstDay = (carrier: string) => (carrier === 'USPS' ? nextUspsPickupDay(shopDay()) : tomorrow());

/** A local date and time of day as the ISO moment the server takes. */
const moment = (date: string, time: string) => new Date(`${date}T${time}`).toISOString();

/** What a booking came to: booked, still on its way (the Pickups card follows it), or refused by the carrier. */
function bookedOutcome({ pickup }: PickupAnswer): Outcome {
  if (pickup.status === 'booked') return { variant: 'success', text: `Pickup booked, confirmation ${pickup.confirmation ?? ''}`.trim() };
  if (pickup.status === 'booking') return { variant: 'info', text: 'The carrier is booking the pickup; its status shows under Pickups' };
  return { variant: 'danger', text: pickup.message ?? 'The carrier refused the pickup' };
}

/** 'Schedule pickup' of one group's labels: the window, the carrier's rates for it, then the booking of one. */
export function PickupForm({ carrier, orderIds, onClose }: { carrier: string; orderIds: string[]; onClose: () => void }) {
  const [date, setDate] = useState(() => firstDay(carrier));
  const [start, setStart] = useState('09:00');
  const [end, setEnd] = useState('13:00');
  const [instructions, setInstructions] = useState('');
  // The rated pickup whose rates are offered, and the one chosen.
  const [rated, setRated] = useState<Pickup | null>(null);
  const [service, setService] = useState('');
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  // Booked (or being booked): the labels are on a pickup now, so only the answer stays (a refusal keeps the form for another try).
  const [done, setDone] = useState(false);
  const rate = useRatePickup();
  const book = useBookPickup();

  // A changed window or note needs new rates: the ones shown were for the old one.
  const edit = (set: (value: string) => void) => (event: { target: { value: string } }) => {
    set(event.target.value);
    setRated(null);
  };

  const seeRates = () => {
    setOutcome(null);
    if (!date || !start || !end) {
      setOutcome({ variant: 'danger', text: 'Choose the day and the window' });
      return;
    }
    rate.mutate(
      { orderIds, minDatetime: moment(date, start), maxDatetime: moment(date, end), instructions },
      {
        onSuccess: ({ pickup }) => {
          setRated(pickup);
          setService(pickup.rates[0]?.service ?? '');
          if (pickup.rates.length === 0) setOutcome({ variant: 'danger', text: 'The carrier offered no pickup for this window' });
        },
        onError: (error) => setOutcome({ variant: 'danger', text: errorMessage(error) }),
      },
    );
  };

  const bookIt = () => {
    if (!rated || !service) return;
    setOutcome(null);
    book.mutate(
      { pickupId: rated._id, service },
      {
        onSuccess: (answer) => {
          setOutcome(bookedOutcome(answer));
          setRated(null);
          setDone(answer.pickup.status !== 'failed');
        },
        onError: (error) => setOutcome({ variant: 'danger', text: errorMessage(error) }),
      },
    );
  };

  const alert = outcome && (
    <Alert variant={outcome.variant} className="py-2 small text-break" data-testid={`pickup-${outcome.variant}`}>
      {outcome.text}
    </Alert>
  );
  const close = (
    <Button size="sm" variant="outline-secondary" onClick={onClose}>
      Close
    </Button>
  );
  if (done) {
    return (
      <div className="border-top pt-2 mt-2" data-testid="pickup-form">
        {alert}
        {close}
      </div>
    );
  }

  return (
    <div className="border-top pt-2 mt-2" data-testid="pickup-form">
      <Row className="g-2 mb-2">
        <Col xs={12} sm={4}>
          <Form.Group controlId={`pickup-date-${orderIds[0]}`}>
            <Form.Label className="small mb-1">Pickup date</Form.Label>
            <Form.Control size="sm" type="date" value={date} onChange={edit(setDate)} />
            {carrier === 'USPS' && <Form.Text className="small">USPS picks up on its next business day</Form.Text>}
          </Form.Group>
        </Col>
        <Col xs={6} sm={4}>
          <Form.Group controlId={`pickup-start-${orderIds[0]}`}>
            <Form.Label className="small mb-1">From</Form.Label>
            <Form.Control size="sm" type="time" value={start} onChange={edit(setStart)} />
          </Form.Group>
        </Col>
        <Col xs={6} sm={4}>
          <Form.Group controlId={`pickup-end-${orderIds[0]}`}>
            <Form.Label className="small mb-1">Until</Form.Label>
            <Form.Control size="sm" type="time" value={end} onChange={edit(setEnd)} />
          </Form.Group>
        </Col>
        <Col xs={12}>
          <Form.Group controlId={`pickup-instructions-${orderIds[0]}`}>
            <Form.Label className="small mb-1">Instructions (optional)</Form.Label>
            <Form.Control size="sm" maxLength={PICKUP_INSTRUCTIONS_MAX} value={instructions} onChange={edit(setInstructions)} placeholder="Back door" />
          </Form.Group>
        </Col>
      </Row>
      {rated && rated.rates.length > 0 && (
        <fieldset className="mb-2" data-testid="pickup-rates">
          <legend className="small fw-semibold mb-1">Pickup rates</legend>
          {rated.rates.map((r) => (
            <Form.Check
              key={r.service}
              type="radio"
              id={`pickup-rate-${rated._id}-${r.service}`}
              name={`pickup-rate-${rated._id}`}
              label={`${r.service} — ${pickupFee(r.fee)}`}
              checked={service === r.service}
              onChange={() => setService(r.service)}
            />
          ))}
        </fieldset>
      )}
      {alert}
      <div className="d-flex flex-wrap gap-2">
        {rated && rated.rates.length > 0 ? (
          <Button size="sm" variant="success" disabled={book.isPending || !service} onClick={bookIt}>
            {book.isPending && <Spinner animation="border" size="sm" className="me-1" />}
            Book pickup
          </Button>
        ) : (
          <Button size="sm" disabled={rate.isPending} onClick={seeRates}>
            {rate.isPending && <Spinner animation="border" size="sm" className="me-1" />}
            See pickup rates
          </Button>
        )}
        {close}
      </div>
    </div>
  );
}
