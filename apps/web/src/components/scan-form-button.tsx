import { Button } from 'react-bootstrap';
import type { Order, ScanFormRequestBody, ScanFormResult } from '@portal/contract';
import { useCreateScanForm } from '../api/scan-forms.ts';

/** The answer in one toast: the forms asked, then each refused label (by order and tracking number, when known) with why. */
function summary(result: ScanFormResult, orders: Pick<Order, '_id' | 'OrderId' | 'tracking'>[]) {
  const nameOf = (id: string) => {
    const order = orders.find((o) => o._id === id);
    if (!order) return id.slice(0, 8).toUpperCase();
    return order.tracking ? `${order.OrderId} (${order.tracking})` : order.OrderId;
  };
  // One element: the toast lays its children out side by side.
  return (
    <div>
      {result.message}
      {result.refused.length > 0 && (
        <ul className="mb-0 mt-1 ps-3 small">
          {result.refused.map((r) => (
            <li key={r.orderId}>
              {nameOf(r.orderId)}: {r.reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * 'SCAN form' of some labels: the selected orders (Order History) or a bulk order's (CSV Orders). The server groups
 * them, a form a group (End of day has the day's labels grouped); `onDone` runs once asked.
 */
export function ScanFormButton({
  body,
  orders = [],
  onDone,
}: {
  body: ScanFormRequestBody;
  orders?: Pick<Order, '_id' | 'OrderId' | 'tracking'>[];
  onDone?: () => void;
}) {
  const create = useCreateScanForm({
    successToast: (result) => summary(result, orders),
    successKind: (result) => (result.refused.length > 0 ? 'warn' : 'success'),
  });
  return (
    <Button size="sm" variant="outline-primary" disabled={create.isPending} onClick={() => create.mutate(body, { onSuccess: onDone })}>
      SCAN form
    </Button>
  );
}
