import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Button, ButtonGroup, Card, Form } from 'react-bootstrap';
import { ADMIN_REFUND_STATES, type AdminRefund } from '@portal/contract';
import { adminRefundsQuery, useDecideRefund } from '../../../api/admin.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { formatDate, money } from '../../../components/format.ts';
import { PagedTable, type Columns } from '../../../components/paged-table.tsx';
import { RefundBadge } from '../../../components/refund-badge.tsx';

type State = (typeof ADMIN_REFUND_STATES)[number];
const STATE_LABELS: Record<State, string> = { requested: 'Requested', stuck: 'Stuck', rejected: 'Rejected', refunded: 'Refunded' };

/** Approve, or reject with a reason, one refund; every decision is audited on the server. */
function Decide({ refund }: { refund: AdminRefund }) {
  const decide = useDecideRefund();
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  if (rejecting)
    return (
      <Form
        className="d-flex gap-1"
        onSubmit={(event) => {
          event.preventDefault();
          decide.mutate({ kind: 'reject', orderId: refund._id, reason: reason.trim() }, { onSuccess: () => setRejecting(false) });
        }}
      >
        <Form.Control size="sm" aria-label="Reason" placeholder="Reason the customer reads" value={reason} onChange={(e) => setReason(e.target.value)} />
        <Button size="sm" type="submit" variant="danger" disabled={!reason.trim() || decide.isPending}>
          Reject
        </Button>
        <Button size="sm" variant="outline-secondary" onClick={() => setRejecting(false)}>
          Cancel
        </Button>
      </Form>
    );
  return (
    <div className="d-flex gap-1">
      {(refund.refundStatus === 'requested' || refund.refundStatus === 'rejected') && (
        <Button size="sm" variant="success" disabled={decide.isPending} onClick={() => decide.mutate({ kind: 'approve', orderId: refund._id })}>
          Approve
        </Button>
      )}
      {refund.refundStatus === 'requested' && (
        <Button size="sm" variant="outline-danger" onClick={() => setRejecting(true)}>
          Reject
        </Button>
      )}
    </div>
  );
}

const COLUMNS: Columns<AdminRefund> = [
  { header: 'Order ID', td: (refund) => ({ className: 'font-monospace', title: refund._id }), cell: (refund) => refund.OrderId },
  { header: 'Customer', cell: (refund) => <Link to={`/admin/users/${encodeURIComponent(refund.owner._id)}`}>@{refund.owner.tgId}</Link> },
  { header: 'Type', cell: (refund) => refund.labelType.name },
  { header: 'Price', className: 'text-end', cell: (refund) => money(refund.price) },
  {
    header: 'Refund',
    cell: (refund) => (
      <>
        <RefundBadge status={refund.refundStatus} note={refund.refundNote} />
        {refund.refundNote && <div className="text-muted">{refund.refundNote}</div>}
      </>
    ),
  },
  { header: 'Upstream', cell: (refund) => refund.refundUpstream ?? '-' },
  {
    header: 'Tracking',
    cell: (refund) => (
      <>
        <span className="font-monospace">{refund.tracking ?? ''}</span>
        {refund.trackingStatus && <div className="text-muted">{refund.trackingStatus}</div>}
      </>
    ),
  },
  { header: 'Requested', cell: (refund) => (refund.refundRequestedAt ? formatDate(refund.refundRequestedAt) : '') },
  { header: 'Action', cell: (refund) => <Decide refund={refund} /> },
];

/**
 * /admin/refunds: label refunds by state: requested (oldest first), stuck (requested for long: the upstream has not
 * decided), rejected and refunded. An operator approves (credited once) or rejects by hand the labels the upstream
 * cannot void.
 */
export function RefundsPage() {
  const [state, setState] = useState<State>('requested');
  const list = usePagedList({ query: (page) => adminRefundsQuery(state, page) });
  const { query } = list;
  return (
    <Card>
      <Card.Header className="d-flex flex-wrap align-items-baseline gap-2">
        <h2 className="h6 mb-0 me-auto">Label refunds</h2>
        <ButtonGroup size="sm" aria-label="Refund state">
          {ADMIN_REFUND_STATES.map((s) => (
            <Button key={s} variant={s === state ? 'primary' : 'outline-primary'} onClick={() => setState(s)} aria-pressed={s === state}>
              {STATE_LABELS[s]}
            </Button>
          ))}
        </ButtonGroup>
        {query.data && (
          <span className="small text-muted" data-testid="refunds-total">
            {query.data.total} {STATE_LABELS[state].toLowerCase()}
          </span>
        )}
      </Card.Header>
      <Card.Body>
        <PagedTable
          query={query}
          rows={query.data?.refunds ?? []}
          columns={COLUMNS}
          what="the refunds"
          empty={`No ${STATE_LABELS[state].toLowerCase()} refunds.`}
          testId="refunds-table"
          rowProps={(refund) => ({ 'data-testid': 'refund-row', 'data-order-id': refund._id })}
          compact
          pager={{ label: 'Refund pages', ...list.pager }}
        />
      </Card.Body>
    </Card>
  );
}
