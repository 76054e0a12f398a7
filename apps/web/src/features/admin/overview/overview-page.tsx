import { Suspense, lazy, useEffect, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, Col, Row, Spinner, Table } from 'react-bootstrap';
import { ORDER_STATUSES, type Overview } from '@portal/contract';
import { errorMessage } from '../../../api/client.ts';
import { formatDate, money } from '../../../components/format.ts';
import { StatusBadge } from '../../../components/status-badge.tsx';
import { overviewQuery } from '../../../api/admin.ts';
import { UpstreamHealthCard } from './upstream-health-card.tsx';
import { GoingLiveCard } from './going-live-card.tsx';

// The chart library is only fetched when the overview draws its chart.
const DailyChart = lazy(() => import('./daily-chart.tsx').then((m) => ({ default: m.DailyChart })));

const QUEUE_STATES = ['waiting', 'active', 'completed', 'failed', 'delayed'] as const;

function Figure({ title, testId, value, children }: { title: string; testId: string; value: ReactNode; children?: ReactNode }) {
  return (
    <Card className="h-100">
      <Card.Body>
        <Card.Subtitle className="text-muted mb-2">{title}</Card.Subtitle>
        <Card.Title as="h3" data-testid={testId}>
          {value}
        </Card.Title>
        {children && <div className="small text-muted">{children}</div>}
      </Card.Body>
    </Card>
  );
}

const times = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** The last price check found a price below its upstream cost, or a mapping the upstream does not rate: before a customer meets it. */
function PriceCheckWarning({ check }: { check: NonNullable<Overview['priceCheck']> }) {
  const found = [
    check.negative > 0 && `${times(check.negative, 'price')} below the upstream's cost`,
    check.notRated > 0 && `${times(check.notRated, 'mapped service')} the upstream does not rate for the route`,
  ].filter(Boolean);
  return (
    <Alert variant="danger" data-testid="price-check-warning">
      <strong>Check your prices.</strong> The price check of {formatDate(check.checkedAt)} found {found.join(' and ')}.{' '}
      <Link className="alert-link" to="/admin/price-check">
        Open the price check
      </Link>
    </Alert>
  );
}

/** /admin: the shop at a glance, and its money over the last 30 days. */
export function OverviewPage() {
  const overview = useQuery({ ...overviewQuery(), refetchOnMount: 'always' });
  useEffect(() => {
    if (overview.error) console.error('Failed to load the overview', overview.error);
  }, [overview.error]);
  const data = overview.data;
  if (overview.isPending) return <Spinner animation="border" size="sm" />;
  if (!data) return <Alert variant="danger">{errorMessage(overview.error)}</Alert>;
  // Known statuses first, in their order, then anything else the server counts.
  const statuses = [
    ...ORDER_STATUSES.filter((s) => s in data.ordersByStatus),
    ...Object.keys(data.ordersByStatus).filter((s) => !(ORDER_STATUSES as readonly string[]).includes(s)),
  ];

  const check = data.priceCheck;
  return (
    <>
      <h2 className="h5 mb-3">Overview</h2>
      {check && (check.negative > 0 || check.notRated > 0) && <PriceCheckWarning check={check} />}
      {/* First on the page an operator opens first: an upstream's outage is what needs them now. */}
      <UpstreamHealthCard />
      <GoingLiveCard />
      <Row className="g-3 mb-3" xs={1} md={2} xl={4}>
        <Col>
          <Figure title="Users" testId="overview-users" value={data.users}>
            <span data-testid="overview-active-users">{data.activeUsers30d}</span> active in the last 30 days
          </Figure>
        </Col>
        <Col>
          <Figure title="Balances owed" testId="overview-balances" value={money(data.balancesTotal)}>
            The sum of all balances: what the shop owes its customers
          </Figure>
        </Col>
        <Col>
          <Figure title="Deposits today" testId="overview-deposits-today" value={money(data.deposits.today)}>
            <span data-testid="overview-deposits-30d">{money(data.deposits.last30d)}</span> in the last 30 days
          </Figure>
        </Col>
        <Col>
          <Figure title="Label sales today" testId="overview-sales-today" value={money(data.sales.today)}>
            <span data-testid="overview-sales-30d">{money(data.sales.last30d)}</span> in the last 30 days, net of refunds
          </Figure>
        </Col>
      </Row>
      <Row className="g-3 mb-4" xs={1} md={3}>
        <Col>
          <Card className="h-100">
            <Card.Header as="h6">Orders by status</Card.Header>
            <Card.Body>
              <Table size="sm" className="mb-0" data-testid="orders-by-status">
                <tbody>
                  {statuses.length === 0 && (
                    <tr>
                      <td className="text-muted">No orders yet</td>
                    </tr>
                  )}
                  {statuses.map((status) => (
                    <tr key={status} data-testid="status-count" data-status={status}>
                      <td>
                        <StatusBadge status={status} />
                      </td>
                      <td className="text-end">{data.ordersByStatus[status]}</td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </Card.Body>
          </Card>
        </Col>
        <Col>
          <Card className="h-100">
            <Card.Header as="h6">Job queue</Card.Header>
            <Card.Body>
              <Table size="sm" className="mb-0">
                <tbody>
                  {QUEUE_STATES.map((state) => (
                    <tr key={state}>
                      <td className="text-capitalize">{state}</td>
                      <td className="text-end" data-testid={`queue-${state}`}>
                        {data.queue[state]}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </Card.Body>
          </Card>
        </Col>
        <Col>
          <Figure title="FedEx orders waiting" testId="overview-fedex-waiting" value={data.fedexWaiting}>
            Hand-made orders to fill: <Link to="/admin/fedex-queue">FedEx queue</Link>
          </Figure>
        </Col>
        <Col>
          <Figure title="Label refunds requested" testId="overview-refunds" value={data.refunds.requested}>
            {data.refunds.stuck} stuck, {data.refunds.rejected} rejected, {data.refunds.refunded} refunded: <Link to="/admin/refunds">Refunds</Link>
          </Figure>
        </Col>
        <Col>
          <Figure title="Upstream margin, 30 days" testId="overview-upstream-margin" value={money(data.upstream.margin30d)}>
            {times(data.upstream.labels30d, 'label')} bought upstream: price {money(data.upstream.price30d)}, cost {money(data.upstream.cost30d)}; voided labels
            not counted.{' '}
            <span data-testid="overview-insurance">
              Insurance: {times(data.upstream.insured30d, 'label')} insured, sold for {money(data.upstream.insurance30d)}, cost{' '}
              {money(data.upstream.insuranceCost30d)}
            </span>
          </Figure>
        </Col>
      </Row>
      <Card className="mb-4">
        <Card.Header as="h6">Daily sales and deposits, last 30 days</Card.Header>
        <Card.Body>
          <Suspense fallback={<Spinner animation="border" size="sm" />}>
            <DailyChart daily={data.daily} />
          </Suspense>
          <details className="mt-3">
            <summary className="small">Daily figures</summary>
            <Table size="sm" responsive className="small mt-2 mb-0" data-testid="daily-table">
              <thead>
                <tr>
                  <th>Day ({data.timeZone})</th>
                  <th className="text-end">Sales</th>
                  <th className="text-end">Deposits</th>
                </tr>
              </thead>
              <tbody>
                {[...data.daily].reverse().map((day) => (
                  <tr key={day.date}>
                    <td>{day.date}</td>
                    <td className="text-end">{money(day.sales)}</td>
                    <td className="text-end">{money(day.deposits)}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </details>
        </Card.Body>
      </Card>
    </>
  );
}
