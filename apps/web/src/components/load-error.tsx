import { useEffect } from 'react';
import { Alert, Button } from 'react-bootstrap';

type Loaded = { error: unknown; isFetching: boolean; refetch: () => Promise<unknown> };

/**
 * What a card could not load, in its place: a short notice with Retry (the error itself goes to
 * the console, not to the screen). Nothing while the load is fine.
 */
export function LoadError({ query, what }: { query: Loaded; what: string }) {
  const { error } = query;
  useEffect(() => {
    if (error) console.error(`Failed to load ${what}`, error);
  }, [error, what]);
  if (!error) return null;
  return (
    <Alert variant="danger" className="d-flex flex-wrap align-items-center gap-2 py-2" data-testid="load-error">
      <span className="me-auto">Could not load {what}.</span>
      <Button size="sm" variant="outline-danger" disabled={query.isFetching} onClick={() => void query.refetch()}>
        Retry
      </Button>
    </Alert>
  );
}
