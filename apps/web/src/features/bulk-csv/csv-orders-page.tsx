import { Card, Col, Row } from 'react-bootstrap';
import { BULK_MAX_ROWS, CSV_COLUMNS, CSV_REQUIRED_COLUMNS, SAMPLE_CSV_PATH } from '@portal/contract';
import { BulkOrdersCard } from './bulk-orders-card.tsx';
import { CsvUploadCard } from './csv-upload-card.tsx';

const REQUIRED: ReadonlySet<string> = new Set(CSV_REQUIRED_COLUMNS);

/** The header row the file must start with; required columns in bold. */
function CsvFormatCard() {
  return (
    <Card className="h-100">
      <Card.Header as="h6">CSV Format</Card.Header>
      <Card.Body className="small">
        <p className="mb-2">
          One header row, then one package a row, at most {BULK_MAX_ROWS.toLocaleString('en-US')} rows. Columns in any order; <strong>bold</strong> ones are
          required:
        </p>
        <p className="font-monospace mb-3" data-testid="csv-columns">
          {CSV_COLUMNS.map((column, index) => (
            <span key={column}>
              {REQUIRED.has(column) ? <strong>{column}</strong> : column}
              {index < CSV_COLUMNS.length - 1 ? ', ' : ''}
            </span>
          ))}
        </p>
        <a href={SAMPLE_CSV_PATH} download className="btn btn-outline-secondary btn-sm">
          Download Sample CSV
        </a>
      </Card.Body>
    </Card>
  );
}

/** /csv-orders: validate a CSV file, pay its total, and follow the bulk orders it makes. */
export function CsvOrdersPage() {
  return (
    <>
      <h1 className="h4 mb-4">CSV Order</h1>
      <Row className="g-3 mb-4">
        <Col lg={7}>
          <CsvUploadCard />
        </Col>
        <Col lg={5}>
          <CsvFormatCard />
        </Col>
      </Row>
      <BulkOrdersCard />
    </>
  );
}
