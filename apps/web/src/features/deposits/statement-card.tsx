import { Card } from 'react-bootstrap';
import { Link } from 'react-router-dom';
import { ledgerKindLabel, type StatementEntry } from '@portal/contract';
import { statementQuery } from '../../api/billing.ts';
import { usePagedList } from '../../api/paged-list.ts';
import { formatDate, money, signedMoney } from '../../components/format.ts';
import { PagedTable, type Columns } from '../../components/paged-table.tsx';

/**
 * What a row is about: the order or bulk order a charge or refund belongs to (a link to it), the reason an
 * operator gave for an adjustment, otherwise the row's own note ('Deposit via crypto').
 */
function EntryDetails({ entry }: { entry: StatementEntry }) {
  const id = entry.reference;
  if (id && (entry.kind.startsWith('order_') || entry.kind === 'label_refund')) {
    // Order History finds an order by the start of its id (its Order ID).
    const orderId = id.slice(0, 8).toUpperCase();
    return (
      <Link to={`/?search=${encodeURIComponent(id.slice(0, 8))}`}>{entry.kind === 'label_refund' ? `Refund of order ${orderId}` : `Order ${orderId}`}</Link>
    );
  }
  if (id && entry.kind.startsWith('bulk_')) return <Link to={`/csv-orders#bulk-${id}`}>CSV order of {formatDate(entry.createdAt)}</Link>;
  if (id && entry.kind.startsWith('fedex_')) return <Link to="/fedex-order">FedEx order {id.slice(0, 8).toUpperCase()}</Link>;
  return <>{entry.note}</>;
}

const COLUMNS: Columns<StatementEntry> = [
  { header: 'Date', td: { className: 'stack-key' }, cell: (entry) => formatDate(entry.createdAt) },
  { header: 'Type', td: { 'data-label': 'Type' }, cell: (entry) => ledgerKindLabel(entry.kind) },
  { header: 'Details', td: { 'data-label': 'Details', 'data-testid': 'statement-details' }, cell: (entry) => <EntryDetails entry={entry} /> },
  {
    header: 'Amount',
    className: 'text-end',
    td: (entry) => ({ 'data-label': 'Amount', className: entry.amount < 0 ? 'text-danger' : 'text-success' }),
    cell: (entry) => signedMoney(entry.amount),
  },
  { header: 'Balance', className: 'text-end', td: { 'data-label': 'Balance' }, cell: (entry) => money(entry.balance) },
];

/** Every balance movement of the account, newest first, with the balance right after it. */
export function StatementCard() {
  const list = usePagedList({ query: statementQuery });
  return (
    <Card className="mb-4">
      <Card.Header as="h6">Statement</Card.Header>
      <Card.Body>
        <PagedTable
          query={list.query}
          rows={list.query.data?.entries ?? []}
          columns={COLUMNS}
          what="the statement"
          empty="No balance movements yet"
          testId="statement-table"
          rowProps={() => ({ 'data-testid': 'statement-row' })}
          stack
          pager={{ label: 'Statement pages', ...list.pager }}
        />
      </Card.Body>
    </Card>
  );
}
