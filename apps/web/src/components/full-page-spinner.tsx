import { Spinner } from 'react-bootstrap';

export function FullPageSpinner() {
  return (
    <div className="d-flex vh-100 align-items-center justify-content-center" data-testid="full-page-spinner">
      <Spinner animation="border" role="status" variant="primary">
        <span className="visually-hidden">Loading...</span>
      </Spinner>
    </div>
  );
}
