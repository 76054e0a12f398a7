import { useState, type ReactNode } from 'react';
import { Button, Form } from 'react-bootstrap';

/** The orders picked in Order History, by id; kept across pages, so a selection can span them. */
export function useOrderSelection() {
  const [ids, setIds] = useState<ReadonlySet<string>>(new Set());
  const change = (update: (next: Set<string>) => void) =>
    setIds((current) => {
      const next = new Set(current);
      update(next);
      return next;
    });
  return {
    ids: [...ids],
    size: ids.size,
    has: (id: string) => ids.has(id),
    toggle: (id: string) => change((next) => (next.has(id) ? next.delete(id) : next.add(id))),
    /** Selects every id shown, or clears them when all are already selected. */
    toggleAll: (shown: string[]) =>
      change((next) => {
        const all = shown.every((id) => next.has(id));
        for (const id of shown) {
          if (all) next.delete(id);
          else next.add(id);
        }
      }),
    clear: () => setIds(new Set()),
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
