export type PaginationProps = {
  /** The current page, from 1. */
  page: number;
  /** How many pages there are (at least 1). */
  totalPages: number;
  onPageChange: (page: number) => void;
  /** Names the control for screen readers and tests, e.g. 'Invoices pages'. */
  label?: string;
  className?: string;
};

/** From this many pages on, the pages around the current one (and the first and last) are offered as jumps. */
export const JUMP_FROM_PAGES = 10;
/** How many pages either side of the current one are offered. */
const AROUND = 2;

/** The page numbers to offer, with null for a gap: 1 … 4 5 [6] 7 8 … 40. */
export function pageJumps(page: number, last: number): (number | null)[] {
  const shown = new Set([1, last]);
  for (let p = Math.max(1, page - AROUND); p <= Math.min(last, page + AROUND); p++) shown.add(p);
  const sorted = [...shown].sort((a, b) => a - b);
  return sorted.flatMap((p, i) => (i > 0 && p - sorted[i - 1] > 1 ? [null, p] : [p]));
}

/**
 * The spec's list pagination: Prev / current page / Next, and 'Page n of N'; Prev is disabled on
 * page 1 and Next on the last page. From ten pages on, the first, the last and the pages around
 * the current one can be jumped to.
 */
export function Pagination({ page, totalPages, onPageChange, label = 'Pagination', className = '' }: PaginationProps) {
  const last = Math.max(1, totalPages);
  const onFirst = page <= 1;
  const onLast = page >= last;
  const current = (
    <li className="page-item active" aria-current="page" key={`current-${page}`}>
      <span className="page-link" title={`Page ${page} of ${last}`} data-testid="current-page">
        {page}
      </span>
    </li>
  );
  const numbers =
    last < JUMP_FROM_PAGES
      ? [current]
      : pageJumps(page, last).map((p, i) =>
          p === null ? (
            <li className="page-item disabled" key={`gap-${i}`} aria-hidden>
              <span className="page-link">…</span>
            </li>
          ) : p === page ? (
            current
          ) : (
            <li className="page-item" key={p}>
              <button type="button" className="page-link" aria-label={`Page ${p}`} onClick={() => onPageChange(p)}>
                {p}
              </button>
            </li>
          ),
        );
  return (
    <nav aria-label={label} className={`d-flex flex-wrap align-items-center gap-2 ${className}`}>
      <ul className="pagination pagination-sm flex-wrap mb-0">
        <li className={`page-item${onFirst ? ' disabled' : ''}`}>
          <button type="button" className="page-link" disabled={onFirst} onClick={() => onPageChange(page - 1)}>
            Prev
          </button>
        </li>
        {numbers}
        <li className={`page-item${onLast ? ' disabled' : ''}`}>
          <button type="button" className="page-link" disabled={onLast} onClick={() => onPageChange(page + 1)}>
            Next
          </button>
        </li>
      </ul>
      <span className="text-muted small" data-testid="page-status" aria-live="polite">
        Page {page} of {last}
      </span>
    </nav>
  );
}
