import { useState } from 'react';

type PaginationProps = {
  /** The current page, from 1. */
  page: number;
  /** How many pages there are (at least 1). */
  totalPages: number;
  onPageChange: (page: number) => void;
  /** Names the control for screen readers and tests, e.g. 'Invoices pages'. */
  label?: string;
  className?: string;
};

/** The spec's list pagination: Prev / current page / Next; Prev is disabled on page 1 and Next on the last page. */
export function Pagination({ page, totalPages, onPageChange, label = 'Pagination', className = '' }: PaginationProps) {
  const last = Math.max(1, totalPages);
  const onFirst = page <= 1;
  const onLast = page >= last;
  return (
    <nav aria-label={label} className={className}>
      <ul className="pagination pagination-sm mb-0">
        <li className={`page-item${onFirst ? ' disabled' : ''}`}>
          <button type="button" className="page-link" disabled={onFirst} onClick={() => onPageChange(page - 1)}>
            Prev
          </button>
        </li>
        <li className="page-item active" aria-current="page">
          <span className="page-link" title={`Page ${page} of ${last}`} data-testid="current-page">
            {page}
          </span>
        </li>
        <li className={`page-item${onLast ? ' disabled' : ''}`}>
          <button type="button" className="page-link" disabled={onLast} onClick={() => onPageChange(page + 1)}>
            Next
          </button>
        </li>
      </ul>
    </nav>
  );
}

/**
 * The page of a list whose filter can change: back to page 1 whenever the filter does, without
 * remounting the list (a modal opened from it stays open when a late search lands).
 */
export function usePageOf(filter: unknown): [number, (page: number) => void] {
  const key = JSON.stringify(filter);
  const [state, setState] = useState({ key, page: 1 });
  const page = state.key === key ? state.page : 1;
  return [page, (next: number) => setState({ key, page: next })];
}
