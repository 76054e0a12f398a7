import { Badge, Card } from 'react-bootstrap';
import { invoiceStatusLabel, paymentMethodLabel, type Invoice } from '@portal/contract';
import { invoicesQuery } from '../../api/billing.ts';
import { usePagedList } from '../../api/paged-list.ts';
import { formatDate, money } from '../../components/format.ts';
import { PagedTable, type Columns } from '../../components/paged-table.tsx';

const STATUS_VARIANTS: Record<string, string> = { pending: 'warning', paid: 'success', cancelled: 'danger' };

const COLUMNS: Columns<Invoice> = [
  { header: 'Date', td: { className: 'stack-key' }, cell: (invoice) => formatDate(invoice.createdAt) },
  { header: 'Amount', className: 'text-end', td: { 'data-label': 'Amount' }, cell: (invoice) => money(invoice.amount) },
  { header: 'Bonus', className: 'text-end', td: { 'data-label': 'Bonus' }, cell: (invoice) => `${invoice.bonus}%` },
  { header: 'Method', td: { 'data-label': 'Method' }, cell: (invoice) => paymentMethodLabel(invoice.payment_method) },
  {
    header: 'Status',
    td: { 'data-label': 'Status' },
    cell: (invoice) => (
      <span>
        <Badge bg={STATUS_VARIANTS[invoice.status] ?? 'secondary'}>{invoiceStatusLabel(invoice.status)}</Badge>
        {invoice.hosted_url && (
          <a href={invoice.hosted_url} className="ms-2 small">
            Pay
          </a>
        )}
      </span>
    ),
  },
];

/** The deposit invoices, newest first: date, amount, bonus %, method and status. */
export function InvoicesCard() {
  // Always fetched again on arrival, so an invoice paid on the hosted page shows its new status.
  const list = usePagedList({ query: invoicesQuery });
  return (
    <Card className="mb-4">
      <Card.Header as="h6">Invoices</Card.Header>
      <Card.Body>
        <PagedTable
          query={list.query}
          rows={list.query.data?.invoices ?? []}
          columns={COLUMNS}
          what="the invoices"
          empty="No invoices yet"
          testId="invoices-table"
          rowProps={() => ({ 'data-testid': 'invoice-row' })}
          stack
          pager={{ label: 'Invoices pages', ...list.pager }}
        />
      </Card.Body>
    </Card>
  );
}
