import { useState, type ReactNode } from 'react';
import { Button, Form } from 'react-bootstrap';
import type { Order } from '@portal/contract';

/** The orders picked in Order History, by id, each as it was last shown; kept across pages, so a selection can span them. */
export function useOrderSelection() {
  const [picked, setPicked] = useState<ReadonlyMap<string, Order>>(new Map());
  const change = (update: (next: Map<string, Order>) => void) =>
    setPicked((current) => {
      const next = new Map(current);
      update(next);
      return next;
    });
  return {
    ids: [...picked.keys()],
    /** The selected orders; those on the page shown (`shown`) as it shows them now. */
    orders: (shown: Order[] = []) => [...picked.values()].map((order) => shown.find((o) => o._id === order._id) ?? order),
    size: picked.size,
    has: (id: string) => picked.has(id),
    toggle: (order: Order) => change((next) => (next.has(order._id) ? next.delete(order._id) : next.set(order._id, order))),
    /** Selects every order shown, or clears them when all are already selected. */
    toggleAll: (shown: Order[]) =>
      change((next) => {
        const all = shown.every((order) => next.has(order._id));
        for (const order of shown) {
          if (all) next.delete(order._id);
          else next.set(order._id, order);
        }
      }),
    clear: () => setPicked(new Map()),
  };
}
export type OrderSelection = ReturnType<typeof useOrderSelection>;

/** The checkbox of a row, or of the header (every row shown). */
export function SelectBox({ checked, onChange, label }: { checked: boolean; onChange: () => void; label: string }) {
  return <Form.Check type="checkbox" aria-label={label} checked={checked} onChange={onChange} className="mb-0" />;
}

/**
 * What can be done with the selected orders: shown while any is selected, with the count, the actions given as
 * children (Request refund; others may sit beside it) and Clear.
 */
export function OrderSelectionBar({ selection, children }: { selection: OrderSelection; children: ReactNode }) {
  if (selection.size === 0) return null;
  return (
    <div className="d-flex flex-wrap align-items-center gap-2 mb-2" data-testid="order-selection">
      <span className="small me-2">{selection.size === 1 ? '1 order selected' : `${selection.size} orders selected`}</span>
      {children}
      <Button size="sm" variant="link" onClick={selection.clear}>
        Clear
      </Button>
    </div>
  );
}
