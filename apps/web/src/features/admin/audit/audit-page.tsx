import { useState } from 'react';
import { Card, Col, Form, Row } from 'react-bootstrap';
import type { AuditEntry } from '@portal/contract';
import { auditQuery, type AuditFilter } from '../../../api/admin.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { formatDate } from '../../../components/format.ts';
import { PagedTable, type Columns } from '../../../components/paged-table.tsx';
import { useDebounced } from '../../../components/use-debounced.ts';
import { DayRange } from '../day-range.tsx';

const orEmpty = (value: string) => (value.trim() === '' ? undefined : value.trim());
const asJson = (value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value, null, 1));

const BEFORE_AFTER = { whiteSpace: 'pre-wrap', wordBreak: 'break-word' } as const;

const COLUMNS: Columns<AuditEntry> = [
  { header: 'When', td: { className: 'text-nowrap' }, cell: (entry) => formatDate(entry.createdAt) },
  { header: 'Admin', cell: (entry) => (entry.admin.tgId ? `@${entry.admin.tgId}` : 'command line') },
  { header: 'Action', td: { className: 'font-monospace' }, cell: (entry) => entry.action },
  {
    header: 'Target',
    cell: (entry) => (
      <>
        {entry.targetType}
        {entry.targetUser?.tgId && <span data-testid="audit-target-user"> @{entry.targetUser.tgId}</span>}
        {entry.targetName !== null ? (
          <div data-testid="audit-target-name" title={entry.targetId ?? undefined}>
            {entry.targetName}
          </div>
        ) : (
          entry.targetId && <div className="font-monospace text-muted">{entry.targetId}</div>
        )}
      </>
    ),
  },
  {
    header: 'Change',
    td: { style: { maxWidth: 420 } },
    cell: (entry) =>
      (entry.before !== null || entry.after !== null) && (
        <details>
          <summary>Before and after</summary>
          <div className="d-flex gap-2">
            <pre className="mb-0 flex-fill small bg-light p-1" style={BEFORE_AFTER}>
              {asJson(entry.before)}
            </pre>
            <pre className="mb-0 flex-fill small bg-light p-1" style={BEFORE_AFTER}>
              {asJson(entry.after)}
            </pre>
          </div>
        </details>
      ),
  },
];

function AuditRows({ filter }: { filter: Omit<AuditFilter, 'page'> }) {
  const list = usePagedList({ query: (page) => auditQuery(filter, page) });
  return (
    <PagedTable
      query={list.query}
      rows={list.query.data?.entries ?? []}
      columns={COLUMNS}
      what="the audit log"
      empty="No audit entries match"
      testId="audit-table"
      rowProps={() => ({ 'data-testid': 'audit-row' })}
      compact
      pager={{ label: 'Audit log pages', ...list.pager }}
    />
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
          <Col xs={12} md="auto">
            <DayRange from={from} to={to} onFrom={setFrom} onTo={setTo} />
          </Col>
        </Row>
        <AuditRows filter={filter} />
      </Card.Body>
    </Card>
  );
}
