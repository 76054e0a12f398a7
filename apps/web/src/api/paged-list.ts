import { useCallback, useEffect, useState } from 'react';
import { keepPreviousData, useQuery, type QueryKey, type UseQueryOptions } from '@tanstack/react-query';

/**
 * The page of a list whose filter can change: back to page 1 whenever the filter does, without
 * remounting the list (a modal opened from it stays open when a late search lands).
 */
function usePageOf(filter: unknown): [number, (page: number) => void] {
  const key = JSON.stringify(filter ?? null);
  const [state, setState] = useState({ key, page: 1 });
  const page = state.key === key ? state.page : 1;
  return [page, useCallback((next: number) => setState({ key, page: next }), [key])];
}

export type PagedListOptions<Data extends { totalPages: number }, Key extends QueryKey> = {
  /** One page of the list, from 1: the list's query factory with its filter. Its key names the page, so a write invalidates every page at once by the list's root. */
  query: (page: number) => UseQueryOptions<Data, Error, Data, Key>;
  /** Read again every so often while the answer says something is still moving (ms), or not (false). */
  poll?: (data: Data) => number | false;
  /** A page kept outside the list (in the address, so Back returns to it) instead of in the hook. */
  page?: number;
  onPageChange?: (page: number) => void;
};

/**
 * A list card's pages: read again on every visit, the last page kept on screen while the next one
 * loads, and never past the last page (a narrower filter, a row gone). A new filter (the key of
 * page 1 changes) starts again at page 1. `query` is the page's query (for its rows, its spinner
 * and its <LoadError>), `pager` the <Pagination> props.
 */
export function usePagedList<Data extends { totalPages: number }, Key extends QueryKey>({
  query: pageQuery,
  poll,
  page: kept,
  onPageChange,
}: PagedListOptions<Data, Key>) {
  const [ownPage, setOwnPage] = usePageOf(pageQuery(1).queryKey);
  const page = kept ?? ownPage;
  const setPage = onPageChange ?? setOwnPage;
  const query = useQuery({
    ...pageQuery(page),
    placeholderData: keepPreviousData,
    refetchOnMount: 'always',
    refetchInterval: poll ? (q) => (q.state.data ? poll(q.state.data) : false) : undefined,
  });
  const totalPages = Math.max(1, query.data?.totalPages ?? 1);
  const known = query.isSuccess && !query.isPlaceholderData;
  useEffect(() => {
    if (known && page > totalPages) setPage(totalPages);
  }, [known, page, totalPages, setPage]);
  return { query, page, pager: { page, totalPages, onPageChange: setPage } };
}
