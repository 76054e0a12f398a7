import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, Form, Spinner, Table } from 'react-bootstrap';
import { toast } from '../../components/toast.tsx';
import { DASHBOARD_PAGE_SIZE, ORDER_POLL_MS, isProcessingStatus, weightUnitFor, type Order, type OrderListQuery } from '@portal/contract';
import { errorMessage } from '../../api/client.ts';
import { ORDERS_QUERY_KEY, downloadOrderLabel, readOrders } from '../../api/orders.ts';
import { formatDate, money } from '../../components/format.ts';
import { Pagination } from '../../components/pagination.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { DuplicateOrderModal } from './duplicate-order-modal.tsx';
import { OrderDetailsModal } from './order-details-modal.tsx';
import { asyncHandler } from '../../components/async-handler.ts';

const SORTS = [
  { value: 'desc', label: 'Newest first' },
  { value: 'asc', label: 'Oldest first' },
] as const;
type Sort = (typeof SORTS)[number]['value'];

/** The statuses the list can be narrowed to (the API's status parameter). */
const STATUSES = [
  { value: 'all', label: 'All' },
  { value: 'pending', label: 'Pending' },
  { value: 'processing', label: 'Processing' },
  { value: 'completed', label: 'Completed' },
  { value: 'cancelled', label: 'Cancelled' },
] as const;
type StatusFilter = (typeof STATUSES)[number]['value'] & OrderListQuery['status'];

/** Typing settles for this long before the search is sent. */
const SEARCH_DELAY_MS = 300;

/** Order History: sort, search, status badges, download of completed labels, duplicate; reloads every 5 s while an order is processing. */
export function OrderHistoryCard() {
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<Sort>('desc');
  const [status, setStatus] = useState<StatusFilter>('all');
  const [viewing, setViewing] = useState<string | null>(null);
  const [searchText, setSearchText] = useState('');
  const [search, setSearch] = useState('');
  const [duplicating, setDuplicating] = useState<Order | null>(null);
  const [downloading, setDownloading] = useState<string | null>(null);

  // Only a changed search goes back to page 1: the first render must not undo a quick click on Next.
  useEffect(() => {
    const next = searchText.trim();
    if (next === search) return;
    const timer = setTimeout(() => {
      setSearch(next);
      setPage(1);
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [searchText, search]);

  const orders = useQuery({
    queryKey: [...ORDERS_QUERY_KEY, 'history', { page, sort, search, status }],
    queryFn: () => readOrders({ search, status, sort, page, limit: DASHBOARD_PAGE_SIZE }),
    placeholderData: keepPreviousData,
    refetchOnMount: 'always',
    refetchInterval: (query) => (query.state.data?.orders.some((o) => isProcessingStatus(o.status)) ? ORDER_POLL_MS : false),
  });
  useEffect(() => {
    if (orders.error) console.error('Failed to load orders', orders.error);
  }, [orders.error]);
  const rows = orders.data?.orders ?? [];
  const totalPages = orders.data?.totalPages ?? 1;
  // A shorter list (e.g. a narrower search) may leave the page past the end.
  useEffect(() => {
    if (page > totalPages) setPage(totalPages);
  }, [page, totalPages]);

  const download = async (order: Order) => {
    setDownloading(order._id);
    try {
      await downloadOrderLabel(order);
    } catch (error) {
      toast.error(errorMessage(error));
    } finally {
      setDownloading(null);
    }
  };

  return (
    <Card className="mb-4">
      <Card.Header className="d-flex flex-wrap align-items-center gap-2">
        <h2 className="h6 mb-0 me-auto">Order History</h2>
        <Form.Select
          size="sm"
          aria-label="Status"
          className="w-auto"
          value={status}
          onChange={(event) => {
            setStatus(event.target.value as StatusFilter);
            setPage(1);
          }}
        >
          {STATUSES.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </Form.Select>
        <Form.Select
          size="sm"
          aria-label="Sort"
          className="w-auto"
          value={sort}
          onChange={(event) => {
            setSort(event.target.value as Sort);
            setPage(1);
          }}
        >
          {SORTS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </Form.Select>
        <Form.Control
          size="sm"
          type="search"
          aria-label="Search orders"
          placeholder="Name, tracking or order ID"
          className="order-search"

          value={searchText}
          onChange={(event) => setSearchText(event.target.value)}
        />
      </Card.Header>
      <Card.Body>
        <Table responsive hover size="sm" className="align-middle mb-3 small table-stack" data-testid="orders-table">
          <thead>
            <tr>
              <th>#</th>
              <th>Order ID</th>
              <th>Type</th>
              <th>From</th>
              <th>To</th>
              <th className="text-end">Price</th>
              <th>Status</th>
              <th className="d-none d-xxl-table-cell">Tracking</th>
              <th>Created At</th>
              <th>Action</th>
            </tr>
          </thead>
          <tbody>
            {orders.isPending && (
              <tr>
                <td colSpan={10} className="text-center">
                  <Spinner animation="border" size="sm" />
                </td>
              </tr>
            )}
            {orders.isSuccess && rows.length === 0 && (
              <tr>
                <td colSpan={10} className="text-center text-muted">
                  {search || status !== 'all' ? 'No orders match this search' : 'No orders yet'}
                </td>
              </tr>
            )}
            {rows.map((order, index) => (
              <tr key={order._id} data-testid="order-row" data-order-id={order._id}>
                <td className="stack-hide">{(page - 1) * DASHBOARD_PAGE_SIZE + index + 1}</td>
                <td className="font-monospace stack-key" data-label="Order ID">
                  {order.OrderId}
                </td>
                <td data-label="Type">
                  <span>
                    {order.labelType.name}
                    <span className="d-block text-muted small" data-testid="order-weight">
                      {order.weight} {weightUnitFor(order.labelType.uid)}
                    </span>
                  </span>
                </td>
                <td className="stack-hide">{order.fromName}</td>
                <td className="stack-hide">{order.toName}</td>
                <td className="text-end" data-label="Price">
                  <span>
                    {money(order.price)}
                    {order.status === 'cancelled' && (
                      <span className="d-block small text-success text-nowrap" data-testid="order-refunded">
                        Refunded {money(order.price)}
                      </span>
                    )}
                  </span>
                </td>
                <td data-label="Status">
                  <StatusBadge status={order.status} title={order.note ?? undefined} />
                </td>
                {/* In the row's details below xxl, where the table would otherwise scroll sideways. */}
                <td className="font-monospace stack-hide d-none d-xxl-table-cell">{order.tracking ?? ''}</td>
                <td className="stack-hide">{formatDate(order.createdAt)}</td>
                <td className="text-nowrap stack-actions">
                  <Button size="sm" variant="outline-secondary" className="me-2" onClick={() => setViewing(order._id)}>
                    Details
                  </Button>
                  {order.status === 'completed' && (
                    <Button size="sm" variant="outline-success" className="me-2" disabled={downloading === order._id} onClick={asyncHandler(() => download(order))}>
                      Download
                    </Button>
                  )}
                  <Button size="sm" variant="outline-primary" onClick={() => setDuplicating(order)}>
                    Duplicate
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
        <Pagination label="Order History pages" page={page} totalPages={totalPages} onPageChange={setPage} />
      </Card.Body>
      <DuplicateOrderModal order={duplicating} onClose={() => setDuplicating(null)} />
      <OrderDetailsModal orderId={viewing} onClose={() => setViewing(null)} />
    </Card>
  );
}
