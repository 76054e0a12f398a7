import { Link } from 'react-router-dom';
import { Badge, ProgressBar, Spinner, Table } from 'react-bootstrap';
import { invoiceStatusLabel, paymentMethodLabel } from '@portal/contract';
import { adminBulkOrdersQuery, adminInvoicesQuery, type OwnedFilter } from '../../../api/admin.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { formatDate, money } from '../../../components/format.ts';
import { LoadError } from '../../../components/load-error.tsx';
import { Pagination } from '../../../components/pagination.tsx';
import { StatusBadge } from '../../../components/status-badge.tsx';

const INVOICE_VARIANTS: Record<string, string> = { pending: 'warning', paid: 'success', cancelled: 'danger' };

const Owner = ({ owner }: { owner: { _id: string; tgId: string } }) => <Link to={`/admin/users/${encodeURIComponent(owner._id)}`}>@{owner.tgId}</Link>;

function StateRows({ pending, empty, columns }: { pending: boolean; empty: boolean; columns: number }) {
  if (pending)
    return (
      <tr>
        <td colSpan={columns} className="text-center">
          <Spinner animation="border" size="sm" />
        </td>
      </tr>
    );
  if (empty)
    return (
      <tr>
        <td colSpan={columns} className="text-center text-muted">
          Nothing matches
        </td>
      </tr>
    );
  return null;
}

/** Every customer's CSV bulk orders, newest first. */
export function BulkOrdersList({ filter }: { filter: OwnedFilter }) {
  const list = usePagedList({ query: (page) => adminBulkOrdersQuery(filter, page) });
  const bulk = list.query;
  const rows = bulk.data?.bulkOrders ?? [];
  return (
    <>
      <LoadError query={bulk} what="the bulk orders" />
      <Table responsive hover size="sm" className="align-middle small mb-3" data-testid="admin-bulk-table">
        <thead>
          <tr>
            <th>Created</th>
            <th>Customer</th>
            <th>Type</th>
            <th className="text-end">Labels</th>
            <th className="text-end">Failed</th>
            <th className="text-end">Total</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          <StateRows pending={bulk.isPending} empty={bulk.isSuccess && rows.length === 0} columns={7} />
          {rows.map((order) => (
            <tr key={order._id} data-testid="admin-bulk-row">
              <td>{formatDate(order.createdAt)}</td>
              <td>
                <Owner owner={order.owner} />
              </td>
              <td>{order.labelType.name}</td>
              <td className="text-end">{order.totalOrders}</td>
              <td className="text-end">{order.failedOrders}</td>
              <td className="text-end">{money(order.total)}</td>
              <td style={{ minWidth: 120 }}>
                <StatusBadge status={order.status} />
                {order.status === 'processing' && <ProgressBar now={order.progress} label={`${order.progress}%`} className="mt-1" style={{ height: 14 }} />}
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
      <Pagination label="Bulk orders pages" {...list.pager} />
    </>
  );
}

/** Every customer's deposit invoices (Manual ones are operator credits), newest first. */
export function InvoicesList({ filter }: { filter: OwnedFilter }) {
  const list = usePagedList({ query: (page) => adminInvoicesQuery(filter, page) });
  const invoices = list.query;
  const rows = invoices.data?.invoices ?? [];
  return (
    <>
      <LoadError query={invoices} what="the invoices" />
      <Table responsive hover size="sm" className="align-middle small mb-3" data-testid="admin-invoices-table">
        <thead>
          <tr>
            <th>Date</th>
            <th>Customer</th>
            <th className="text-end">Amount</th>
            <th className="text-end">Bonus</th>
            <th>Method</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          <StateRows pending={invoices.isPending} empty={invoices.isSuccess && rows.length === 0} columns={6} />
          {rows.map((invoice) => (
            <tr key={invoice._id} data-testid="admin-invoice-row">
              <td>{formatDate(invoice.createdAt)}</td>
              <td>
                <Owner owner={invoice.owner} />
              </td>
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
