import { z } from 'zod';
import { labelTypeRef, numberField } from './catalog.ts';
import { TEMPLATE_VALUES } from './catalog-values.ts';
import { TEMPLATE_INVALID } from './orders-values.ts';

/**
 * The CSV file of a bulk order: one header row, then one package a row. Header names match
 * case-insensitively and in any order; they are the single order's field names, so every row is
 * checked by the same rules as a single order. ShipDate, Reference and Reference2 are the single order's too: the
 * reference lines are printed on the label (and copied to the report, as every cell). Service, when given, is the row's
 * own label type (a uid), or `cheapest` / `fastest` among the types that can take its package (weight in pounds).
 */
export const CSV_COLUMNS = [
  'FromName',
  'FromCompany',
  'FromStreet',
  'FromStreet2',
  'FromCity',
  'FromState',
  'FromZip',
  'FromPhone',
  'ToName',
  'ToCompany',
  'ToStreet',
  'ToStreet2',
  'ToCity',
  'ToState',
  'ToZip',
  'ToPhone',
  'Weight',
  'Length',
  'Width',
  'Height',
  'Reference',
  'Reference2',
  'ShipDate',
  'Service',
  // Added after the others (a file made for the earlier columns keeps its positions).
  'ToEmail',
  'Insurance',
  'Return',
] as const;
export const CSV_REQUIRED_COLUMNS = [
  'FromName',
  'FromStreet',
  'FromCity',
  'FromState',
  'FromZip',
  'ToName',
  'ToStreet',
  'ToCity',
  'ToState',
  'ToZip',
  'Weight',
] as const;

export const BULK_MAX_ROWS = 5000;
export const BULK_MAX_BYTES = 5 * 1024 * 1024;
/** Cells of one row of the file: the documented columns, with room for a spreadsheet's empty ones. */
export const CSV_MAX_COLUMNS = 100;
/** Characters of one cell: ten times the longest field (a name, a company: 100). */
export const CSV_MAX_CELL_CHARS = 1000;
/** Blank lines (empty, or only separators and spaces) of one file: counted as read, never kept; past them the file is refused. */
export const CSV_MAX_BLANK_LINES = 10_000;
/** From this many labels a bulk order runs as a queued job (spec: USPS v9 rule, applied to every type). */
export const BULK_QUEUE_THRESHOLD = 4;
/** The file behind 'Download Sample CSV', served by the web app. */
export const SAMPLE_CSV_PATH = '/sample-orders.csv';

export const PLEASE_SELECT_LABEL_TYPE = 'Please select LabelType';
export const PLEASE_SELECT_CSV_FILE = 'Please select CSV file';
export const CSV_FILE_EMPTY = 'The file is empty';
export const REQUEST_ALREADY_SENT = 'Request already sent';
export const CSV_VALIDATED = 'CSV validated successfully';
export const ORDERS_CREATED = 'Orders created successfully';
export const PRICES_CHANGED = 'Prices changed, validate the file again';
export const BULK_NOT_READY = 'The files of this bulk order are not ready yet';
export const BULK_ORDER_NOT_FOUND = 'Bulk order not found';

/**
 * One problem in the file; row 1 is the first row after the header, column the header name (or null
 * for the whole row), value the cell as written ('' when empty; left out for the whole row).
 */
export const csvRowError = z.object({ row: z.number(), column: z.string().nullable(), message: z.string(), value: z.string().optional() });
export type CsvRowError = z.infer<typeof csvRowError>;
/** A 400 lists at most this many problems, in file order; moreErrors counts the rest. */
export const CSV_MAX_LISTED_ERRORS = 500;
/**
 * 400 answer of validatecsv and createOrderFromCSV when rows are bad: every bad cell of every bad row
 * (the first CSV_MAX_LISTED_ERRORS of them), and how many more problems the file has.
 */
export const csvErrorResponse = z.object({ message: z.string(), errors: z.array(csvRowError), moreErrors: z.number().optional() });

/** POST /order/validatecsv (multipart: csv, labeltype). Dollars. */
/** The text columns a label prints (names and address lines), which may print otherwise than typed (printed-as.ts). */
export const CSV_PRINTED_COLUMNS = [
  'FromName',
  'FromCompany',
  'FromStreet',
  'FromStreet2',
  'FromCity',
  'ToName',
  'ToCompany',
  'ToStreet',
  'ToStreet2',
  'ToCity',
] as const;
/** Each row with a column that prints otherwise than typed, with what it prints; left out when every row prints as typed. */
export const printNotesSchema = z.array(z.object({ row: z.number(), printedAs: z.record(z.string(), z.string()) }));
/** Rows whose address the carrier could not verify (EASYPOST_VERIFY_ADDRESSES=true): side From or To, and the carrier's words. */
export const unverifiedRowsSchema = z.array(z.object({ row: z.number(), side: z.enum(['From', 'To']), message: z.string() }));
export const validateCsvResponse = z.object({
  message: z.string(),
  totalPrice: z.number(),
  totalOrders: z.number(),
  printNotes: printNotesSchema.optional(),
  unverified: unverifiedRowsSchema.optional(),
});
export type ValidateCsvResponse = z.infer<typeof validateCsvResponse>;

/** 'failed': the job gave up after its last try; rows without a label were refunded, rows made keep their labels. */
export const BULK_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
/** Completed and failed bulk orders are done: their files (of the labels made) can be downloaded. */
export const isBulkFinished = (status: string): boolean => status === 'completed' || status === 'failed';

/** GET /order/read-bulk-orders: newest first. `orders` lists the ids of the labels made so far. */
export const bulkOrderSchema = z.object({
  _id: z.string(),
  createdAt: z.string(),
  labelType: z.object({ name: z.string(), uid: z.string() }),
  design: z.string().nullable(),
  orders: z.array(z.string()),
  totalOrders: z.number(),
  failedOrders: z.number(),
  status: z.string(),
  /** Job progress 0-100 while processing. */
  progress: z.number(),
  /** Dollars charged for the rows that were made (failed rows are refunded). */
  total: z.number(),
  zip: z.string().nullable(),
  pdf: z.string().nullable(),
  csv: z.string().nullable(),
});
export type BulkOrder = z.infer<typeof bulkOrderSchema>;
export const bulkOrdersResponse = z.object({ orders: z.array(bulkOrderSchema) });

/** read-bulk-orders lists at most this many bulk orders, newest first. */
export const BULK_LIST_LIMIT = 100;

/** Multipart fields of POST /order/validatecsv besides the `csv` file: the label type's _id (its uid is accepted too). */
export const validateCsvFields = z.object({ labeltype: labelTypeRef });

/** Multipart fields of POST /order/createOrderFromCSV besides the `csv` file. total_price is the validated total in dollars. */
export const createOrderFromCsvFields = z.object({
  type: labelTypeRef,
  total_price: numberField('total_price', 'total_price is required: validate the file first', 'total_price must be a number'),
  /** Template, required for priority: pitney, normal or evs; ignored for other types. */
  design: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.enum(TEMPLATE_VALUES, { error: TEMPLATE_INVALID }).optional()),
});

export const CSV_FILE_TOO_LARGE = `The CSV file is larger than ${BULK_MAX_BYTES / 1024 / 1024} MB; split it into smaller files`;
/** The reader stops at the first row past the limit, so the message says 'more than'. */
export const CSV_TOO_MANY_ROWS = (max: number) =>
  `The CSV file has more than ${max.toLocaleString('en-US')} rows; at most ${max.toLocaleString('en-US')} rows are allowed in one file`;
export const CSV_TOO_MANY_BLANK_LINES = (max: number) =>
  `The CSV file has more than ${max.toLocaleString('en-US')} blank lines; remove the empty lines and upload it again`;
/** Of one row; the reader names the row. */
export const CSV_TOO_MANY_COLUMNS = (max: number) => `The row has more than ${max.toLocaleString('en-US')} cells; at most ${max} columns are allowed`;
export const CSV_CELL_TOO_LONG = (max: number) => `A cell of the row is longer than ${max.toLocaleString('en-US')} characters`;
export const CSV_NOT_CSV = 'The file is not a CSV file: save it as CSV (UTF-8, comma or semicolon separated) and upload it again';
export const CSV_NO_ROWS = 'The CSV file has no order rows below its header';
export const CSV_HAS_ERRORS = (badRows: number) => `${badRows} ${badRows === 1 ? 'row has' : 'rows have'} errors: fix the file and validate it again`;
export const CSV_HEADER_ERRORS = 'The CSV header row is not right: fix it and validate again';
/** bulk-download-pdf of a completed bulk order in which every row failed (404). */
export const BULK_NO_LABELS = 'No label was made in this bulk order, so it has no PDF';

/** Download paths of a completed bulk order's files (what zip, csv and pdf of bulkOrderSchema hold). */
export const bulkDownloadPaths = (id: string) => ({
  zip: `/api/v1/order/bulk-download/${id}`,
  csv: `/api/v1/order/bulk-download-csv/${id}`,
  pdf: `/api/v1/order/bulk-download-pdf/${id}`,
});

/** Extra columns the CSV report adds to every input row. */
export const CSV_REPORT_COLUMNS = ['Tracking', 'Price', 'Status', 'Message'] as const;

/** A row's Service: a label type uid (or _id), or a strategy; empty: the file's label type. */
export const bulkService = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
  z.string().trim().max(64, 'Service must be a label type uid, cheapest or fastest').optional(),
);
