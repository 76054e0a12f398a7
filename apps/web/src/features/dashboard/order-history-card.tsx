import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { Badge, Button, Card, Form } from 'react-bootstrap';
import {
  DASHBOARD_PAGE_SIZE,
  ORDER_POLL_MS,
  TRACKING_STATUS_LABELS,
  isProcessingStatus,
  onScanForm,
  weightUnitFor,
  type Order,
  type OrderListQuery,
} from '@portal/contract';
import { useDownload } from '../../api/mutation.ts';
import { downloadOrderLabel, downloadSelectedLabels, orderHistoryQuery } from '../../api/orders.ts';
import { usePagedList } from '../../api/paged-list.ts';
import { formatDate, money, prepareDateFormat } from '../../components/format.ts';
import { PagedTable, type Columns } from '../../components/paged-table.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { orderPickupBadge, orderPickupText } from '../../components/pickup-window.ts';
import { useDebounced } from '../../components/use-debounced.ts';
import { RefundBadge } from '../../components/refund-badge.tsx';
import { DuplicateOrderModal } from './duplicate-order-modal.tsx';
import { OrderSelectionBar, SelectBox, useOrderSelection } from './order-selection.tsx';
import { RefundSelectedButton } from './refund-selected-button.tsx';
import { ScanFormButton } from '../../components/scan-form-button.tsx';
import { OrderDetailsModal } from './order-details-modal.tsx';

// The history's rows show dates; the formatter is made while the first page is on its way.
prepareDateFormat();

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

/** What an empty filtered list says, naming the filter: 'No pending orders', 'No orders match "ann"'. */
function emptyFilterText(search: string, status: StatusFilter): string {
  const kind = status === 'all' ? 'orders' : `${STATUSES.find((s) => s.value === status)!.label.toLowerCase()} orders`;
  return search ? `No ${kind} match "${search}"` : `No ${kind}`;
}

type HistoryView = { search: string; status: StatusFilter; sort: Sort; page: number };
const oneOf = <T extends string>(value: string | null, options: readonly { value: T }[], fallback: T): T =>
  options.find((o) => o.value === value)?.value ?? fallback;

/**
 * Order History: sort, search, status badges, download of completed labels, duplicate; reloads every 5 s while an
 * order is processing. Page, status, sort and search live in the address (?page=2&status=completed&search=ann),
 * so a refresh and Back keep them.
 */
export function OrderHistoryCard() {
  const navigate = useNavigate();
  const params = new URLSearchParams(useLocation().search);
  const view: HistoryView = {
    search: (params.get('search') ?? '').trim(),
    status: oneOf(params.get('status'), STATUSES, 'all'),
    sort: oneOf(params.get('sort'), SORTS, 'desc'),
    page: Math.max(1, Math.floor(Number(params.get('page'))) || 1),
  };
  const { search, status, sort } = view;
  // A new search, status or sort starts again at page 1; typing replaces the address entry instead of adding one a key.
  const go = (next: Partial<HistoryView>, replace = false) => {
    const to = { ...view, page: 1, ...next };
    const query = new URLSearchParams({
      ...(to.search ? { search: to.search } : {}),
      ...(to.status !== 'all' ? { status: to.status } : {}),
      ...(to.sort !== 'desc' ? { sort: to.sort } : {}),
      ...(to.page > 1 ? { page: String(to.page) } : {}),
    }).toString();
    void navigate({ search: query }, { replace });
  };
  const [viewing, setViewing] = useState<string | null>(null);
  const [searchText, setSearchText] = useState(search);
  // Typing settles before the search goes into the address.
  const typed = useDebounced(searchText.trim());
  useEffect(() => {
    if (typed !== search) go({ search: typed }, true);
    // Only a settled change of the text moves the address; Back to another search is not undone by it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [typed]);
  // Back or a link to another search shows that search in the box.
  useEffect(() => {
    setSearchText((text) => (text.trim() === search ? text : search));
  }, [search]);
  const [duplicating, setDuplicating] = useState<Order | null>(null);
  const label = useDownload(downloadOrderLabel);
  const merged = useDownload(downloadSelectedLabels);

  const history = usePagedList({
    query: (page) => orderHistoryQuery({ search, status, sort }, page),
    poll: (data) => (data.orders.some((o) => isProcessingStatus(o.status)) ? ORDER_POLL_MS : false),
    page: view.page,
    onPageChange: (page) => go({ page }),
  });
  const { query: orders, page } = history;
  const rows = orders.data?.orders ?? [];
  const selection = useOrderSelection();
  const select = (order: Order) => (
    <SelectBox label={`Select order ${order.OrderId}`} checked={selection.has(order._id)} onChange={() => selection.toggle(order)} />
  );
  const columns: Columns<Order> = [
    {
      // The selection sits in the # column: the columns stay as the spec lists them.
      header: (
        <span className="d-inline-flex align-items-center gap-2">
          <SelectBox
            label="Select every order shown"
            checked={rows.length > 0 && rows.every((order) => selection.has(order._id))}
            onChange={() => selection.toggleAll(rows)}
          />
          #
        </span>
      ),
      td: { className: 'stack-hide' },
      cell: (order, index) => (
        <span className="d-inline-flex align-items-center gap-2">
          {select(order)}
          {(page - 1) * DASHBOARD_PAGE_SIZE + index + 1}
        </span>
      ),
    },
    {
      header: 'Order ID',
      td: { className: 'font-monospace stack-key', 'data-label': 'Order ID' },
      cell: (order) => (
        <span className="d-inline-flex align-items-center gap-2">
          {/* On phones the # column is hidden: the order's card carries its checkbox. */}
          <span className="d-md-none">{select(order)}</span>
          {order.OrderId}
        </span>
      ),
    },
    {
      header: 'Type',
      td: { 'data-label': 'Type' },
      cell: (order) => (
        <span>
          {order.labelType.name}
          <span className="d-block text-muted small" data-testid="order-weight">
            {order.weight} {weightUnitFor(order.labelType.uid)}
          </span>
        </span>
      ),
    },
    { header: 'From', td: { className: 'stack-hide' }, cell: (order) => order.fromName },
    // On phones a row is a card: the receiver and the date stay on it.
    {
      header: 'To',
      td: { 'data-label': 'To' },
      // The reference lines under the receiver: what a customer knows the parcel by.
      cell: (order) => (
        <span>
          {order.toName}
          {(order.reference || order.reference2) && (
            <span className="d-block text-muted small text-break" data-testid="order-reference">
              Ref: {[order.reference, order.reference2].filter(Boolean).join(' / ')}
            </span>
          )}
        </span>
      ),
    },
    {
      header: 'Price',
      className: 'text-end',
      td: { 'data-label': 'Price' },
      cell: (order) => (
        <span>
          {money(order.price)}
          {(order.status === 'cancelled' || order.refundStatus === 'refunded') && (
            <span className="d-block small text-success text-nowrap" data-testid="order-refunded">
              Refunded {money(order.price)}
            </span>
          )}
        </span>
      ),
    },
    {
      header: 'Status',
      td: { 'data-label': 'Status' },
      cell: (order) => (
        <>
          <StatusBadge status={order.status} title={order.note ?? undefined} />
          {order.trackingStatus && (
            <span className="d-block small text-muted text-nowrap" data-testid="order-tracking-status" data-tracking-status={order.trackingStatus}>
              {TRACKING_STATUS_LABELS[order.trackingStatus]}
            </span>
          )}
          <RefundBadge status={order.refundStatus} note={order.refundNote} />
          {order.isReturn && (
            <Badge
              bg="secondary"
              className="ms-1"
              title={order.returnOf ? `Return label of order ${order.returnOf.slice(0, 8).toUpperCase()}` : 'Return label'}
              data-testid="order-return-badge"
            >
              Return
            </Badge>
          )}
          {order.scanFormId && (
            <Badge bg="info" text="dark" className="ms-1" title={onScanForm(order.scanFormId)} data-testid="order-scan-form-badge">
              SCAN form
            </Badge>
          )}
          {order.pickup && (
            <Badge bg="info" text="dark" className="ms-1" title={orderPickupText(order.pickup)} data-testid="order-pickup-badge">
              {orderPickupBadge(order.pickup)}
            </Badge>
          )}
        </>
      ),
    },
    // In the row's details below xxl, where the table would otherwise scroll sideways.
    { header: 'Tracking', className: 'd-none d-xxl-table-cell', td: { className: 'font-monospace stack-hide' }, cell: (order) => order.tracking ?? '' },
    { header: 'Created At', td: { 'data-label': 'Created At' }, cell: (order) => formatDate(order.createdAt) },
    {
      header: 'Action',
      td: { className: 'text-nowrap stack-actions' },
      cell: (order) => (
        <>
          <Button size="sm" variant="outline-secondary" className="me-2" onClick={() => setViewing(order._id)}>
            Details
          </Button>
          {order.status === 'completed' && order.pdf && (
            <Button size="sm" variant="outline-success" className="me-2" disabled={label.saving?._id === order._id} onClick={() => label.download(order)}>
              Download
            </Button>
          )}
          <Button size="sm" variant="outline-primary" onClick={() => setDuplicating(order)}>
            Duplicate
          </Button>
        </>
      ),
    },
  ];

  return (
    <Card className="mb-4">
      <Card.Header className="d-flex flex-wrap align-items-center gap-2">
        <h2 className="h6 mb-0 me-auto">Order History</h2>
        <Form.Select size="sm" aria-label="Status" className="w-auto" value={status} onChange={(event) => go({ status: event.target.value as StatusFilter })}>
          {STATUSES.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </Form.Select>
        <Form.Select size="sm" aria-label="Sort" className="w-auto" value={sort} onChange={(event) => go({ sort: event.target.value as Sort })}>
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
        <OrderSelectionBar selection={selection}>
          <Button size="sm" variant="success" disabled={merged.saving !== undefined} onClick={() => merged.download(selection.ids)}>
            Download selected ({selection.size})
          </Button>
          <ScanFormButton body={{ orderIds: selection.ids }} orders={selection.orders(rows)} onDone={selection.clear} />
          <RefundSelectedButton orders={selection.orders(rows)} onDone={selection.clear} />
        </OrderSelectionBar>
        <PagedTable
          query={orders}
          rows={rows}
          columns={columns}
          what="the order history"
          empty={search || status !== 'all' ? emptyFilterText(search, status) : 'No orders yet'}
          testId="orders-table"
          rowProps={(order) => ({ 'data-testid': 'order-row', 'data-order-id': order._id })}
          compact
          stack
          pager={{ label: 'Order History pages', ...history.pager }}
        />
      </Card.Body>
      <DuplicateOrderModal order={duplicating} onClose={() => setDuplicating(null)} />
      <OrderDetailsModal orderId={viewing} onClose={() => setViewing(null)} />
    </Card>
  );
}
