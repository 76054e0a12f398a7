import { useEffect } from 'react';
import { Link, Outlet, isRouteErrorResponse, useMatches, useRouteError } from 'react-router-dom';

export const APP_NAME = 'Label Portal';

/** What a route's `handle` may carry: the screen's name for the document title. */
export type RouteHandle = { title?: string };

/** Names the document after the deepest route that has a title: 'Dashboard · Label Portal'. */
export function DocumentTitle() {
  const matches = useMatches();
  const title = matches
    .map((match) => (match.handle as RouteHandle | undefined)?.title)
    .filter(Boolean)
    .at(-1);
  useEffect(() => {
    document.title = title ? `${title} · ${APP_NAME}` : APP_NAME;
  }, [title]);
  return null;
}

/** The logged-out screens have no layout; this names their document. */
export function TitledOutlet() {
  return (
    <>
      <DocumentTitle />
      <Outlet />
    </>
  );
}

const errorText = (error: unknown): string => {
  if (isRouteErrorResponse(error)) return `${error.status} ${error.statusText}`.trim();
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'Unknown error';
};

/** The spec's router error page: 'Unexpected Application Error!' and the error text; no stack trace or developer hints. */
export function RouteErrorPage() {
  const error = useRouteError();
  useEffect(() => {
    console.error(error);
    document.title = `Error · ${APP_NAME}`;
  }, [error]);
  return (
    <div className="container py-5" data-testid="route-error">
      <h2>Unexpected Application Error!</h2>
      <h3 className="h5 fst-italic text-danger">{errorText(error)}</h3>
      <a href="/">Back to the start</a>
    </div>
  );
}

/** A path the app does not have (a mistyped or broken link). */
export function NotFoundPage() {
  return (
    <div className="py-5 text-center" data-testid="not-found">
      <h1 className="display-6">Page not found</h1>
      <p className="text-muted">There is no page at this address.</p>
      <Link to="/" className="btn btn-primary">
        Go to the Dashboard
      </Link>
    </div>
  );
}
