import { useState } from 'react';
import { Link } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button, ButtonGroup, Card } from 'react-bootstrap';
import {
  PICKUP_STATUS_LABELS,
  SCAN_FORM_STATUSES,
  SCAN_FORM_STATUS_LABELS,
  type AdminPickupsResponse,
  type AdminScanFormsResponse,
  type ScanFormStatus,
} from '@portal/contract';
import { adminPickupsQuery, adminScanFormsQuery, downloadAdminScanForm } from '../../../api/admin.ts';
import { formatDate, money } from '../../../components/format.ts';
import { PagedTable, type Columns } from '../../../components/paged-table.tsx';

type Form = AdminScanFormsResponse['forms'][number];
const BADGES: Record<ScanFormStatus, string> = { creating: 'secondary', created: 'success', failed: 'danger' };

const customerColumn = <Row extends { owner: { _id: string; tgId: string } }>(): Columns<Row>[number] => ({
  header: 'Customer',
  cell: (row) => <Link to={`/admin/users/${encodeURIComponent(row.owner._id)}`}>@{row.owner.tgId}</Link>,
});

const COLUMNS: Columns<Form> = [
  { header: 'Asked', cell: (form) => formatDate(form.createdAt) },
  { header: 'Form', td: (form) => ({ className: 'font-monospace', title: form._id }), cell: (form) => form.name },
  { header: 'Carrier', cell: (form) => form.carrier },
  { header: 'Ship date', cell: (form) => form.shipDate },
  { header: 'From', cell: (form) => `${form.from.name}, ${form.from.street}, ${form.from.city} ${form.from.state} ${form.from.zip}` },
  { header: 'Labels', className: 'text-end', cell: (form) => form.labelCount },
  {
    header: 'Status',
    cell: (form) => (
      <>
        <Badge bg={BADGES[form.status]}>{SCAN_FORM_STATUS_LABELS[form.status]}</Badge>
        {form.message && <div className="text-muted">{form.message}</div>}
      </>
    ),
  },
  {
    header: 'PDF',
    cell: (form) =>
      form.pdf && (
        <Button size="sm" variant="outline-primary" onClick={() => void downloadAdminScanForm(form)}>
          Download
        </Button>
      ),
  },
];

type PickupRow = AdminPickupsResponse['pickups'][number];
const PICKUP_COLUMNS: Columns<PickupRow> = [
  { header: 'Asked', cell: (pickup) => formatDate(pickup.createdAt) },
  { header: 'Carrier', cell: (pickup) => pickup.carrier },
  { header: 'Window', cell: (pickup) => `${formatDate(pickup.minDatetime)} – ${formatDate(pickup.maxDatetime)}` },
  { header: 'Labels', className: 'text-end', cell: (pickup) => pickup.labelCount },
  { header: 'Fee', className: 'text-end', cell: (pickup) => (pickup.fee === null ? '' : money(pickup.fee)) },
  {
    header: 'Status',
    cell: (pickup) => (
      <>
        <Badge bg={pickup.status === 'failed' ? 'danger' : pickup.status === 'booked' ? 'success' : 'secondary'}>{PICKUP_STATUS_LABELS[pickup.status]}</Badge>
        {pickup.confirmation && <div className="font-monospace">{pickup.confirmation}</div>}
        {pickup.message && <div className="text-muted">{pickup.message}</div>}
      </>
    ),
  },
];

/** The Customer column second, on the list of every customer's (one customer's page leaves it out). */
const withCustomer = <Row extends { owner: { _id: string; tgId: string } }>(columns: Columns<Row>, userId?: string): Columns<Row> =>
  userId ? columns : [columns[0], customerColumn<Row>(), ...columns.slice(1)];

/** Carrier pickups, every customer's newest or one customer's (userId): fees, confirmations, a failed one with the upstream's reason. */
export function AdminPickupsCard({ userId }: { userId?: string }) {
  const query = useQuery(adminPickupsQuery(userId));
  return (
    <Card className="mt-3">
      <Card.Header>
        <h2 className="h6 mb-0">Pickups</h2>
      </Card.Header>
      <Card.Body>
        <PagedTable
          query={query}
          rows={query.data?.pickups ?? []}
          columns={withCustomer(PICKUP_COLUMNS, userId)}
          what="the pickups"
          empty="No pickups."
          testId="admin-pickups-table"
          rowProps={(pickup) => ({ 'data-testid': 'admin-pickup-row', 'data-id': pickup._id })}
          compact
          stack
        />
      </Card.Body>
    </Card>
  );
}

/** SCAN forms, every customer's newest or one customer's (userId), by status: a failed one with the upstream's reason, a created one's PDF. */
export function AdminScanFormsCard({ userId }: { userId?: string }) {
  const [status, setStatus] = useState<ScanFormStatus | undefined>(undefined);
  const query = useQuery(adminScanFormsQuery(status, userId));
  return (
    <Card>
      <Card.Header className="d-flex flex-wrap align-items-baseline gap-2">
        <h2 className="h6 mb-0 me-auto">SCAN forms</h2>
        <ButtonGroup size="sm" aria-label="SCAN form status">
          {[undefined, ...SCAN_FORM_STATUSES].map((s) => (
            <Button key={s ?? 'all'} variant={s === status ? 'primary' : 'outline-primary'} onClick={() => setStatus(s)} aria-pressed={s === status}>
              {s ? SCAN_FORM_STATUS_LABELS[s] : 'All'}
            </Button>
          ))}
        </ButtonGroup>
      </Card.Header>
      <Card.Body>
        <PagedTable
          query={query}
          rows={query.data?.forms ?? []}
          columns={withCustomer(COLUMNS, userId)}
          what="the SCAN forms"
          empty="No SCAN forms."
          testId="scan-forms-table"
          rowProps={(form) => ({ 'data-testid': 'scan-form-row', 'data-id': form._id })}
          compact
          stack
        />
      </Card.Body>
    </Card>
  );
}

/**
 * /admin/scan-forms: every customer's newest SCAN forms, a failed one with the upstream's reason (its labels went
 * back to the customer, to refund or put on another form), and their pickups. A customer's own are on their page.
 */
export function ScanFormsPage() {
  return (
    <>
      <AdminScanFormsCard />
      <AdminPickupsCard />
    </>
  );
}
