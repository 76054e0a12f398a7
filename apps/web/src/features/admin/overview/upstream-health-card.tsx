import { useQuery } from '@tanstack/react-query';
import { Badge, Card, Spinner, Table } from 'react-bootstrap';
import { UPSTREAM_TITLES, type AdminUpstreamHealth, type UpstreamHealth } from '@portal/contract';
import { formatDate } from '../../../components/format.ts';
import { LoadError } from '../../../components/load-error.tsx';
import { upstreamHealthQuery } from '../../../api/admin.ts';

/** Read again this often while the overview is open: an operator watching an outage sees a breaker open within it. */
export const UPSTREAM_HEALTH_REFRESH_MS = 10_000;

// The breaker's states in the operator's words (an open one says when it is probed next).
const STATES: Record<UpstreamHealth['state'], { text: string; bg: string }> = {
  closed: { text: 'Healthy', bg: 'success' },
  open: { text: 'Unhealthy — skipped until the next probe', bg: 'danger' },
  'half-open': { text: 'Probing', bg: 'warning' },
};
export const POLICIES: Record<AdminUpstreamHealth['policy'], string> = {
  cheapest: 'Buys the cheapest rate among healthy upstreams',
  preference: 'Buys at the first healthy upstream',
};

/**
 * On the overview, the first page of the console: each of the shop's upstreams in order of preference with its
 * breaker, last error, p95 call time and last hour's calls, faults, 429s and purchases, and the buying policy. At
 * phone width each upstream is a card (table-stack).
 */
export function UpstreamHealthCard() {
  const services = useQuery({ ...upstreamHealthQuery(), refetchOnMount: 'always', refetchInterval: UPSTREAM_HEALTH_REFRESH_MS });
  const data = services.data;
  return (
    <Card className="mb-3" data-testid="upstream-health">
      <Card.Header className="d-flex flex-wrap align-items-center gap-2">
        <h3 className="h6 mb-0 me-auto">Upstreams</h3>
        {data && (
          <span className="small text-muted" data-testid="upstream-policy">
            {POLICIES[data.policy]}
          </span>
        )}
      </Card.Header>
      <Card.Body>
        {services.isPending && <Spinner animation="border" size="sm" />}
        <LoadError query={services} what="the upstreams' health" />
        {data && (
          <Table size="sm" className="align-middle small mb-0 table-stack" data-testid="upstream-health-table">
            <thead>
              <tr>
                <th>Upstream</th>
                <th>State</th>
                <th>Last error</th>
                <th className="text-end">p95</th>
                <th className="text-end">Calls</th>
                <th className="text-end">Faults</th>
                <th className="text-end">429s</th>
                <th className="text-end">Purchases</th>
              </tr>
            </thead>
            <tbody>
              {data.upstreams.length === 0 && (
                <tr>
                  <td colSpan={8} className="text-muted">
                    No upstream is configured.
                  </td>
                </tr>
              )}
              {data.upstreams.map((upstream) => {
                const state = STATES[upstream.state];
                return (
                  <tr key={upstream.name} data-testid="upstream-health-row" data-upstream={upstream.name} data-state={upstream.state}>
                    <td className="stack-key">{UPSTREAM_TITLES[upstream.name] ?? upstream.name}</td>
                    <td data-label="State">
                      <Badge bg={state.bg} text={upstream.state === 'half-open' ? 'dark' : undefined} className="text-wrap" data-testid="state">
                        {state.text}
                      </Badge>
                      {upstream.probeAt && (
                        <div className="text-muted" data-testid="probe-at">
                          at {formatDate(upstream.probeAt)}
                        </div>
                      )}
                    </td>
                    <td data-label="Last error" data-testid="last-error" className="text-break">
                      {upstream.lastError ? (
                        // One block: on a phone's card the message and its time stack beside the column's name.
                        <div>
                          {upstream.lastError}
                          {upstream.lastErrorAt && <div className="text-muted">{formatDate(upstream.lastErrorAt)}</div>}
                        </div>
                      ) : (
                        <span className="text-muted">none</span>
                      )}
                    </td>
                    <td data-label="p95 (last hour)" className="text-end text-nowrap" data-testid="p95">
                      {upstream.p95Ms === null ? '—' : `${upstream.p95Ms} ms`}
                    </td>
                    <td data-label="Calls (last hour)" className="text-end" data-testid="calls">
                      {upstream.callsLastHour}
                    </td>
                    <td data-label="Faults (last hour)" className="text-end" data-testid="faults">
                      {upstream.faultsLastHour}
                    </td>
                    <td data-label="429s (last hour)" className="text-end" data-testid="rate-limited">
                      {upstream.rateLimitedLastHour}
                    </td>
                    <td data-label="Purchases (last hour)" className="text-end" data-testid="purchases">
                      {upstream.purchasesLastHour}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
        )}
        <p className="small text-muted mt-2 mb-0">Last hour&apos;s figures, as this server process has seen them; read again every 10 seconds.</p>
      </Card.Body>
    </Card>
  );
}
