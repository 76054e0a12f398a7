import { Badge, Spinner, Table } from 'react-bootstrap';
import { invoiceStatusLabel, ledgerKindLabel, paymentMethodLabel } from '@portal/contract';
import { userInvoicesQuery, userStatementQuery } from '../../../api/admin.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { formatDate, money, signedMoney } from '../../../components/format.ts';
import { LoadError } from '../../../components/load-error.tsx';
import { Pagination } from '../../../components/pagination.tsx';

const INVOICE_VARIANTS: Record<string, string> = { pending: 'warning', paid: 'success', cancelled: 'danger' };

function Loading({ columns, show }: { columns: number; show: boolean }) {
  return show ? (
    <tr>
      <td colSpan={columns} className="text-center">
        <Spinner animation="border" size="sm" />
      </td>
    </tr>
  ) : null;
}

/** The user's ledger, newest first, each row with the balance right after it. */
export function UserStatement({ userId }: { userId: string }) {
  const list = usePagedList({ query: (page) => userStatementQuery(userId, page) });
  const statement = list.query;
  const rows = statement.data?.entries ?? [];
  return (
    <>
      <LoadError query={statement} what="the statement" />
      <Table responsive hover size="sm" className="align-middle small mb-3" data-testid="user-statement">
        <thead>
          <tr>
            <th>Date</th>
            <th>Type</th>
            <th>Note</th>
            <th className="text-end">Amount</th>
            <th className="text-end">Balance</th>
          </tr>
        </thead>
        <tbody>
          <Loading columns={5} show={statement.isPending} />
          {statement.isSuccess && rows.length === 0 && (
            <tr>
              <td colSpan={5} className="text-center text-muted">
                No balance movements yet
              </td>
            </tr>
          )}
          {rows.map((entry) => (
            <tr key={entry._id} data-testid="statement-row">
              <td>{formatDate(entry.createdAt)}</td>
              <td>{ledgerKindLabel(entry.kind)}</td>
              <td>{entry.note}</td>
              <td className={`text-end ${entry.amount < 0 ? 'text-danger' : 'text-success'}`}>{signedMoney(entry.amount)}</td>
              <td className="text-end">{money(entry.balance)}</td>
            </tr>
          ))}
        </tbody>
      </Table>
      <Pagination label="Statement pages" {...list.pager} />
    </>
  );
}

/** The user's invoices: crypto deposits and the Manual ones operator credits make. */
export function UserInvoices({ userId }: { userId: string }) {
  const list = usePagedList({ query: (page) => userInvoicesQuery(userId, page) });
  const invoices = list.query;
  const rows = invoices.data?.invoices ?? [];
  return (
    <>
      <LoadError query={invoices} what="the invoices" />
      <Table responsive hover size="sm" className="align-middle small mb-3" data-testid="user-invoices">
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
          <Loading columns={5} show={invoices.isPending} />
          {invoices.isSuccess && rows.length === 0 && (
            <tr>
              <td colSpan={5} className="text-center text-muted">
                No invoices yet
              </td>
            </tr>
          )}
          {rows.map((invoice) => (
            <tr key={invoice._id} data-testid="invoice-row">
              <td>{formatDate(invoice.createdAt)}</td>
              <td className="text-end">{money(invoice.amount)}</td>
              <td className="text-end">{invoice.bonus}%</td>
              <td>{paymentMethodLabel(invoice.payment_method)}</td>
              <td>
                <Badge bg={INVOICE_VARIANTS[invoice.status] ?? 'secondary'}>{invoiceStatusLabel(invoice.status)}</Badge>
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
      <Pagination label="Invoices pages" {...list.pager} />
    </>
  );
}
