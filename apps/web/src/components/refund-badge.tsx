import { Badge } from 'react-bootstrap';
import { REFUND_STATUS_LABELS, type RefundStatus } from '@portal/contract';

const VARIANTS: Record<RefundStatus, 'info' | 'secondary' | 'danger'> = { requested: 'info', refunded: 'secondary', rejected: 'danger' };

/** A label's refund state beside its status (Refund requested, Refunded, Refund rejected with the reason as its title); nothing when none was asked. */
export function RefundBadge({ status, note }: { status: RefundStatus | null; note?: string | null }) {
  if (!status) return null;
  return (
    <Badge bg={VARIANTS[status]} text={status === 'requested' ? 'dark' : undefined} className="ms-1" title={note ?? undefined} data-refund-status={status}>
      {REFUND_STATUS_LABELS[status]}
    </Badge>
  );
}
