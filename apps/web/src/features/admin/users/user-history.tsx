import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Badge, Spinner, Table } from 'react-bootstrap';
import { invoiceStatusLabel, ledgerKindLabel, paymentMethodLabel } from '@portal/contract';
import { formatDate, money, signedMoney } from '../../../components/format.ts';
import { adminKey, readUserInvoices, readUserStatement } from '../api.ts';
import { ListPager } from '../list-pager.tsx';

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
  const [page, setPage] = useState(1);
  const statement = useQuery({ queryKey: adminKey('user', userId, 'statement', page), queryFn: () => readUserStatement(userId, page), placeholderData: keepPreviousData, refetchOnMount: 'always' });
  useEffect(() => {
    if (statement.error) console.error('Failed to load the statement', statement.error);
  }, [statement.error]);
  const rows = statement.data?.entries ?? [];
  return (
    <>
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
      <ListPager label="Statement pages" page={page} totalPages={statement.data?.totalPages ?? 1} onPageChange={setPage} />
    </>
  );
}

/** The user's invoices: crypto deposits and the Manual ones operator credits make. */
export function UserInvoices({ userId }: { userId: string }) {
  const [page, setPage] = useState(1);
  const invoices = useQuery({ queryKey: adminKey('user', userId, 'invoices', page), queryFn: () => readUserInvoices(userId, page), placeholderData: keepPreviousData, refetchOnMount: 'always' });
  useEffect(() => {
    if (invoices.error) console.error('Failed to load invoices', invoices.error);
  }, [invoices.error]);
  const rows = invoices.data?.invoices ?? [];
  return (
    <>
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
      <ListPager label="Invoices pages" page={page} totalPages={invoices.data?.totalPages ?? 1} onPageChange={setPage} />
    </>
  );
}
