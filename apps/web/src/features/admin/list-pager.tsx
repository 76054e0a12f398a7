import { useEffect } from 'react';
import { Pagination } from '../../components/pagination.tsx';

/** The shared pagination (Prev / page / Next, 'Page n of N'), kept within the list's pages. */
export function ListPager({ page, totalPages, onPageChange, label }: { page: number; totalPages: number; onPageChange: (page: number) => void; label: string }) {
  const last = Math.max(1, totalPages);
  // A shorter list (a narrower filter, a row gone) may leave the page past the end.
  useEffect(() => {
    if (page > last) onPageChange(last);
  }, [page, last, onPageChange]);
  return <Pagination page={page} totalPages={last} onPageChange={onPageChange} label={label} />;
}
