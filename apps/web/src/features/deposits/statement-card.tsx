import { Card, Spinner, Table } from 'react-bootstrap';
import { Link } from 'react-router-dom';
import { ledgerKindLabel, type StatementEntry } from '@portal/contract';
import { statementQuery } from '../../api/billing.ts';
import { usePagedList } from '../../api/paged-list.ts';
import { LoadError } from '../../components/load-error.tsx';
import { Pagination } from '../../components/pagination.tsx';
import { formatDate, money, signedMoney } from '../../components/format.ts';

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

/** Every balance movement of the account, newest first, with the balance right after it. */
export function StatementCard() {
  const list = usePagedList({ query: statementQuery });
  const statement = list.query;
  const rows = statement.data?.entries ?? [];

  return (
    <Card className="mb-4">
      <Card.Header as="h6">Statement</Card.Header>
      <Card.Body>
        <LoadError query={statement} what="the statement" />
        <Table responsive hover className="align-middle mb-3 table-stack" data-testid="statement-table">
          <thead>
            <tr>
              <th>Date</th>
              <th>Type</th>
              <th>Details</th>
              <th className="text-end">Amount</th>
              <th className="text-end">Balance</th>
            </tr>
          </thead>
          <tbody>
            {statement.isPending && (
              <tr>
                <td colSpan={5} className="text-center">
                  <Spinner animation="border" size="sm" />
                </td>
              </tr>
            )}
            {statement.isSuccess && rows.length === 0 && (
              <tr>
                <td colSpan={5} className="text-center text-muted">
                  No balance movements yet
                </td>
              </tr>
            )}
            {rows.map((entry) => (
              <tr key={entry._id} data-testid="statement-row">
                <td className="stack-key">{formatDate(entry.createdAt)}</td>
                <td data-label="Type">{ledgerKindLabel(entry.kind)}</td>
                <td data-label="Details" data-testid="statement-details">
                  <EntryDetails entry={entry} />
                </td>
                <td data-label="Amount" className={`text-end ${entry.amount < 0 ? 'text-danger' : 'text-success'}`}>
                  {signedMoney(entry.amount)}
                </td>
                <td className="text-end" data-label="Balance">
                  {money(entry.balance)}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
        <Pagination label="Statement pages" {...list.pager} />
      </Card.Body>
    </Card>
  );
}
