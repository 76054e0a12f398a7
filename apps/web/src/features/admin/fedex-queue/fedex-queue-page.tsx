import { useState, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { Button, Card, Tab, Tabs } from 'react-bootstrap';
import { FEDEX_PAGE_SIZE, type AdminFedexOrder } from '@portal/contract';
import { downloadAdminFedexInvoice, fedexHistoryQuery, fedexQueueQuery } from '../../../api/admin.ts';
import { fedexFileUrl } from '../../../api/fedex.ts';
import { useDownload } from '../../../api/mutation.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { FedexOrderModal } from '../../../components/fedex-order-modal.tsx';
import { formatClock, formatDate, money } from '../../../components/format.ts';
import { PagedTable, type Column, type Columns } from '../../../components/paged-table.tsx';
import { StatusBadge } from '../../../components/status-badge.tsx';
import { FedexActionModal, type FedexAction } from './fedex-order-actions.tsx';

/** A side of the order: the name, and the city and country under it. */
const Party = ({ side }: { side: { name: string; city: string; country: string } }) => (
  <>
    {side.name}
    <div className="text-muted">
      {side.city}, {side.country}
    </div>
  </>
);

/** The columns both tabs show, the row number running on across pages. */
const orderColumns = (page: number): Columns<AdminFedexOrder> => [
  { header: '#', cell: (_, index) => (page - 1) * FEDEX_PAGE_SIZE + index + 1 },
  // The full id is in the View Order modal; the start tells orders apart in a short queue.
  { header: 'OrderId', td: (order) => ({ className: 'font-monospace', title: order.uuid }), cell: (order) => order.uuid.slice(0, 8) },
  { header: 'Customer', cell: (order) => <Link to={`/admin/users/${encodeURIComponent(order.owner._id)}`}>@{order.owner.tgId}</Link> },
  { header: 'From', td: { className: 'text-nowrap' }, cell: (order) => <Party side={order.from} /> },
  { header: 'To', td: { className: 'text-nowrap' }, cell: (order) => <Party side={order.to} /> },
  { header: 'Price', className: 'text-end', cell: (order) => money(order.price) },
];

const createdAt: Column<AdminFedexOrder> = { header: 'Created At', cell: (order) => formatDate(order.createdAt) };

/** View, then the tab's own actions. */
const actionColumn = (view: (order: AdminFedexOrder) => void, actions: (order: AdminFedexOrder) => ReactNode): Column<AdminFedexOrder> => ({
  header: 'Action',
  cell: (order) => (
    <div className="d-flex gap-1 text-nowrap">
      <Button size="sm" variant="outline-primary" onClick={() => view(order)}>
        View
      </Button>
      {actions(order)}
    </div>
  ),
});

/** Pending orders, oldest first: view one, get its invoice, complete it with the label or cancel it. */
function QueueTab() {
  const [viewing, setViewing] = useState<AdminFedexOrder | null>(null);
  const [action, setAction] = useState<FedexAction | null>(null);
  const invoice = useDownload(downloadAdminFedexInvoice);
  const list = usePagedList({ query: fedexQueueQuery });
  const { query: queue, page } = list;

  const act = (kind: FedexAction['kind'], order: AdminFedexOrder) => {
    setViewing(null);
    setAction({ kind, order });
  };
  const actions = (order: AdminFedexOrder) => (
    <>
      <Button size="sm" variant="outline-secondary" disabled={invoice.saving?._id === order._id} onClick={() => invoice.download(order)}>
        Invoice
      </Button>
      <Button size="sm" variant="success" onClick={() => act('complete', order)}>
        Complete
      </Button>
      <Button size="sm" variant="outline-danger" onClick={() => act('cancel', order)}>
        Cancel
      </Button>
    </>
  );
  const columns: Columns<AdminFedexOrder> = [
    ...orderColumns(page),
    {
      header: 'Pickup',
      td: { className: 'text-nowrap' },
      cell: (order) =>
        order.pickup ? (
          <>
            {order.pickupDate}
            <div className="text-muted">
              {formatClock(order.pickupTime)} - {formatClock(order.pickupEndTime)}
            </div>
          </>
        ) : (
          'No'
        ),
    },
    createdAt,
    actionColumn(setViewing, actions),
  ];

  return (
    <>
      {queue.data && (
        <p className="small text-muted" data-testid="fedex-queue-total">
          {queue.data.total} pending, oldest first
        </p>
      )}
      <PagedTable
        query={queue}
        rows={queue.data?.orders ?? []}
        columns={columns}
        what="the FedEx queue"
        empty={<span data-testid="fedex-queue-empty">The FedEx hand-made queue is empty: no order waits for an operator.</span>}
        testId="fedex-queue-table"
        rowProps={(order) => ({ 'data-testid': 'fedex-queue-row', 'data-order-id': order._id })}
        compact
        pager={{ label: 'FedEx queue pages', ...list.pager }}
      />
      <FedexOrderModal order={viewing} onClose={() => setViewing(null)} actions={viewing && actions(viewing)}>
        {viewing && <OwnerLine order={viewing} />}
      </FedexOrderModal>
      <FedexActionModal action={action} onClose={() => setAction(null)} />
    </>
  );
}

function OwnerLine({ order }: { order: AdminFedexOrder }) {
  return (
    <p className="small" data-testid="fedex-order-owner">
      Customer: {order.owner.username} (@{order.owner.tgId}), placed {formatDate(order.createdAt)}, paid {money(order.price)}
    </p>
  );
}

/** Completed and cancelled orders, newest first: when each was done, the operator's note, its label and invoice. */
function HistoryTab() {
  const [viewing, setViewing] = useState<AdminFedexOrder | null>(null);
  const invoice = useDownload(downloadAdminFedexInvoice);
  const list = usePagedList({ query: fedexHistoryQuery });
  const { query: history, page } = list;
  const actions = (order: AdminFedexOrder) => (
    <>
      {order.status === 'completed' && order.file && (
        <a className="btn btn-sm btn-outline-success" href={fedexFileUrl(order.file)}>
          Label
        </a>
      )}
      <Button size="sm" variant="outline-secondary" disabled={invoice.saving?._id === order._id} onClick={() => invoice.download(order)}>
        Invoice
      </Button>
    </>
  );
  const columns: Columns<AdminFedexOrder> = [
    ...orderColumns(page),
    {
      header: 'Status',
      cell: (order) => (
        <>
          <StatusBadge status={order.status} />
          {order.note && (
            <div className="text-muted text-break" data-testid="fedex-history-note">
              {order.note}
            </div>
          )}
        </>
      ),
    },
    createdAt,
    { header: 'Done At', cell: (order) => formatDate(order.updatedAt) },
    actionColumn(setViewing, actions),
  ];
  return (
    <>
      <PagedTable
        query={history}
        rows={history.data?.orders ?? []}
        columns={columns}
        what="the FedEx history"
        empty="No FedEx hand-made order was completed or cancelled yet."
        testId="fedex-history-table"
        rowProps={(order) => ({ 'data-testid': 'fedex-history-row', 'data-order-id': order._id, 'data-status': order.status })}
        compact
        pager={{ label: 'FedEx history pages', ...list.pager }}
      />
      <FedexOrderModal order={viewing} onClose={() => setViewing(null)} actions={viewing && actions(viewing)}>
        {viewing && <OwnerLine order={viewing} />}
      </FedexOrderModal>
    </>
  );
}

/** /admin/fedex-queue: the FedEx hand-made orders waiting for an operator, and (History) those completed or cancelled. */
export function FedexQueuePage() {
  return (
    <Card>
      <Card.Header>
        <h2 className="h6 mb-0">FedEx hand-made queue</h2>
      </Card.Header>
      <Card.Body>
        <Tabs defaultActiveKey="queue" className="mb-3" mountOnEnter>
          <Tab eventKey="queue" title="Waiting">
            <QueueTab />
          </Tab>
          <Tab eventKey="history" title="History">
            <HistoryTab />
          </Tab>
        </Tabs>
      </Card.Body>
    </Card>
  );
}
