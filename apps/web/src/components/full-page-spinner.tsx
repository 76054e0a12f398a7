/** The whole page waits (the access check, a screen's chunk); plain Bootstrap markup, so the first paint needs no component library. */
export function FullPageSpinner() {
  return (
    <div className="d-flex vh-100 align-items-center justify-content-center" data-testid="full-page-spinner">
      <div className="spinner-border text-primary" role="status">
        <span className="visually-hidden">Loading...</span>
      </div>
    </div>
  );
}
