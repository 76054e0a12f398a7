import { useState } from 'react';
import { Button, Card, Form, Spinner, Table } from 'react-bootstrap';
import { FEDEX_PAGE_SIZE, type FedexOrder } from '@portal/contract';
import { downloadFedexInvoice, fedexFileUrl, fedexOrdersQuery } from '../../api/fedex.ts';
import { useDownload } from '../../api/mutation.ts';
import { usePagedList } from '../../api/paged-list.ts';
import { FedexOrderModal } from '../../components/fedex-order-modal.tsx';
import { formatDate, money } from '../../components/format.ts';
import { LoadError } from '../../components/load-error.tsx';
import { Pagination } from '../../components/pagination.tsx';
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
  const rows = orders.data?.docs ?? [];

  return (
    <Card>
      <Card.Header className="d-flex flex-wrap align-items-center gap-2">
        <h6 className="mb-0 me-auto">Orders</h6>
        <Form.Control
          size="sm"
          type="search"
          aria-label="Search FedEx orders"
          placeholder="OrderId, name or city"
          className="w-auto"
          style={{ minWidth: 240 }}
          value={searchText}
          onChange={(event) => setSearchText(event.target.value)}
        />
      </Card.Header>
      <Card.Body>
        <LoadError query={orders} what="your FedEx orders" />
        <Table responsive hover size="sm" className="align-middle mb-3 small" data-testid="fedex-orders-table">
          <thead>
            <tr>
              <th>#</th>
              <th>OrderId</th>
              <th>Status</th>
              <th className="text-end">Price</th>
              <th>Status Note</th>
              <th>Created At</th>
              <th>Action</th>
            </tr>
          </thead>
          <tbody>
            {orders.isPending && (
              <tr>
                <td colSpan={7} className="text-center">
                  <Spinner animation="border" size="sm" />
                </td>
              </tr>
            )}
            {orders.isSuccess && rows.length === 0 && (
              <tr>
                <td colSpan={7} className="text-center text-muted">
                  {search ? 'No FedEx orders match this search' : 'No FedEx orders yet'}
                </td>
              </tr>
            )}
            {rows.map((order, index) => (
              <tr key={order._id} data-testid="fedex-order-row" data-order-id={order._id}>
                <td>{(page - 1) * FEDEX_PAGE_SIZE + index + 1}</td>
                <td className="font-monospace">{order.uuid}</td>
                <td>
                  <StatusBadge status={order.status} />
                </td>
                <td className="text-end">{money(order.price)}</td>
                <td data-testid="fedex-status-note">{order.note ?? ''}</td>
                <td className="text-nowrap">{formatDate(order.createdAt)}</td>
                <td className="text-nowrap">
                  <Button size="sm" variant="outline-primary" className="me-1" onClick={() => setViewing(order)}>
                    View
                  </Button>
                  <Button
                    size="sm"
                    variant="outline-secondary"
                    className="me-1"
                    disabled={invoice.saving?._id === order._id}
                    onClick={() => invoice.download(order)}
                  >
                    Invoice
                  </Button>
                  {order.status === 'completed' && order.file && (
                    <a className="btn btn-sm btn-outline-success" href={fedexFileUrl(order.file)}>
                      Download
                    </a>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
        <Pagination label="FedEx orders pages" {...list.pager} />
      </Card.Body>
      <FedexOrderModal order={viewing} onClose={() => setViewing(null)} />
    </Card>
  );
}
