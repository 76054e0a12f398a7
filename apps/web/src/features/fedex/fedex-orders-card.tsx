import { useState } from 'react';
import { Button, Card, Form } from 'react-bootstrap';
import { FEDEX_PAGE_SIZE, type FedexOrder } from '@portal/contract';
import { downloadFedexInvoice, fedexFileUrl, fedexOrdersQuery } from '../../api/fedex.ts';
import { useDownload } from '../../api/mutation.ts';
import { usePagedList } from '../../api/paged-list.ts';
import { FedexOrderModal } from '../../components/fedex-order-modal.tsx';
import { formatDate, money } from '../../components/format.ts';
import { PagedTable, type Columns } from '../../components/paged-table.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { useDebounced } from '../../components/use-debounced.ts';

/** Orders: the user's FedEx orders, searched on the server, with the View Order modal, the label link and the commercial invoice. */
export function FedexOrdersCard() {
  const [searchText, setSearchText] = useState('');
  const search = useDebounced(searchText.trim());
  const [viewing, setViewing] = useState<FedexOrder | null>(null);
  const invoice = useDownload(downloadFedexInvoice);
  const list = usePagedList({ query: (page) => fedexOrdersQuery(search, page) });
  const { query: orders, page } = list;
  const columns: Columns<FedexOrder> = [
    // On phones a row is a card (as the dashboard's): the order id on top, each cell named, the actions at the bottom.
    { header: '#', td: { className: 'stack-hide' }, cell: (_, index) => (page - 1) * FEDEX_PAGE_SIZE + index + 1 },
    { header: 'OrderId', td: { className: 'font-monospace stack-key' }, cell: (order) => order.uuid },
    { header: 'Status', td: { 'data-label': 'Status' }, cell: (order) => <StatusBadge status={order.status} /> },
    { header: 'Price', className: 'text-end', td: { 'data-label': 'Price' }, cell: (order) => money(order.price) },
    {
      header: 'Status Note',
      td: (order) => ({ 'data-testid': 'fedex-status-note', 'data-label': 'Status Note', className: order.note ? undefined : 'stack-hide' }),
      cell: (order) => order.note ?? '',
    },
    { header: 'Created At', td: { className: 'text-nowrap', 'data-label': 'Created At' }, cell: (order) => formatDate(order.createdAt) },
    {
      header: 'Action',
      td: { className: 'text-nowrap stack-actions' },
      cell: (order) => (
        <>
          <Button size="sm" variant="outline-primary" className="me-1" onClick={() => setViewing(order)}>
            View
          </Button>
          <Button size="sm" variant="outline-secondary" className="me-1" disabled={invoice.saving?._id === order._id} onClick={() => invoice.download(order)}>
            Invoice
          </Button>
          {order.status === 'completed' && order.file && (
            <a className="btn btn-sm btn-outline-success" href={fedexFileUrl(order.file)}>
              Download
            </a>
          )}
        </>
      ),
    },
  ];

  return (
    <Card>
      <Card.Header className="d-flex flex-wrap align-items-center gap-2">
        <h6 className="mb-0 me-auto">Orders</h6>
        <Form.Control
          size="sm"
          type="search"
          aria-label="Search FedEx orders"
          placeholder="OrderId, name or city"
          className="order-search"
          value={searchText}
          onChange={(event) => setSearchText(event.target.value)}
        />
      </Card.Header>
      <Card.Body>
        <PagedTable
          query={orders}
          rows={orders.data?.docs ?? []}
          columns={columns}
          what="your FedEx orders"
          empty={search ? 'No FedEx orders match this search' : 'No FedEx orders yet'}
          testId="fedex-orders-table"
          rowProps={(order) => ({ 'data-testid': 'fedex-order-row', 'data-order-id': order._id })}
          compact
          stack
          pager={{ label: 'FedEx orders pages', ...list.pager }}
        />
      </Card.Body>
      <FedexOrderModal order={viewing} onClose={() => setViewing(null)} />
    </Card>
  );
}
