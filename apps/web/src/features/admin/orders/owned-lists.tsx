import { Link } from 'react-router-dom';
import { ProgressBar } from 'react-bootstrap';
import type { adminBulkOrdersResponse, adminInvoicesResponse } from '@portal/contract';
import { adminBulkOrdersQuery, adminInvoicesQuery, type OwnedFilter } from '../../../api/admin.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { formatDate, money } from '../../../components/format.ts';
import { PagedTable, type Columns } from '../../../components/paged-table.tsx';
import { StatusBadge } from '../../../components/status-badge.tsx';
import { invoiceColumns } from '../users/user-history.tsx';

const Owner = ({ owner }: { owner: { _id: string; tgId: string } }) => <Link to={`/admin/users/${encodeURIComponent(owner._id)}`}>@{owner.tgId}</Link>;

type AdminBulkOrder = ReturnType<typeof adminBulkOrdersResponse.parse>['bulkOrders'][number];
type AdminInvoice = ReturnType<typeof adminInvoicesResponse.parse>['invoices'][number];

const BULK_COLUMNS: Columns<AdminBulkOrder> = [
  { header: 'Created', cell: (order) => formatDate(order.createdAt) },
  { header: 'Customer', cell: (order) => <Owner owner={order.owner} /> },
  { header: 'Type', cell: (order) => order.labelType.name },
  { header: 'Labels', className: 'text-end', cell: (order) => order.totalOrders },
  { header: 'Failed', className: 'text-end', cell: (order) => order.failedOrders },
  { header: 'Total', className: 'text-end', cell: (order) => money(order.total) },
  {
    header: 'Status',
    td: { style: { minWidth: 120 } },
    cell: (order) => (
      <>
        <StatusBadge status={order.status} />
        {order.status === 'processing' && <ProgressBar now={order.progress} label={`${order.progress}%`} className="mt-1" style={{ height: 14 }} />}
      </>
    ),
  },
];

/** Every customer's CSV bulk orders, newest first. */
export function BulkOrdersList({ filter }: { filter: OwnedFilter }) {
  const list = usePagedList({ query: (page) => adminBulkOrdersQuery(filter, page) });
  return (
    <PagedTable
      query={list.query}
      rows={list.query.data?.bulkOrders ?? []}
      columns={BULK_COLUMNS}
      what="the bulk orders"
      empty="Nothing matches"
      testId="admin-bulk-table"
      rowProps={() => ({ 'data-testid': 'admin-bulk-row' })}
      compact
      pager={{ label: 'Bulk orders pages', ...list.pager }}
    />
  );
}

const INVOICE_COLUMNS = invoiceColumns<AdminInvoice>({ header: 'Customer', cell: (invoice) => <Owner owner={invoice.owner} /> });

/** Every customer's deposit invoices (Manual ones are operator credits), newest first. */
export function InvoicesList({ filter }: { filter: OwnedFilter }) {
  const list = usePagedList({ query: (page) => adminInvoicesQuery(filter, page) });
  return (
    <PagedTable
      query={list.query}
      rows={list.query.data?.invoices ?? []}
      columns={INVOICE_COLUMNS}
      what="the invoices"
      empty="Nothing matches"
      testId="admin-invoices-table"
      rowProps={() => ({ 'data-testid': 'admin-invoice-row' })}
      compact
      pager={{ label: 'Invoices pages', ...list.pager }}
    />
  );
}
