import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Badge, Button, Card } from 'react-bootstrap';
import { PICKUP_STATUS_LABELS, type Pickup, type PickupStatus } from '@portal/contract';
import { errorMessage } from '../../api/client.ts';
import { pickupsQuery, useCancelPickup } from '../../api/pickups.ts';
import { ConfirmModal, type Confirmation } from '../../components/confirm-modal.tsx';
import { pickupWindowText } from '../../components/pickup-window.ts';
import { PagedTable, type Columns } from '../../components/paged-table.tsx';
import { pickupFee } from './pickup-fee.ts';

/** Booking and cancelling may wait on the carrier in the background: the list is read again this often meanwhile. */
const PENDING_POLL_MS = 2000;
const PENDING: PickupStatus[] = ['booking', 'cancelling'];

const VARIANTS: Record<PickupStatus, string> = {
  rated: 'secondary',
  booking: 'warning',
  booked: 'success',
  failed: 'danger',
  cancelling: 'warning',
  cancelled: 'secondary',
};

/** The server cancels only a booked pickup whose window has not started: the button shows only then. */
const cancellable = (pickup: Pickup) => pickup.status === 'booked' && new Date(pickup.minDatetime).getTime() > Date.now();

function PickupStatusBadge({ pickup }: { pickup: Pickup }) {
  return (
    <span>
      <Badge
        bg={VARIANTS[pickup.status]}
        text={pickup.status === 'booking' || pickup.status === 'cancelling' ? 'dark' : undefined}
        data-pickup-status={pickup.status}
      >
        {PICKUP_STATUS_LABELS[pickup.status]}
      </Badge>
      {pickup.message && <span className="d-block small text-danger text-break">{pickup.message}</span>}
    </span>
  );
}

/** The customer's carrier pickups, newest first, with Cancel while the carrier still takes one. */
export function PickupsCard() {
  const pickups = useQuery({
    ...pickupsQuery(),
    refetchOnMount: 'always',
    refetchInterval: (query) => (query.state.data?.pickups.some((pickup) => PENDING.includes(pickup.status)) ? PENDING_POLL_MS : false),
  });
  const cancel = useCancelPickup();
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  // The last cancel's answer stays shown in the card (a toast would go before it is read).
  const [outcome, setOutcome] = useState<{ variant: 'success' | 'danger'; text: string } | null>(null);
  const rows = pickups.data?.pickups ?? [];

  const askCancel = (pickup: Pickup) =>
    setConfirmation({
      title: 'Cancel pickup',
      body: `Cancel the ${pickup.carrier} pickup of ${pickupWindowText(pickup)}? Its fee goes back to your balance.`,
      confirmLabel: 'Cancel pickup',
      cancelLabel: 'Keep it',
      variant: 'danger',
      run: (done) => {
        setOutcome(null);
        // Closed on a refusal too: its reason shows in the card, not behind the modal.
        cancel.mutate(pickup._id, {
          onSuccess: (answer) => setOutcome({ variant: 'success', text: answer.message }),
          onError: (error) => setOutcome({ variant: 'danger', text: errorMessage(error) }),
          onSettled: done,
        });
      },
    });

  const columns: Columns<Pickup> = [
    { header: 'Carrier', td: { className: 'stack-key' }, cell: (pickup) => pickup.carrier },
    { header: 'Window', td: { 'data-label': 'Window', className: 'small' }, cell: pickupWindowText },
    { header: 'Labels', className: 'text-end', td: { 'data-label': 'Labels' }, cell: (pickup) => pickup.labelCount },
    // On a phone an empty field (a pickup not booked) is left out of its card.
    {
      header: 'Service',
      td: (pickup) => ({ 'data-label': 'Service', className: pickup.service ? undefined : 'stack-hide' }),
      cell: (pickup) => pickup.service ?? '',
    },
    {
      header: 'Fee',
      className: 'text-end',
      td: (pickup) => ({ 'data-label': 'Fee', className: pickup.fee === null ? 'stack-hide' : undefined }),
      cell: (pickup) => (pickup.fee === null ? '' : pickupFee(pickup.fee)),
    },
    { header: 'Status', td: { 'data-label': 'Status' }, cell: (pickup) => <PickupStatusBadge pickup={pickup} /> },
    {
      header: 'Confirmation',
      td: (pickup) => ({ 'data-label': 'Confirmation', className: pickup.confirmation ? undefined : 'stack-hide' }),
      cell: (pickup) => <span className="font-monospace small text-break">{pickup.confirmation}</span>,
    },
    {
      header: 'Action',
      td: (pickup) => ({ className: cancellable(pickup) ? 'text-nowrap stack-actions' : 'stack-hide' }),
      cell: (pickup) =>
        cancellable(pickup) && (
          <Button size="sm" variant="outline-danger" onClick={() => askCancel(pickup)}>
            Cancel
          </Button>
        ),
    },
  ];

  return (
    <Card className="mb-4">
      <Card.Header>
        <h2 className="h6 mb-0">Pickups</h2>
      </Card.Header>
      <Card.Body>
        {outcome && (
          <Alert variant={outcome.variant} dismissible onClose={() => setOutcome(null)} className="text-break" data-testid={`pickup-cancel-${outcome.variant}`}>
            {outcome.text}
          </Alert>
        )}
        <PagedTable
          query={pickups}
          rows={rows}
          columns={columns}
          what="the pickups"
          empty="No pickups yet"
          testId="pickups-table"
          rowProps={(pickup) => ({ 'data-testid': 'pickup-row', 'data-pickup-id': pickup._id })}
          stack
        />
      </Card.Body>
      <ConfirmModal confirmation={confirmation} busy={cancel.isPending} onClose={() => setConfirmation(null)} />
    </Card>
  );
}
