import { Badge } from 'react-bootstrap';
import { isProcessingStatus } from '@portal/contract';

/**
 * Spec section 4: pending is a warning badge, any status containing 'processing' a light one,
 * completed a success one; anything else shows as Cancelled (danger).
 */
export function orderStatusView(status: string): { label: string; variant: 'warning' | 'light' | 'success' | 'danger' } {
  if (status === 'pending') return { label: 'Pending', variant: 'warning' };
  if (isProcessingStatus(status)) return { label: 'Processing', variant: 'light' };
  if (status === 'completed') return { label: 'Completed', variant: 'success' };
  // A bulk order given up after its last try (its rows without a label refunded).
  if (status === 'failed') return { label: 'Failed', variant: 'danger' };
  return { label: 'Cancelled', variant: 'danger' };
}

export function StatusBadge({ status, title }: { status: string; title?: string }) {
  const { label, variant } = orderStatusView(status);
  return (
    <Badge
      bg={variant}
      text={variant === 'light' || variant === 'warning' ? 'dark' : undefined}
      className={variant === 'light' ? 'border' : undefined}
      title={title}
      data-status={status}
    >
      {label}
    </Badge>
  );
}
