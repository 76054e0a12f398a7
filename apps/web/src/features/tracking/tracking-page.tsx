import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Badge, Card, ListGroup } from 'react-bootstrap';
import { useParams } from 'react-router-dom';
import { TRACKING_STATUS_LABELS, TRACKING_PAGE_NOT_FOUND, TRACKING_TOKEN_PATTERN, type TrackingPage } from '@portal/contract';
import { trackingPageQuery } from '../../api/tracking.ts';
import { FullPageSpinner } from '../../components/full-page-spinner.tsx';
import { formatDate, formatDay } from '../../components/format.ts';

const place = (side: TrackingPage['from']) => `${side.city}, ${side.state}`;

/** A centred column that fits a phone: nothing on it is wider than the screen. */
function Frame({ children }: { children: ReactNode }) {
  return (
    <main className="container py-4" style={{ maxWidth: 560 }}>
      {children}
    </main>
  );
}

function NotFound() {
  return (
    <Frame>
      <Card className="text-center" data-testid="tracking-not-found">
        <Card.Body className="py-5">
          <h1 className="h4">{TRACKING_PAGE_NOT_FOUND}</h1>
          <p className="text-muted mb-0">Check the link you were given: there is no parcel at this address.</p>
        </Card.Body>
      </Card>
    </Frame>
  );
}

/**
 * /t/:token, the recipient's tracking page: no sign-in and no app shell. Only what the page's answer holds: the
 * carrier, the service, the status and its history, the two cities and a delivery day when the shop knows one.
 */
export function TrackingPageScreen() {
  const { token = '' } = useParams();
  // A link that cannot be one is not asked about.
  const wellFormed = TRACKING_TOKEN_PATTERN.test(token);
  const query = useQuery({ ...trackingPageQuery(token), enabled: wellFormed });
  if (!wellFormed || query.isError) return <NotFound />;
  if (!query.data) return <FullPageSpinner />;
  const label = query.data;
  const status = label.voided ? 'Voided' : label.status ? TRACKING_STATUS_LABELS[label.status] : 'Label created, not scanned yet';
  return (
    <Frame>
      <Card className="shadow-sm">
        <Card.Body>
          <p className="text-muted small mb-1">
            {label.carrier} · {label.service}
          </p>
          <h1 className="h4 mb-2" data-testid="tracking-status">
            {status}
          </h1>
          {label.voided && (
            <Alert variant="secondary" className="py-2" data-testid="tracking-voided">
              This label was voided: the parcel will not travel with it.
            </Alert>
          )}
          <p className="mb-1 text-break">
            {place(label.from)} → {place(label.to)}
          </p>
          {label.trackingNumber && (
            <p className="small mb-1 text-break">
              Tracking number <span className="font-monospace">{label.trackingNumber}</span>
            </p>
          )}
          {label.shipDate && <p className="small mb-1">Ships {formatDay(label.shipDate)}</p>}
          {label.estimatedDelivery && (
            <p className="small mb-1" data-testid="tracking-estimate">
              Expected {formatDay(label.estimatedDelivery)}
            </p>
          )}
        </Card.Body>
        <ListGroup variant="flush" as="ol" data-testid="tracking-history">
          {label.history.length === 0 && <ListGroup.Item className="text-muted small">No scans yet.</ListGroup.Item>}
          {[...label.history].reverse().map((step) => (
            <ListGroup.Item as="li" key={step.status} className="d-flex justify-content-between flex-wrap gap-2" data-testid="tracking-step">
              <span>
                <span data-testid="tracking-step-status">{TRACKING_STATUS_LABELS[step.status]}</span>{' '}
                {step.status === label.status && <Badge bg="primary">Now</Badge>}
              </span>
              <span className="text-muted small">{formatDate(step.at)}</span>
            </ListGroup.Item>
          ))}
        </ListGroup>
      </Card>
    </Frame>
  );
}
