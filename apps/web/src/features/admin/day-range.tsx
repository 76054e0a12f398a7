import { Form, InputGroup } from 'react-bootstrap';

/** A filter's days, "From [day] To [day]" on one line (days of the shop's time zone, SHOP_TIME_ZONE; both ends included), as the console's lists filter by date. */
export function DayRange({ from, to, onFrom, onTo }: { from: string; to: string; onFrom: (day: string) => void; onTo: (day: string) => void }) {
  return (
    <InputGroup size="sm" className="flex-nowrap" data-testid="day-range">
      <InputGroup.Text>From</InputGroup.Text>
      <Form.Control type="date" aria-label="From date" title="From (a day of the shop's time zone)" value={from} onChange={(e) => onFrom(e.target.value)} />
      <InputGroup.Text>To</InputGroup.Text>
      <Form.Control type="date" aria-label="To date" title="To (a day of the shop's time zone, included)" value={to} onChange={(e) => onTo(e.target.value)} />
    </InputGroup>
  );
}
