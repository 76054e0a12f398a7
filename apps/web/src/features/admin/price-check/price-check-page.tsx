import { useQuery } from '@tanstack/react-query';
import { Alert, Badge, Button, Card, Spinner, Table } from 'react-bootstrap';
import { UPSTREAM_TITLES, type PriceCheckRow } from '@portal/contract';
import { formatDate, money } from '../../../components/format.ts';
import { LoadError } from '../../../components/load-error.tsx';
import { priceCheckQuery, useRunPriceCheck } from '../../../api/admin.ts';
import { ReferencePackagesCard } from './reference-packages-card.tsx';

/** The row's flags as badges: sold below cost, the mapping not rated for the route, no rate right now. */
function Flags({ row }: { row: PriceCheckRow }) {
  return (
    <span className="d-inline-flex flex-wrap gap-1 justify-content-end">
      {row.negative && <Badge bg="danger">Negative margin</Badge>}
      {row.notRated && (
        <Badge bg="warning" text="dark">
          Not rated for this route
        </Badge>
      )}
      {row.unavailable && <Badge bg="secondary">Not available now</Badge>}
      {!row.negative && !row.notRated && !row.unavailable && <Badge bg="success">OK</Badge>}
    </span>
  );
}

/**
 * /admin/price-check: every enabled label type priced upstream for the reference packages of its route, against our
 * price: the margin in red where it is negative, and the mappings the upstream does not rate. Run again on "Check now".
 */
export function PriceCheckPage() {
  const check = useQuery({ ...priceCheckQuery(), refetchOnMount: 'always' });
  const run = useRunPriceCheck();
  const data = check.data;
  return (
    <>
      <Card>
        <Card.Header className="d-flex flex-wrap align-items-center gap-2">
          <h2 className="h6 mb-0 me-auto">Price check</h2>
          <Button size="sm" variant="primary" disabled={run.isPending || check.isFetching} onClick={() => run.mutate()}>
            {run.isPending ? 'Checking…' : 'Check now'}
          </Button>
        </Card.Header>
        <Card.Body>
          <p className="small text-muted">
            Each enabled label type priced upstream for the reference packages of its route (the US types with the US packages, the UPS (Canada) types with the
            Canadian ones), against our price for the package&apos;s weight. Checked again every hour a console page asks, and on Check now.
          </p>
          {check.isPending && <Spinner animation="border" size="sm" />}
          <LoadError query={check} what="the price check" />
          {data && (
            <>
              <p className="small mb-2">
                Checked <strong data-testid="price-check-time">{formatDate(data.checkedAt)}</strong> with <strong>{data.labelProvider}</strong>:{' '}
                <span data-testid="price-check-summary">
                  {data.negative} negative, {data.notRated} not rated for their route, {data.unavailable} not available now
                </span>
              </p>
              {data.sandbox && (
                <Alert variant="info" className="py-2 small" data-testid="sandbox-rates-note">
                  Sandbox rates: the shop&apos;s upstream is the sandbox, whose costs are a made-up share of our price. Set LABEL_UPSTREAMS (easypost, shippo)
                  to see carriers&apos; rates.
                </Alert>
              )}
              <Table size="sm" className="align-middle small mb-0 table-stack" data-testid="price-check-table">
                <thead>
                  <tr>
                    <th>Label type</th>
                    <th>Package</th>
                    <th>Upstream</th>
                    <th>Upstream service</th>
                    <th className="text-end">Upstream cost</th>
                    <th className="text-end">Our price</th>
                    <th className="text-end">Margin</th>
                    <th>Flags</th>
                  </tr>
                </thead>
                <tbody>
                  {data.rows.length === 0 && (
                    <tr>
                      <td colSpan={8} className="text-muted">
                        No enabled label type takes any reference package.
                      </td>
                    </tr>
                  )}
                  {data.rows.map((row) => (
                    <tr
                      key={`${row.labelType.uid}:${row.package._id}`}
                      data-testid="price-check-row"
                      data-uid={row.labelType.uid}
                      data-package={row.package._id}
                    >
                      <td className="stack-key">{row.labelType.name}</td>
                      <td data-label="Package">{row.package.name}</td>
                      <td data-label="Upstream" data-testid="upstream">
                        {row.upstream ? (UPSTREAM_TITLES[row.upstream] ?? row.upstream) : <span className="text-muted">none</span>}
                      </td>
                      <td data-label="Upstream service">{row.carrier ? `${row.carrier} ${row.service}` : <span className="text-muted">none</span>}</td>
                      <td data-label="Upstream cost" className="text-end" data-testid="cost">
                        {row.cost === null ? '—' : money(row.cost)}
                      </td>
                      <td data-label="Our price" className="text-end" data-testid="price">
                        {money(row.price)}
                      </td>
                      <td
                        data-label="Margin"
                        data-testid="margin"
                        data-negative={row.negative || undefined}
                        className={`text-end text-nowrap ${row.negative ? 'text-danger fw-bold' : ''}`}
                      >
                        {row.margin === null ? '—' : `${money(row.margin)} (${row.marginPercent}%)`}
                      </td>
                      <td data-label="Flags" title={row.message ?? undefined}>
                        <div>
                          <Flags row={row} />
                          {row.message && <div className="text-muted small">{row.message}</div>}
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </>
          )}
        </Card.Body>
      </Card>
      <ReferencePackagesCard />
    </>
  );
}
