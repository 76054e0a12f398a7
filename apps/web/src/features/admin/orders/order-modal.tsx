import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Col, Modal, Row, Spinner, Table } from 'react-bootstrap';
import { ledgerKindLabel, weightUnitFor, type AdminOrderDetail } from '@portal/contract';
import { errorMessage } from '../../../api/client.ts';
import { formatDate, money, signedMoney } from '../../../components/format.ts';
import { StatusBadge } from '../../../components/status-badge.tsx';
import { RefundBadge } from '../../../components/refund-badge.tsx';
import { adminOrderQuery } from '../../../api/admin.ts';
import { OrderAddress } from '../../../components/order-address.tsx';

export const isCancellable = (status: string) => status === 'pending' || status === 'processing';

/** Any customer's order: its details, both addresses, its ledger rows; download or cancel from here. */
export function OrderModal({
  orderId,
  onClose,
  onDownload,
  onCancel,
}: {
  orderId: string | null;
  onClose: () => void;
  onDownload: (order: AdminOrderDetail['order']) => void;
  onCancel: (order: AdminOrderDetail['order']) => void;
}) {
  const detail = useQuery({ ...adminOrderQuery(orderId), refetchOnMount: 'always' });
  useEffect(() => {
    if (detail.error) console.error('Failed to load the order', detail.error);
  }, [detail.error]);
  const order = detail.data?.order;
  const unit = order ? weightUnitFor(order.labelType.uid) : 'lb';
  const dims =
    order && order.length !== null && order.width !== null && order.height !== null ? `${order.length} x ${order.width} x ${order.height} in` : 'Not given';

  return (
    <Modal show={orderId !== null} onHide={onClose} size="lg" centered>
      <Modal.Header closeButton>
        <Modal.Title as="h5">Order {order ? <span className="font-monospace">{order.OrderId}</span> : ''}</Modal.Title>
      </Modal.Header>
      <Modal.Body data-testid="order-detail">
        {detail.isPending && <Spinner animation="border" size="sm" />}
        {detail.isError && <Alert variant="danger">{errorMessage(detail.error)}</Alert>}
        {order && (
          <>
            <Row className="g-3 mb-3 small">
              <Col md={6}>
                <Table size="sm" className="mb-0">
                  <tbody>
                    <tr>
                      <th>Status</th>
                      <td>
                        <StatusBadge status={order.status} />{' '}
                        {order.note && (
                          <span className="text-muted" data-testid="order-note">
                            {order.note}
                          </span>
                        )}
                      </td>
                    </tr>
                    {order.refundStatus && (
                      <tr>
                        <th>Refund</th>
                        <td data-testid="order-refund">
                          <RefundBadge status={order.refundStatus} note={order.refundNote} />{' '}
                          {order.refundStatus === 'requested' && 'Asked; the label cannot be downloaded meanwhile'}
                          {order.refundStatus === 'refunded' && 'The label was voided and its price credited; it can no longer be downloaded'}
                          {order.refundStatus === 'rejected' && (order.refundNote ?? 'No reason given')}
                        </td>
                      </tr>
                    )}
                    <tr>
                      <th>Customer</th>
                      <td>
                        <Link to={`/admin/users/${encodeURIComponent(order.owner._id)}`} onClick={onClose}>
                          {order.owner.username} (@{order.owner.tgId})
                        </Link>
                      </td>
                    </tr>
                    <tr>
                      <th>Type</th>
                      <td>
                        {order.labelType.name}
                        {order.design ? ` (${order.design})` : ''}
                      </td>
                    </tr>
                    <tr>
                      <th>Weight</th>
                      <td>
                        {order.weight} {unit}
                      </td>
                    </tr>
                    <tr>
                      <th>Dimensions</th>
                      <td data-testid="order-dims">{dims}</td>
                    </tr>
                  </tbody>
                </Table>
              </Col>
              <Col md={6}>
                <Table size="sm" className="mb-0">
                  <tbody>
                    <tr>
                      <th>Price</th>
                      <td>{money(order.price)}</td>
                    </tr>
                    {order.upstream && (
                      <tr>
                        <th>Upstream</th>
                        <td data-testid="order-upstream">
                          {order.upstream.carrier} {order.upstream.service}: cost {order.upstream.cost === null ? '—' : money(order.upstream.cost)}, margin{' '}
                          {order.upstream.margin === null ? '—' : money(order.upstream.margin)}
                        </td>
                      </tr>
                    )}
                    <tr>
                      <th>Tracking</th>
                      <td className="font-monospace">{order.tracking ?? '—'}</td>
                    </tr>
                    <tr>
                      <th>Created</th>
                      <td>{formatDate(order.createdAt)}</td>
                    </tr>
                    <tr>
                      <th>Updated</th>
                      <td>{formatDate(order.updatedAt)}</td>
                    </tr>
                    <tr>
                      <th>Bulk order</th>
                      <td className="font-monospace" data-testid="order-bulk">
                        {order.bulkOrderId ?? 'None (a single order)'}
                      </td>
                    </tr>
                  </tbody>
                </Table>
              </Col>
            </Row>
            <Row className="g-3 mb-3 small">
              <Col md={6}>
                <OrderAddress title="From" party={order.from} testId="order-from" />
              </Col>
              <Col md={6}>
                <OrderAddress title="To" party={order.to} testId="order-to" />
              </Col>
            </Row>
            <h6>Ledger</h6>
            <Table size="sm" className="small mb-0" data-testid="order-ledger">
              <thead>
                <tr>
                  <th>Date</th>
                  <th>Type</th>
                  <th className="text-end">Amount</th>
                  <th>Note</th>
                </tr>
              </thead>
              <tbody>
                {detail.data!.ledger.length === 0 && (
                  <tr>
                    <td colSpan={4} className="text-muted">
                      No balance movement
                    </td>
                  </tr>
                )}
                {detail.data!.ledger.map((row) => (
                  <tr key={row._id} data-testid="order-ledger-row">
                    <td>{formatDate(row.createdAt)}</td>
                    <td>{ledgerKindLabel(row.kind)}</td>
                    <td className={`text-end ${row.amount < 0 ? 'text-danger' : 'text-success'}`}>{signedMoney(row.amount)}</td>
                    <td>{row.note}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </>
        )}
      </Modal.Body>
      <Modal.Footer>
        {order?.status === 'completed' && order.pdf && (
          <Button variant="outline-success" onClick={() => onDownload(order)}>
            Download label
          </Button>
        )}
        {order && isCancellable(order.status) && (
          <Button variant="outline-danger" onClick={() => onCancel(order)}>
            Cancel order
          </Button>
        )}
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
