import { useRef, type ReactNode } from 'react';
import { Button, Col, Modal, Row, Table } from 'react-bootstrap';
import { SHIPMENT_PURPOSE_LABELS, countryName, type FedexOrder } from '@portal/contract';
import { StatusBadge } from './status-badge.tsx';
import { formatClock, formatDay } from './format.ts';

type Address = { name: string; street: string; street2: string; city: string; state: string; zip: string; phone: string; email?: string; country: string };

const countryOf = (code: string) => (code ? `${countryName(code) ?? code} (${code})` : '');
const yesNo = (value: boolean) => (value ? 'Yes' : 'No');

const localDate = (date: string | null) => (date ? formatDay(date) : '');

function Fields({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <Table size="sm" className="mb-0 small">
      <tbody>
        {rows.map(([label, value]) => (
          <tr key={label}>
            <th className="w-50 fw-semibold">{label}</th>
            <td>{value === '' || value === null ? <span className="text-muted">-</span> : value}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

function AddressSection({ title, address, testId }: { title: string; address: Address; testId: string }) {
  const rows: [string, ReactNode][] = [
    ['Name', address.name],
    ['Street', address.street],
    ['Additional Street', address.street2],
    ['City', address.city],
    ['State', address.state],
    ['Zip', address.zip],
    ['Phone', address.phone],
  ];
  // The pickup address has no email.
  if (address.email !== undefined) rows.push(['Email', address.email]);
  rows.push(['Country', countryOf(address.country)]);
  return (
    <section data-testid={testId}>
      <h6 className="mt-2">{title}</h6>
      <Fields rows={rows} />
    </section>
  );
}

type FedexOrderModalProps = {
  /** The order shown; null closes the modal. */
  order: FedexOrder | null;
  onClose: () => void;
  /** Shown above the sections (the console names the customer here). */
  children?: ReactNode;
  /** Buttons beside Close. */
  actions?: ReactNode;
};

/** View Order: every section of a FedEx order, for the customer's Orders tab and the console's queue. */
export function FedexOrderModal({ order: current, onClose, children, actions }: FedexOrderModalProps) {
  // The last order stays on screen while the modal fades out.
  const last = useRef(current);
  if (current) last.current = current;
  const order = last.current;

  return (
    <Modal show={current !== null} onHide={onClose} size="lg" centered scrollable>
      <Modal.Header closeButton>
        <Modal.Title as="h5">View Order {order && <StatusBadge status={order.status} />}</Modal.Title>
      </Modal.Header>
      <Modal.Body data-testid="fedex-order-detail">
        {order && (
          <>
            <p className="small mb-2">
              OrderId <span className="font-monospace">{order.uuid}</span>
              {order.note && (
                <span className="d-block text-muted" data-testid="fedex-order-note">
                  Status Note: {order.note}
                </span>
              )}
            </p>
            {children}
            <Row className="g-3">
              <Col md={6}>
                <AddressSection title="Sender Information" address={order.from} testId="fedex-sender" />
              </Col>
              <Col md={6}>
                <AddressSection title="Receiver Information" address={order.to} testId="fedex-receiver" />
              </Col>
              <Col md={6}>
                <section data-testid="fedex-package">
                  <h6 className="mt-2">Package Details</h6>
                  <Fields
                    rows={[
                      ['Weight', `${order.weight} ${order.weightUnit}`],
                      ['Dimensions', `${order.length} x ${order.width} x ${order.height} ${order.dimensionUnit}`],
                      ['Weight Unit', order.weightUnit],
                      ['Special Notes', order.specialNotes],
                      ['Signature', yesNo(order.signature)],
                      ['Pickup', yesNo(order.pickup)],
                      ['Pickup Date', localDate(order.pickupDate)],
                      [
                        'Pickup Time',
                        order.pickupTime
                          ? `${formatClock(order.pickupTime)} - ${formatClock(order.pickupEndTime)}${order.timeZone ? ` (${order.timeZone})` : ''}`
                          : '',
                      ],
                    ]}
                  />
                </section>
              </Col>
              <Col md={6}>
                {order.pickupAddress ? (
                  <AddressSection title="Pickup Information" address={order.pickupAddress} testId="fedex-pickup" />
                ) : (
                  <section data-testid="fedex-pickup">
                    <h6 className="mt-2">Pickup Information</h6>
                    <p className="small text-muted">No pickup: the parcel is dropped off.</p>
                  </section>
                )}
              </Col>
            </Row>
            <section data-testid="fedex-items" className="mt-3">
              <h6>Invoice Items</h6>
              <p className="small mb-2">
                Shipment Purpose: <strong>{SHIPMENT_PURPOSE_LABELS[order.shipmentPurpose]}</strong> · Currency: <strong>{order.currency}</strong>
              </p>
              <Table size="sm" bordered className="small mb-0">
                <thead>
                  <tr>
                    <th>#</th>
                    <th>Description</th>
                    <th className="text-end">Units</th>
                    <th className="text-end">Weight ({order.weightUnit})</th>
                    <th className="text-end">Value ({order.currency})</th>
                    <th>Tariff</th>
                  </tr>
                </thead>
                <tbody>
                  {order.invoiceItems.map((item, index) => (
                    <tr key={index} data-testid="fedex-item">
                      <td>{index + 1}</td>
                      <td>{item.description}</td>
                      <td className="text-end">{item.units}</td>
                      <td className="text-end">{item.weight}</td>
                      <td className="text-end">{item.value.toFixed(2)}</td>
                      <td className="font-monospace">{item.tariff}</td>
                    </tr>
                  ))}
                </tbody>
                <tfoot>
                  <tr>
                    <th colSpan={4} className="text-end">
                      Total Value
                    </th>
                    <th className="text-end" data-testid="fedex-total-value">
                      {order.totalValue.toFixed(2)} {order.currency}
                    </th>
                    <th />
                  </tr>
                </tfoot>
              </Table>
            </section>
          </>
        )}
      </Modal.Body>
      <Modal.Footer>
        {actions}
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
