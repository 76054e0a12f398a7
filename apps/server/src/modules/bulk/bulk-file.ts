import {
  BULK_MAX_BYTES,
  CSV_COLUMNS,
  CSV_FILE_TOO_LARGE,
  CSV_HAS_ERRORS,
  CSV_HEADER_ERRORS,
  CSV_MAX_LISTED_ERRORS,
  CSV_NOT_CSV,
  CSV_NO_ROWS,
  CSV_REQUIRED_COLUMNS,
  STRATEGIES,
  bulkService,
  orderIssues,
  templateRequired,
  type CreateOrderInput,
  type CsvRowError,
  type Strategy,
} from '@portal/contract';
import { HttpError } from '../../lib/http-errors.ts';
import { priceFor, type CatalogType } from '../catalog/service.ts';
import { CsvLimitError, CsvSyntaxError, decodeCsvText, parseCsv, type CsvTable } from '../../lib/csv.ts';

type Column = (typeof CSV_COLUMNS)[number];

/** A 400 naming every bad cell: { message, errors: [{ row, column, message, value }], moreErrors } (the first 500 listed). */
export class CsvFileError extends HttpError {
  constructor(message: string, errors: CsvRowError[] = []) {
    const listed = errors.slice(0, CSV_MAX_LISTED_ERRORS);
    super(400, message, { details: { errors: listed, ...(errors.length > listed.length ? { moreErrors: errors.length - listed.length } : {}) } });
  }
}

/**
 * One valid row: where it is in the file, its cells as written, the order it makes and that order's price; `type` when
 * its Service names another type than the file's; `strategy` for a row whose type is chosen by a quote (the caller's
 * resolveStrategies), with the quote it was chosen by once resolved.
 */
export type BulkFileRow = {
  row: number;
  cells: string[];
  input: CreateOrderInput;
  priceCents: number;
  /** What its insurance costs (its Insurance column), on top of priceCents; set once priced (bulk service's withInsurance). */
  insuranceCents?: number;
  type?: CatalogType;
  strategy?: Strategy;
  quote?: { quoteId: string; quoted: { upstream: string; shipmentRef: string; rateId: string } | null };
};
export type BulkFile = { header: string[]; rows: BulkFileRow[]; totalCents: number };

// 'From Name', 'from_name' and 'FROMNAME' all name FromName.
const normalize = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, '');
const COLUMN_BY_KEY = new Map<string, Column>(CSV_COLUMNS.map((c) => [normalize(c), c]));

/**
 * Text and records of an upload, or a 400: larger than 5 MB, not text, a quote never closed, or past a limit of the
 * reader (rows, cells, characters, blank lines). A header that cannot be read as CSV (a JSON file's) is 'not a CSV file'.
 */
export async function readCsvTable(bytes: Uint8Array): Promise<CsvTable> {
  if (bytes.length > BULK_MAX_BYTES) throw new CsvFileError(CSV_FILE_TOO_LARGE);
  const text = decodeCsvText(bytes);
  if (text === null) throw new CsvFileError(CSV_NOT_CSV);
  try {
    return await parseCsv(text);
  } catch (error) {
    const row = error instanceof CsvSyntaxError || error instanceof CsvLimitError ? error.row : undefined;
    // A header that is not CSV (a JSON file's quotes) is no bulk order file.
    if (error instanceof CsvSyntaxError && row === 0) throw new CsvFileError(CSV_NOT_CSV);
    if (error instanceof CsvLimitError && row === undefined) throw new CsvFileError(error.message);
    if (row !== undefined) throw new CsvFileError(`Row ${row}: ${(error as Error).message}`, [{ row, column: null, message: (error as Error).message }]);
    throw error;
  }
}

/** Which column each header cell names; a 400 (row 0) for a header that is not the documented one. */
export function mapHeader(header: string[]): (Column | null)[] {
  const columns = header.map((name) => (name === '' ? null : (COLUMN_BY_KEY.get(normalize(name)) ?? null)));
  if (!columns.some((c) => c !== null)) {
    throw new CsvFileError(CSV_NOT_CSV, [{ row: 0, column: null, message: `The first row must be the header naming the columns: ${CSV_COLUMNS.join(', ')}` }]);
  }
  const errors: CsvRowError[] = [];
  header.forEach((name, i) => {
    if (name !== '' && columns[i] === null)
      errors.push({ row: 0, column: name, message: `Unknown column "${name}"; the columns are ${CSV_COLUMNS.join(', ')}` });
    else if (columns[i] !== null && columns.indexOf(columns[i]) !== i) errors.push({ row: 0, column: name, message: `Column ${columns[i]} appears twice` });
  });
  for (const required of CSV_REQUIRED_COLUMNS)
    if (!columns.includes(required)) errors.push({ row: 0, column: required, message: `Column ${required} is missing` });
  if (errors.length > 0) throw new CsvFileError(errors.length === 1 ? `CSV header: ${errors[0].message}` : CSV_HEADER_ERRORS, errors);
  return columns;
}

/** One row of a bulk order before its check: its number, the fields it gives, its cells as written, and problems found reading it. */
export type BulkRowFields = { row: number; fields: Record<string, unknown>; cells: string[]; errors?: CsvRowError[] };

/** A cell as the row gave it, for the error list: '' when empty or left out. */
const cellText = (value: unknown) => (value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));

/**
 * Checks the rows of a bulk order of one label type, from a CSV file or the reseller API: every row
 * by the single order's rules (orderIssues: each field, then the type's rules) and priced by the
 * catalog. Throws a CsvFileError naming every bad cell of every row, with its value. `design` is the
 * template chosen for the whole order; checking before it is chosen (validatecsv) checks everything else.
 */
export function checkBulkRows(
  records: Iterable<BulkRowFields>,
  fileType: CatalogType,
  design?: CreateOrderInput['design'],
  /** The orderable type a row's Service names (uid or _id), or undefined; none: a Service column is refused. */
  typeNamed?: (ref: string) => CatalogType | undefined,
): { rows: BulkFileRow[]; totalCents: number } {
  const errors: CsvRowError[] = [];
  let badRows = 0;
  const rows: BulkFileRow[] = [];
  let totalCents = 0;
  for (const { row, fields, cells, errors: found = [] } of records) {
    const before = errors.length;
    errors.push(...found);
    const service = bulkService.safeParse(fields.Service);
    const named = service.success ? service.data : undefined;
    const strategy = STRATEGIES.find((s) => s === named?.toLowerCase());
    const rowType = named && !strategy ? typeNamed?.(named) : fileType;
    if (!service.success || (named && !strategy && !rowType))
      errors.push({
        row,
        column: 'Service',
        message: 'Service must be the uid of a label type you can order, cheapest or fastest',
        value: cellText(fields.Service),
      });
    const type = rowType ?? fileType;
    // The template is one choice for the whole file, checked by the caller; rows are checked as if it were made (a
    // row of Priority in a file of another type takes the plain one).
    const rowDesign = design ?? (templateRequired(type.uid) ? 'normal' : undefined);
    // A strategy's row is checked field by field here, and by its chosen type's rules once chosen (resolveStrategies).
    const checked = orderIssues({ ...fields, labelType: type.id, design: rowDesign }, strategy ? undefined : type.uid);
    const weight = checked.ok ? checked.order.Weight : fields.Weight === undefined ? undefined : Number(fields.Weight);
    const price = !strategy && weight !== undefined && weight > 0 ? priceFor(type, weight) : null;
    if (!checked.ok) {
      for (const issue of checked.issues) {
        errors.push({ row, column: issue.field, message: issue.message, ...(issue.field ? { value: cellText(fields[issue.field]) } : {}) });
      }
    }
    // A weight that is a number but outside every tier is named too, beside the row's other problems.
    if (price && !price.ok && !errors.slice(before).some((e) => e.column === 'Weight'))
      errors.push({ row, column: 'Weight', message: price.message, value: cellText(fields.Weight) });
    if (errors.length === before && checked.ok && strategy) rows.push({ row, cells, input: checked.order, priceCents: 0, strategy });
    else if (errors.length === before && checked.ok && price?.ok) {
      const own = type !== fileType;
      rows.push({ row, cells, input: { ...checked.order, design: own ? rowDesign : design }, priceCents: price.priceCents, ...(own && { type }) });
      totalCents += price.priceCents;
    }
    if (errors.length > before) badRows++;
  }
  if (errors.length > 0) throw new CsvFileError(CSV_HAS_ERRORS(badRows), errors);
  return { rows, totalCents };
}

/** Reads a bulk order file for one label type: its header, then every row checked by checkBulkRows. */
export async function readBulkFile(
  bytes: Uint8Array,
  type: CatalogType,
  design?: CreateOrderInput['design'],
  typeNamed?: (ref: string) => CatalogType | undefined,
): Promise<BulkFile> {
  const table = await readCsvTable(bytes);
  const columns = mapHeader(table.header);
  if (table.records.length === 0) throw new CsvFileError(CSV_NO_ROWS);
  const records = table.records.map(({ row, cells }): BulkRowFields => {
    const fields: Record<string, unknown> = {};
    const errors: CsvRowError[] = [];
    for (let i = 0; i < cells.length; i++) {
      const column = columns[i];
      // An empty cell is a field not given, as an optional field of a single order may be left out.
      if (column) {
        if (cells[i].trim() !== '') fields[column] = cells[i];
      } else if (i >= columns.length && cells[i].trim() !== '') {
        errors.push({ row, column: null, message: `This row has ${cells.length} cells but the header names ${columns.length} columns` });
        break;
      }
    }
    return { row, fields, cells, errors };
  });
  return { header: table.header, ...checkBulkRows(records, type, design, typeNamed) };
}
