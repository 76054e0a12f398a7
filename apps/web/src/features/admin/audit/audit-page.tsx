import { useState } from 'react';
import { Card, Col, Form, Row, Spinner, Table } from 'react-bootstrap';
import { auditQuery, type AuditFilter } from '../../../api/admin.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { formatDate } from '../../../components/format.ts';
import { LoadError } from '../../../components/load-error.tsx';
import { Pagination } from '../../../components/pagination.tsx';
import { useDebounced } from '../../../components/use-debounced.ts';

const orEmpty = (value: string) => (value.trim() === '' ? undefined : value.trim());
const asJson = (value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value, null, 1));

function AuditRows({ filter }: { filter: Omit<AuditFilter, 'page'> }) {
  const list = usePagedList({ query: (page) => auditQuery(filter, page) });
  const audit = list.query;
  const entries = audit.data?.entries ?? [];
  return (
    <>
      <LoadError query={audit} what="the audit log" />
      <Table responsive hover size="sm" className="align-middle small mb-3" data-testid="audit-table">
        <thead>
          <tr>
            <th>When</th>
            <th>Admin</th>
            <th>Action</th>
            <th>Target</th>
            <th>Change</th>
          </tr>
        </thead>
        <tbody>
          {audit.isPending && (
            <tr>
              <td colSpan={5} className="text-center">
                <Spinner animation="border" size="sm" />
              </td>
            </tr>
          )}
          {audit.isSuccess && entries.length === 0 && (
            <tr>
              <td colSpan={5} className="text-center text-muted">
                No audit entries match
              </td>
            </tr>
          )}
          {entries.map((entry) => (
            <tr key={entry._id} data-testid="audit-row">
              <td className="text-nowrap">{formatDate(entry.createdAt)}</td>
              <td>{entry.admin.tgId ? `@${entry.admin.tgId}` : 'command line'}</td>
              <td className="font-monospace">{entry.action}</td>
              <td>
                {entry.targetType}
                {entry.targetUser?.tgId && <span data-testid="audit-target-user"> @{entry.targetUser.tgId}</span>}
                {entry.targetId && <div className="font-monospace text-muted">{entry.targetId}</div>}
              </td>
              <td style={{ maxWidth: 420 }}>
                {(entry.before !== null || entry.after !== null) && (
                  <details>
                    <summary>Before and after</summary>
                    <div className="d-flex gap-2">
                      <pre className="mb-0 flex-fill small bg-light p-1" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                        {asJson(entry.before)}
                      </pre>
                      <pre className="mb-0 flex-fill small bg-light p-1" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                        {asJson(entry.after)}
                      </pre>
                    </div>
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
      <Pagination label="Audit log pages" {...list.pager} />
    </>
  );
}

/** /admin/audit: every change an operator made, newest first; filter by admin, target and day. */
export function AuditPage() {
  const [admin, setAdmin] = useState('');
  const [target, setTarget] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const typedAdmin = useDebounced(admin);
  const typedTarget = useDebounced(target);
  const filter = { admin: orEmpty(typedAdmin), target: orEmpty(typedTarget), from: orEmpty(from), to: orEmpty(to) };
  return (
    <Card>
      <Card.Header>
        <h2 className="h6 mb-0">Audit log</h2>
      </Card.Header>
      <Card.Body>
        <Row className="g-2 mb-3">
          <Col xs={6} md={3}>
            <Form.Control
              size="sm"
              type="search"
              aria-label="Admin"
              placeholder="Admin (@username or id)"
              value={admin}
              onChange={(e) => setAdmin(e.target.value)}
            />
          </Col>
          <Col xs={6} md={3}>
            <Form.Control
              size="sm"
              type="search"
              aria-label="Target"
              placeholder="Target id or type (user, order, …)"
              value={target}
              onChange={(e) => setTarget(e.target.value)}
            />
          </Col>
          <Col xs={6} md={3}>
            <Form.Control size="sm" type="date" aria-label="From date" title="From (UTC day)" value={from} onChange={(e) => setFrom(e.target.value)} />
          </Col>
          <Col xs={6} md={3}>
            <Form.Control size="sm" type="date" aria-label="To date" title="To (UTC day)" value={to} onChange={(e) => setTo(e.target.value)} />
          </Col>
        </Row>
        <AuditRows filter={filter} />
      </Card.Body>
    </Card>
  );
}
