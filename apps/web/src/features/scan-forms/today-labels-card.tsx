import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Spinner } from 'react-bootstrap';
import type { ScanFormResult, TodayLabelsResponse } from '@portal/contract';
import { errorMessage } from '../../api/client.ts';
import { todayLabelsQuery, useCreateScanForm } from '../../api/scan-forms.ts';
import { LoadError } from '../../components/load-error.tsx';
import { fromLine } from './from-line.ts';
import { PickupForm } from './pickup-form.tsx';

type Group = TodayLabelsResponse['groups'][number];
type Label = Group['labels'][number];

/** What the last request came to: its answer with the labels it named (to name the refused ones), or the refusal of all. */
type Outcome = { result: ScanFormResult; labels: Label[] } | { error: string };

const groupKey = (group: Group) => JSON.stringify([group.shipDate, group.carrier, group.from]);
const labelName = (label: Label) => (label.tracking ? `${label.OrderId} (${label.tracking})` : label.OrderId);

function OutcomeAlerts({ outcome, onClose }: { outcome: Outcome; onClose: () => void }) {
  if ('error' in outcome) {
    return (
      <Alert variant="danger" dismissible onClose={onClose} data-testid="scan-form-error">
        {outcome.error}
      </Alert>
    );
  }
  const { result, labels } = outcome;
  const nameOf = (id: string) => {
    const label = labels.find((l) => l._id === id);
    return label ? labelName(label) : id.slice(0, 8).toUpperCase();
  };
  return (
    <>
      {result.forms.length > 0 && (
        <Alert variant="success" dismissible onClose={onClose} data-testid="scan-form-success">
          {result.message}
        </Alert>
      )}
      {result.refused.length > 0 && (
        <Alert variant="warning" data-testid="scan-form-refused">
          <p className="mb-1">{result.refused.length === 1 ? 'One label could not go on a form:' : 'These labels could not go on a form:'}</p>
          <ul className="mb-0 small text-break">
            {result.refused.map((r) => (
              <li key={r.orderId}>
                {nameOf(r.orderId)}: {r.reason}
              </li>
            ))}
          </ul>
        </Alert>
      )}
    </>
  );
}

/** Today's labels on no form, one block a form would take, each with 'Create SCAN form'; the answer stays shown above them. */
export function TodayLabelsCard() {
  const today = useQuery({ ...todayLabelsQuery(), refetchOnMount: 'always' });
  // The page shows the answer in its own alerts, which stay (a toast would go before the refused list is read).
  const create = useCreateScanForm({ errorToast: () => null });
  const [asking, setAsking] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  // The group whose pickup form is open (one at a time: each asks its own rates).
  const [pickupFor, setPickupFor] = useState<string | null>(null);
  const groups = today.data?.groups ?? [];

  const ask = (group: Group) => {
    setAsking(groupKey(group));
    setOutcome(null);
    create.mutate(
      { orderIds: group.labels.map((label) => label._id) },
      {
        onSuccess: (result) => setOutcome({ result, labels: group.labels }),
        onError: (error) => setOutcome({ error: errorMessage(error) }),
      },
    );
  };

  return (
    <Card className="mb-4">
      <Card.Header>
        <h2 className="h6 mb-0">Today&apos;s labels</h2>
      </Card.Header>
      <Card.Body>
        <p className="small text-muted">
          Completed labels shipping today or later that are on no SCAN form yet, grouped as one form takes them. The carrier scans the form&apos;s one barcode
          for all its parcels; a label on a form can no longer be refunded here. Schedule pickup asks the carrier to collect a group&apos;s parcels, for its
          fee.
        </p>
        {outcome && <OutcomeAlerts outcome={outcome} onClose={() => setOutcome(null)} />}
        <LoadError query={today} what="today's labels" />
        {today.isPending && <Spinner animation="border" size="sm" />}
        {today.isSuccess && groups.length === 0 && <p className="text-muted mb-0">No labels to put on a SCAN form</p>}
        {groups.map((group) => (
          <div key={groupKey(group)} className="border rounded p-2 p-md-3 mb-3" data-testid="scan-group">
            <div className="d-flex flex-wrap align-items-center gap-2 mb-1">
              <strong>{group.shipDate}</strong>
              <span>{group.carrier}</span>
              <span className="text-muted small">
                {group.labels.length} {group.labels.length === 1 ? 'label' : 'labels'}
              </span>
            </div>
            <div className="small text-break mb-2" data-testid="scan-group-from">
              {fromLine(group.from)}
            </div>
            <ul className="list-inline small font-monospace text-break mb-2">
              {group.labels.map((label) => (
                <li key={label._id} className="list-inline-item" title={`${label.OrderId} to ${label.toName}`}>
                  {label.tracking ?? label.OrderId}
                </li>
              ))}
            </ul>
            <div className="d-flex flex-wrap gap-2">
              <Button size="sm" disabled={create.isPending && asking === groupKey(group)} onClick={() => ask(group)}>
                Create SCAN form
              </Button>
              {pickupFor !== groupKey(group) && (
                <Button size="sm" variant="outline-primary" onClick={() => setPickupFor(groupKey(group))}>
                  Schedule pickup
                </Button>
              )}
            </div>
            {pickupFor === groupKey(group) && (
              <PickupForm carrier={group.carrier} orderIds={group.labels.map((label) => label._id)} onClose={() => setPickupFor(null)} />
            )}
          </div>
        ))}
      </Card.Body>
    </Card>
  );
}
