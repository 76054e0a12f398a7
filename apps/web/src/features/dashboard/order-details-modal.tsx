import { useEffect, useState, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Col, Modal, Row, Spinner, Table } from 'react-bootstrap';
import { PRIORITY_TEMPLATES, TRACKING_STATUS_LABELS, ledgerKindLabel, onScanForm, refundBlocked, weightUnitFor } from '@portal/contract';
import { errorMessage } from '../../api/client.ts';
import { orderDetailsQuery, useRefundOrder, useReturnOrder } from '../../api/orders.ts';
import { ConfirmModal, type Confirmation } from '../../components/confirm-modal.tsx';
import { RefundBadge } from '../../components/refund-badge.tsx';
import { formatDate, money, signedMoney } from '../../components/format.ts';
import { StatusBadge } from '../../components/status-badge.tsx';
import { OrderAddress } from '../../components/order-address.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { orderPickupText } from '../../components/pickup-window.ts';

const templateName = (design: string | null) => PRIORITY_TEMPLATES.find((t) => t.value === design)?.label ?? design;

function Fact({ name, children }: { name: string; children: ReactNode }) {
  return (
    <tr>
      <th className="text-nowrap fw-semibold pe-3">{name}</th>
      <td>{children}</td>
    </tr>
  );
}

/** 'Request refund' of a completed label not refunded yet, asked twice: a refunded label can no longer be used. */
function RefundAction({ orderId }: { orderId: string }) {
  const refund = useRefundOrder();
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  const ask = () =>
    setConfirmation({
      title: 'Request refund',
      body: 'Void this label and refund its price? It can no longer be used.',
      confirmLabel: 'Request refund',
      variant: 'danger',
      run: (done) => refund.mutate(orderId, { onSuccess: done }),
    });
  return (
    <>
      <Button size="sm" variant="outline-danger" onClick={ask}>
        Request refund
      </Button>
      <ConfirmModal confirmation={confirmation} busy={refund.isPending} onClose={() => setConfirmation(null)} />
    </>
  );
}

/** 'Create return label': a label of the same type from the receiver back to the sender, charged like any label. */
function ReturnAction({ orderId, price }: { orderId: string; price: number }) {
  const makeReturn = useReturnOrder();
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  const ask = () =>
    setConfirmation({
      title: 'Create return label',
      body: `Make a label of the same type from the receiver back to the sender? About ${money(price)} is charged to your balance, as for any label of its type.`,
      confirmLabel: 'Create return label',
      run: (done) => makeReturn.mutate(orderId, { onSuccess: done }),
    });
  return (
    <>
      <Button size="sm" variant="outline-primary" onClick={ask}>
        Create return label
      </Button>
      <ConfirmModal confirmation={confirmation} busy={makeReturn.isPending} onClose={() => setConfirmation(null)} />
    </>
  );
}

/** What the label prints of one side's lines that print otherwise than typed (printedAs is keyed by CSV column: ToName...). */
const printedOf = (printedAs: Record<string, string>, side: 'From' | 'To') =>
  Object.entries(printedAs)
    .filter(([column]) => column.startsWith(side))
    .map(([, printed]) => printed);

/** An order of the Order History, whole: addresses, package, type and template, tracking, price, its ledger rows, why it failed, its CSV order. */
export function OrderDetailsModal({ orderId, onClose }: { orderId: string | null; onClose: () => void }) {
  const detail = useQuery({ ...orderDetailsQuery(orderId), refetchOnMount: 'always' });
  useEffect(() => {
    if (detail.error) console.error('Failed to load the order', detail.error);
  }, [detail.error]);
  const data = orderId !== null ? detail.data : undefined;
  const order = data?.order;
  const dims =
    order && order.length !== null && order.width !== null && order.height !== null ? `${order.length} x ${order.width} x ${order.height} in` : 'Not given';
  const refunded = data?.ledger.filter((l) => l.amount > 0).reduce((sum, l) => sum + l.amount, 0) ?? 0;

  return (
    <Modal show={orderId !== null} onHide={onClose} size="lg" centered>
      <Modal.Header closeButton>
        <Modal.Title as="h5">Order {order ? <span className="font-monospace">{order.OrderId}</span> : ''}</Modal.Title>
      </Modal.Header>
      <Modal.Body data-testid="order-details">
        {orderId !== null && detail.isPending && <Spinner animation="border" size="sm" />}
        {detail.isError && <Alert variant="danger">{errorMessage(detail.error)}</Alert>}
        {order && data && (
          <>
            {order.status === 'cancelled' && order.note && (
              <Alert variant="danger" className="small" data-testid="order-failure">
                <strong>The label provider said:</strong> {order.note}
              </Alert>
            )}
            <Row className="g-3 mb-3 small">
              <Col md={6}>
                <OrderAddress title="From" party={order.from} testId="order-from" printed={printedOf(order.printedAs, 'From')} />
              </Col>
              <Col md={6}>
                <OrderAddress title="To" party={order.to} testId="order-to" printed={printedOf(order.printedAs, 'To')} />
              </Col>
            </Row>
            <Table size="sm" className="small mb-3" data-testid="order-facts">
              <tbody>
                <Fact name="Status">
                  <StatusBadge status={order.status} />
                  <RefundBadge status={order.refundStatus} note={order.refundNote} />
                </Fact>
                {order.status === 'completed' && (
                  <Fact name="Refund">
                    <span data-testid="order-refund">
                      {order.refundStatus === null && (refundBlocked(order) ?? <RefundAction orderId={order._id} />)}
                      {order.refundStatus === 'requested' && 'Requested: the carrier decides; the label cannot be downloaded meanwhile.'}
                      {order.refundStatus === 'refunded' && 'Refunded to your balance; the label can no longer be used.'}
                      {order.refundStatus === 'rejected' && `Rejected: ${order.refundNote ?? 'no reason given'}`}
                    </span>
                  </Fact>
                )}
                {order.isReturn ? (
                  <Fact name="Return">
                    <span data-testid="order-return">
                      {order.returnOf
                        ? `Return label of order ${order.returnOf.slice(0, 8).toUpperCase()}`
                        : 'Return label (the parcel comes back to its sender)'}
                    </span>
                  </Fact>
                ) : (
                  order.status === 'completed' && (
                    <Fact name="Return">
                      <span data-testid="order-return">
                        {order.returnId ? (
                          `Return label made: order ${order.returnId.slice(0, 8).toUpperCase()}`
                        ) : order.refundStatus === 'requested' || order.refundStatus === 'refunded' ? (
                          'None (the label was refunded)'
                        ) : (
                          <ReturnAction orderId={order._id} price={order.price - (order.insurance?.price ?? 0)} />
                        )}
                      </span>
                    </Fact>
                  )
                )}
                {order.scanFormId && (
                  <Fact name="SCAN form">
                    <span data-testid="order-scan-form">{onScanForm(order.scanFormId)}</span>
                  </Fact>
                )}
                {order.pickup && (
                  <Fact name="Pickup">
                    <span data-testid="order-pickup">{orderPickupText(order.pickup)}</span>
                  </Fact>
                )}
                <Fact name="Label type">{order.labelType.name}</Fact>
                {order.design && <Fact name="Template">{templateName(order.design)}</Fact>}
                <Fact name="Weight">
                  {order.weight} {weightUnitFor(order.labelType.uid)}
                </Fact>
                <Fact name="Dimensions">{dims}</Fact>
                {order.shipDate && <Fact name="Ship date">{order.shipDate}</Fact>}
                {(order.reference || order.reference2) && (
                  <Fact name="Reference">
                    <span className="text-break" data-testid="order-details-reference">
                      {[order.reference, order.reference2].filter(Boolean).join(' / ')}
                    </span>
                  </Fact>
                )}
                <Fact name="Tracking">
                  <span className="font-monospace">{order.tracking ?? 'None yet'}</span>
                </Fact>
                {order.status === 'completed' && (
                  <Fact name="Shipment">
                    <span data-testid="order-tracking-status">{order.trackingStatus ? TRACKING_STATUS_LABELS[order.trackingStatus] : 'Not scanned yet'}</span>
                  </Fact>
                )}
                {order.trackingUrl && (
                  <Fact name="Tracking page">
                    {/* The recipient's public page: no sign-in, no names or streets; hand the link on. */}
                    <a href={order.trackingUrl} target="_blank" rel="noreferrer" className="text-break me-2" data-testid="order-tracking-page">
                      {order.trackingUrl}
                    </a>
                    <CopyButton text={order.trackingUrl} copied="Tracking link copied" size="sm" className="py-0">
                      Copy
                    </CopyButton>
                  </Fact>
                )}
                {order.toEmail && <Fact name="Recipient email">{order.toEmail}</Fact>}
                <Fact name="Price">
                  {money(order.price)}
                  {refunded > 0 && <span className="text-success ms-2">Refunded {money(refunded)}</span>}
                </Fact>
                {order.insurance && (
                  <Fact name="Insurance">
                    <span data-testid="order-insurance">
                      {money(order.insurance.value)} declared, {money(order.insurance.price)} of the price
                    </span>
                  </Fact>
                )}
                <Fact name="CSV order">
                  {order.bulkOrderId ? (
                    <span data-testid="order-bulk">
                      <span className="font-monospace">{order.bulkOrderId.slice(0, 8).toUpperCase()}</span>, row {order.bulkRow}
                    </span>
                  ) : (
                    'None (ordered on its own)'
                  )}
                </Fact>
                <Fact name="Created At">{formatDate(order.createdAt)}</Fact>
              </tbody>
            </Table>
            <h6 className="text-muted small text-uppercase">Balance movements</h6>
            {data.ledger.length === 0 ? (
              <p className="small text-muted mb-0">{order.bulkOrderId ? 'Charged with its CSV order.' : 'None.'}</p>
            ) : (
              <Table size="sm" className="small mb-0">
                <tbody>
                  {data.ledger.map((row) => (
                    <tr key={row._id} data-testid="order-ledger-row">
                      <td>{formatDate(row.createdAt)}</td>
                      <td>{ledgerKindLabel(row.kind)}</td>
                      <td className="text-end">{signedMoney(row.amount)}</td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            )}
          </>
        )}
      </Modal.Body>
    </Modal>
  );
}
