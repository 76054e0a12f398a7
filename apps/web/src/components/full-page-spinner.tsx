import { APP_NAME } from './route-pages.tsx';

/**
 * The whole page waits (the access check, a screen's chunk); plain Bootstrap markup, so the first paint needs no
 * component library. index.html holds the same markup, so the page shows it before any script has come.
 */
export function FullPageSpinner() {
  return (
    <div className="d-flex flex-column vh-100 align-items-center justify-content-center gap-3" data-testid="full-page-spinner">
      <span className="fs-5 fw-semibold">{APP_NAME}</span>
      <div className="spinner-border text-primary" role="status">
        <span className="visually-hidden">Loading...</span>
      </div>
    </div>
  );
}
