import { Alert, Table } from 'react-bootstrap';
import type { CsvRowError } from '@portal/contract';

/** More problems than this are counted, not listed: the first ones are enough to start fixing the file. */
const MAX_LISTED = 200;

/** Every bad row the server named (row, column, message), so the user can fix the file and validate it again. */
export function CsvRowErrors({ errors }: { errors: CsvRowError[] }) {
  const listed = errors.slice(0, MAX_LISTED);
  const rows = new Set(errors.map((e) => e.row)).size;
  return (
    <Alert variant="danger" className="mt-3 mb-0" data-testid="csv-errors">
      <Alert.Heading as="h6">Fix the file and validate it again</Alert.Heading>
      <p className="small mb-2">
        {errors.length} {errors.length === 1 ? 'problem' : 'problems'} in {rows} {rows === 1 ? 'row' : 'rows'}. Row 1 is the first row after the header.
      </p>
      <div style={{ maxHeight: 320, overflowY: 'auto' }}>
        <Table size="sm" bordered className="mb-0 small bg-white" data-testid="csv-errors-table">
          <thead>
            <tr>
              <th style={{ width: '5rem' }}>Row</th>
              <th style={{ width: '10rem' }}>Column</th>
              <th>Problem</th>
            </tr>
          </thead>
          <tbody>
            {listed.map((error, index) => (
              <tr key={`${error.row}-${error.column}-${index}`} data-testid="csv-error">
                <td>{error.row > 0 ? error.row : 'Header'}</td>
                <td className="font-monospace">{error.column ?? 'Whole row'}</td>
                <td>{error.message}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      </div>
      {errors.length > listed.length && <p className="small mt-2 mb-0">… and {errors.length - listed.length} more not listed.</p>}
    </Alert>
  );
}
