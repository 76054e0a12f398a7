import { Badge } from 'react-bootstrap';
import { invoiceStatusLabel, ledgerKindLabel, paymentMethodLabel, type Invoice, type adminStatementResponse } from '@portal/contract';
import { userInvoicesQuery, userStatementQuery } from '../../../api/admin.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { formatDate, money, signedMoney } from '../../../components/format.ts';
import { PagedTable, type Column, type Columns } from '../../../components/paged-table.tsx';

const INVOICE_VARIANTS: Record<string, string> = { pending: 'warning', paid: 'success', cancelled: 'danger' };

type Entry = ReturnType<typeof adminStatementResponse.parse>['entries'][number];

const STATEMENT_COLUMNS: Columns<Entry> = [
  { header: 'Date', cell: (entry) => formatDate(entry.createdAt) },
  { header: 'Type', cell: (entry) => ledgerKindLabel(entry.kind) },
  { header: 'Note', cell: (entry) => entry.note },
  {
    header: 'Amount',
    className: 'text-end',
    td: (entry) => ({ className: entry.amount < 0 ? 'text-danger' : 'text-success' }),
    cell: (entry) => signedMoney(entry.amount),
  },
  { header: 'Balance', className: 'text-end', cell: (entry) => money(entry.balance) },
];

/** The user's ledger, newest first, each row with the balance right after it. */
export function UserStatement({ userId }: { userId: string }) {
  const list = usePagedList({ query: (page) => userStatementQuery(userId, page) });
  return (
    <PagedTable
      query={list.query}
      rows={list.query.data?.entries ?? []}
      columns={STATEMENT_COLUMNS}
      what="the statement"
      empty="No balance movements yet"
      testId="user-statement"
      rowProps={() => ({ 'data-testid': 'statement-row' })}
      compact
      pager={{ label: 'Statement pages', ...list.pager }}
    />
  );
}

/** The invoice lists' columns (this user's, every customer's with their Customer column after the date). */
export const invoiceColumns = <Row extends Invoice>(customer?: Column<Row>): Columns<Row> => [
  { header: 'Date', cell: (invoice) => formatDate(invoice.createdAt) },
  customer ?? false,
  { header: 'Amount', className: 'text-end', cell: (invoice) => money(invoice.amount) },
  { header: 'Bonus', className: 'text-end', cell: (invoice) => `${invoice.bonus}%` },
  { header: 'Method', cell: (invoice) => paymentMethodLabel(invoice.payment_method) },
  { header: 'Status', cell: (invoice) => <Badge bg={INVOICE_VARIANTS[invoice.status] ?? 'secondary'}>{invoiceStatusLabel(invoice.status)}</Badge> },
];
const INVOICE_COLUMNS = invoiceColumns();

/** The user's invoices: crypto deposits and the Manual ones operator credits make. */
export function UserInvoices({ userId }: { userId: string }) {
  const list = usePagedList({ query: (page) => userInvoicesQuery(userId, page) });
  return (
    <PagedTable
      query={list.query}
      rows={list.query.data?.invoices ?? []}
      columns={INVOICE_COLUMNS}
      what="the invoices"
      empty="No invoices yet"
      testId="user-invoices"
      rowProps={() => ({ 'data-testid': 'invoice-row' })}
      compact
      pager={{ label: 'Invoices pages', ...list.pager }}
    />
  );
}
