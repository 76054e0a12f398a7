import { z } from 'zod';

/**
 * The CSV file of a bulk order: one header row, then one package a row. Header names match
 * case-insensitively and in any order; they are the single order's field names, so every row is
 * checked by the same rules as a single order. Reference is free text copied to the report.
 */
export const CSV_COLUMNS = [
  'FromName', 'FromCompany', 'FromStreet', 'FromStreet2', 'FromCity', 'FromState', 'FromZip', 'FromPhone',
  'ToName', 'ToCompany', 'ToStreet', 'ToStreet2', 'ToCity', 'ToState', 'ToZip', 'ToPhone',
  'Weight', 'Length', 'Width', 'Height', 'Reference',
] as const;
export const CSV_REQUIRED_COLUMNS = ['FromName', 'FromStreet', 'FromCity', 'FromState', 'FromZip', 'ToName', 'ToStreet', 'ToCity', 'ToState', 'ToZip', 'Weight'] as const;

export const BULK_MAX_ROWS = 5000;
export const BULK_MAX_BYTES = 5 * 1024 * 1024;
/** From this many labels a bulk order runs as a queued job (spec: USPS v9 rule, applied to every type). */
export const BULK_QUEUE_THRESHOLD = 4;
/** The file behind 'Download Sample CSV', served by the web app. */
export const SAMPLE_CSV_PATH = '/sample-orders.csv';

export const PLEASE_SELECT_LABEL_TYPE = 'Please select LabelType';
export const PLEASE_SELECT_CSV_FILE = 'Please select CSV file';
export const REQUEST_ALREADY_SENT = 'Request already sent';
export const CSV_VALIDATED = 'CSV validated successfully';
export const ORDERS_CREATED = 'Orders created successfully';
export const PRICES_CHANGED = 'Prices changed, validate the file again';
export const BULK_NOT_READY = 'The files of this bulk order are not ready yet';
export const BULK_ORDER_NOT_FOUND = 'Bulk order not found';

/** One problem in the file; row 1 is the first row after the header, column the header name (or null for the whole row). */
export const csvRowError = z.object({ row: z.number(), column: z.string().nullable(), message: z.string() });
export type CsvRowError = z.infer<typeof csvRowError>;
/** 400 answer of validatecsv and createOrderFromCSV when rows are bad: every bad row is named. */
export const csvErrorResponse = z.object({ message: z.string(), errors: z.array(csvRowError) });

/** POST /order/validatecsv (multipart: csv, labeltype). Dollars. */
export const validateCsvResponse = z.object({ message: z.string(), totalPrice: z.number(), totalOrders: z.number() });

export const BULK_STATUSES = ['pending', 'processing', 'completed'] as const;

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
