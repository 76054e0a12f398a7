import { Alert, Table } from 'react-bootstrap';
import type { CsvRowError } from '@portal/contract';

/**
 * Every bad cell the server named (row, column, problem and the value as written), so the user can
 * fix the file and validate it again; `more` counts the problems past the server's list of 500.
 */
export function CsvRowErrors({ errors, more = 0 }: { errors: CsvRowError[]; more?: number }) {
  const rows = new Set(errors.map((e) => e.row)).size;
  const total = errors.length + more;
  return (
    <Alert variant="danger" className="mt-3 mb-0" data-testid="csv-errors">
      <Alert.Heading as="h6">Fix the file and validate it again</Alert.Heading>
      <p className="small mb-2">
        {total} {total === 1 ? 'problem' : 'problems'}
        {more === 0 && ` in ${rows} ${rows === 1 ? 'row' : 'rows'}`}. Row 1 is the first row after the header.
      </p>
      <div style={{ maxHeight: 320, overflowY: 'auto' }}>
        <Table size="sm" bordered className="mb-0 small bg-white" data-testid="csv-errors-table">
          <thead>
            <tr>
              <th style={{ width: '5rem' }}>Row</th>
              <th style={{ width: '10rem' }}>Column</th>
              <th>Problem</th>
              <th style={{ width: '25%' }}>Value</th>
            </tr>
          </thead>
          <tbody>
            {errors.map((error, index) => (
              <tr key={`${error.row}-${error.column}-${index}`} data-testid="csv-error">
                <td>{error.row > 0 ? error.row : 'Header'}</td>
                <td className="font-monospace">{error.column ?? 'Whole row'}</td>
                <td>{error.message}</td>
                <td className="font-monospace text-break">
                  {error.value === undefined ? '' : error.value === '' ? <span className="text-muted fst-italic">empty</span> : error.value}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      </div>
      {more > 0 && (
        <p className="small mt-2 mb-0" data-testid="csv-errors-more">
          The first {errors.length} problems are listed; {more} more are not. Fix these and validate again to see the rest.
        </p>
      )}
    </Alert>
  );
}
