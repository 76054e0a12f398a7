import { useEffect } from 'react';
import { Pagination } from '../../components/pagination.tsx';

/** Prev / page / Next of the shared pagination, with 'Page n of N' beside it. */
export function ListPager({ page, totalPages, onPageChange, label }: { page: number; totalPages: number; onPageChange: (page: number) => void; label: string }) {
  const last = Math.max(1, totalPages);
  // A shorter list (a narrower filter, a row gone) may leave the page past the end.
  useEffect(() => {
    if (page > last) onPageChange(last);
  }, [page, last, onPageChange]);
  return (
    <div className="d-flex align-items-center gap-3">
      <Pagination page={page} totalPages={last} onPageChange={onPageChange} label={label} />
      <span className="text-muted small" data-testid="page-status" aria-live="polite">
        Page {page} of {last}
      </span>
    </div>
  );
}
