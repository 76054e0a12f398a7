import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Card, Col, Form, Row, Tab, Tabs } from 'react-bootstrap';
import { BULK_STATUSES, INVOICE_STATUSES, ORDER_STATUSES, invoiceStatusLabel } from '@portal/contract';
import { orderStatusView } from '../../../components/status-badge.tsx';
import { adminLabelTypesQuery } from '../../../api/admin.ts';
import { useDebounced } from '../../../components/use-debounced.ts';
import { LabelOrdersList, type LabelOrdersFilter } from './label-orders-list.tsx';
import { BulkOrdersList, InvoicesList } from './owned-lists.tsx';
import { DayRange } from '../day-range.tsx';

const orEmpty = (value: string) => (value.trim() === '' ? undefined : value.trim());

/** Status and customer, the two filters every tab has. */
function StatusAndUser({
  statuses,
  label,
  status,
  user,
  onStatus,
  onUser,
}: {
  statuses: readonly string[];
  label: (s: string) => string;
  status: string;
  user: string;
  onStatus: (s: string) => void;
  onUser: (u: string) => void;
}) {
  return (
    <>
      <Col xs={6} md={2}>
        <Form.Select size="sm" aria-label="Status" value={status} onChange={(e) => onStatus(e.target.value)}>
          <option value="">Any status</option>
          {statuses.map((s) => (
            <option key={s} value={s}>
              {label(s)}
            </option>
          ))}
        </Form.Select>
      </Col>
      <Col xs={6} md={2}>
        <Form.Control
          size="sm"
          type="search"
          aria-label="Customer"
          placeholder="Customer (@username or id)"
          value={user}
          onChange={(e) => onUser(e.target.value)}
        />
      </Col>
    </>
  );
}

function LabelOrdersTab() {
  const labelTypes = useQuery(adminLabelTypesQuery());
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('');
  const [type, setType] = useState('');
  const [user, setUser] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const typedSearch = useDebounced(search);
  const typedUser = useDebounced(user);
  const filter: LabelOrdersFilter = {
    search: orEmpty(typedSearch),
    status: orEmpty(status) as LabelOrdersFilter['status'],
    type: orEmpty(type),
    user: orEmpty(typedUser),
    from: orEmpty(from),
    to: orEmpty(to),
  };
  return (
    <>
      <Row className="g-2 mb-3" as="form" role="search" aria-label="Filter orders" onSubmit={(e) => e.preventDefault()}>
        <Col xs={12} md={3}>
          <Form.Control
            size="sm"
            type="search"
            aria-label="Search orders"
            placeholder="Order ID, tracking or name"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
        </Col>
        <StatusAndUser statuses={ORDER_STATUSES} label={(s) => orderStatusView(s).label} status={status} user={user} onStatus={setStatus} onUser={setUser} />
        <Col xs={6} md={2}>
          <Form.Select size="sm" aria-label="Label type" value={type} onChange={(e) => setType(e.target.value)}>
            <option value="">Any type</option>
            {labelTypes.data?.labelTypes.map((lt) => (
              <option key={lt.uid} value={lt.uid}>
                {lt.name}
              </option>
            ))}
          </Form.Select>
        </Col>
        <Col xs={12} md="auto">
          <DayRange from={from} to={to} onFrom={setFrom} onTo={setTo} />
        </Col>
      </Row>
      <LabelOrdersList filter={filter} />
    </>
  );
}

function OwnedTab({ kind }: { kind: 'bulk' | 'invoices' }) {
  const [status, setStatus] = useState('');
  const [user, setUser] = useState('');
  const typedUser = useDebounced(user);
  const filter = { status: orEmpty(status), user: orEmpty(typedUser) };
  return (
    <>
      <Row className="g-2 mb-3">
        <StatusAndUser
          statuses={kind === 'bulk' ? BULK_STATUSES : INVOICE_STATUSES}
          label={kind === 'bulk' ? (s) => orderStatusView(s).label : invoiceStatusLabel}
          status={status}
          user={user}
          onStatus={setStatus}
          onUser={setUser}
        />
      </Row>
      {kind === 'bulk' ? <BulkOrdersList filter={filter} /> : <InvoicesList filter={filter} />}
    </>
  );
}

/** /admin/orders: every customer's label orders, bulk orders and invoices. */
export function OrdersPage() {
  return (
    <Card>
      <Card.Header>
        <h2 className="h6 mb-0">Orders</h2>
      </Card.Header>
      <Card.Body>
        <Tabs defaultActiveKey="orders" className="mb-3" mountOnEnter>
          <Tab eventKey="orders" title="Label orders">
            <LabelOrdersTab />
          </Tab>
          <Tab eventKey="bulk" title="Bulk orders">
            <OwnedTab kind="bulk" />
          </Tab>
          <Tab eventKey="invoices" title="Invoices">
            <OwnedTab kind="invoices" />
          </Tab>
        </Tabs>
      </Card.Body>
    </Card>
  );
}
