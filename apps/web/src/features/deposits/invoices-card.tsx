import { Badge, Card, Spinner, Table } from 'react-bootstrap';
import { invoiceStatusLabel, paymentMethodLabel } from '@portal/contract';
import { invoicesQuery } from '../../api/billing.ts';
import { usePagedList } from '../../api/paged-list.ts';
import { LoadError } from '../../components/load-error.tsx';
import { Pagination } from '../../components/pagination.tsx';
import { formatDate, money } from '../../components/format.ts';

const STATUS_VARIANTS: Record<string, string> = { pending: 'warning', paid: 'success', cancelled: 'danger' };

/** The deposit invoices, newest first: date, amount, bonus %, method and status. */
export function InvoicesCard() {
  // Always fetched again on arrival, so an invoice paid on the hosted page shows its new status.
  const list = usePagedList({ query: invoicesQuery });
  const invoices = list.query;
  const rows = invoices.data?.invoices ?? [];

  return (
    <Card className="mb-4">
      <Card.Header as="h6">Invoices</Card.Header>
      <Card.Body>
        <LoadError query={invoices} what="the invoices" />
        <Table responsive hover className="align-middle mb-3 table-stack" data-testid="invoices-table">
          <thead>
            <tr>
              <th>Date</th>
              <th className="text-end">Amount</th>
              <th className="text-end">Bonus</th>
              <th>Method</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {invoices.isPending && (
              <tr>
                <td colSpan={5} className="text-center">
                  <Spinner animation="border" size="sm" />
                </td>
              </tr>
            )}
            {invoices.isSuccess && rows.length === 0 && (
              <tr>
                <td colSpan={5} className="text-center text-muted">
                  No invoices yet
                </td>
              </tr>
            )}
            {rows.map((invoice) => (
              <tr key={invoice._id} data-testid="invoice-row">
                <td className="stack-key">{formatDate(invoice.createdAt)}</td>
                <td className="text-end" data-label="Amount">
                  {money(invoice.amount)}
                </td>
                <td className="text-end" data-label="Bonus">
                  {invoice.bonus}%
                </td>
                <td data-label="Method">{paymentMethodLabel(invoice.payment_method)}</td>
                <td data-label="Status">
                  <span>
                    <Badge bg={STATUS_VARIANTS[invoice.status] ?? 'secondary'}>{invoiceStatusLabel(invoice.status)}</Badge>
                    {invoice.hosted_url && (
                      <a href={invoice.hosted_url} className="ms-2 small">
                        Pay
                      </a>
                    )}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
        <Pagination label="Invoices pages" {...list.pager} />
      </Card.Body>
    </Card>
  );
}
