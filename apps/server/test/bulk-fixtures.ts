import { vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { CSV_COLUMNS, isBulkFinished, type BulkOrder } from '@portal/contract';
import { PDFDocument } from 'pdf-lib';
import { unzipSync } from 'fflate';
import { decodeCsvText, parseCsv } from '../src/lib/csv.ts';
import { WAIT } from './basics.ts';
import { orderParties } from './sample-addresses.ts';

type Column = (typeof CSV_COLUMNS)[number];
export type CsvRow = Partial<Record<Column, string>>;

/** A valid row for the USPS and FedEx types (US addresses, 2 lb). */
export const usRow = (i: number, overrides: CsvRow = {}): CsvRow => ({
  ...orderParties(),
  FromName: `Sender ${i}`,
  FromCompany: 'Shop Co',
  FromStreet2: '',
  FromPhone: '',
  ToName: `Receiver ${i}`,
  ToCompany: '',
  ToStreet: `${100 + i} Oak Avenue`,
  ToStreet2: i % 2 ? 'Apt 2' : '',
  ToPhone: '',
  Weight: '2',
  Length: '',
  Width: '',
  Height: '',
  Reference: `REF-${i}`,
  ...overrides,
});

const quote = (cell: string, separator: string) => (cell.includes(separator) || /["\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell);

/** A CSV file of these rows with every column (or `columns`). */
export function csvText(rows: CsvRow[], options: { separator?: ',' | ';'; bom?: boolean; eol?: string; columns?: readonly string[] } = {}): string {
  const { separator = ',', bom = false, eol = '\r\n', columns = CSV_COLUMNS } = options;
  const lines = [columns.join(separator), ...rows.map((row) => columns.map((c) => quote(row[c as Column] ?? '', separator)).join(separator))];
  return (bom ? '\ufeff' : '') + lines.join(eol) + eol;
}

export const usRows = (count: number, from = 1) => Array.from({ length: count }, (_, i) => usRow(from + i));

/** POSTs a multipart form the way a browser's FormData does; the file goes last. */
export async function postForm(
  app: FastifyInstance,
  url: string,
  headers: Record<string, string>,
  fields: Record<string, string>,
  file?: { data: string | Uint8Array; name?: string; type?: string },
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append('csv', new Blob([file.data as BlobPart], { type: file.type ?? 'text/csv' }), file.name ?? 'orders.csv');
  const request = new Request('http://test.local/', { method: 'POST', body: form });
  const payload = Buffer.from(await request.arrayBuffer());
  return app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': request.headers.get('content-type')! }, payload });
}

export const validateCsv = (app: FastifyInstance, headers: Record<string, string>, labeltype: string, data?: string | Uint8Array) =>
  postForm(app, '/api/v1/order/validatecsv', headers, { labeltype }, data === undefined ? undefined : { data });

export const createFromCsv = (
  app: FastifyInstance,
  headers: Record<string, string>,
  fields: { type: string; total_price: string | number; design?: string },
  data?: string | Uint8Array,
) =>
  postForm(
    app,
    '/api/v1/order/createOrderFromCSV',
    headers,
    { type: fields.type, total_price: String(fields.total_price), design: fields.design ?? '' },
    data === undefined ? undefined : { data },
  );

export async function readBulkOrders(app: FastifyInstance, headers: Record<string, string>): Promise<BulkOrder[]> {
  const res = await app.inject({ method: 'GET', url: '/api/v1/order/read-bulk-orders', headers });
  if (res.statusCode !== 200) throw new Error(`read-bulk-orders ${res.statusCode}: ${res.body}`);
  return res.json().orders;
}

/** Polls read-bulk-orders until the newest bulk order is finished; answers it and every progress value seen. */
export async function waitForCompletion(
  app: FastifyInstance,
  headers: Record<string, string>,
  timeoutMs = 30_000,
): Promise<{ order: BulkOrder; progress: number[] }> {
  const progress: number[] = [];
  const order = await vi.waitFor(
    async () => {
      const [order] = await readBulkOrders(app, headers);
      if (order && progress.at(-1) !== order.progress) progress.push(order.progress);
      if (!order || !isBulkFinished(order.status)) throw new Error(`bulk order not finished: ${JSON.stringify(order)}`);
      return order;
    },
    { ...WAIT, timeout: timeoutMs },
  );
  return { order, progress };
}

export const download = (app: FastifyInstance, headers: Record<string, string>, path: string) => app.inject({ method: 'GET', url: path, headers });

export const pdfPageCount = async (pdf: Uint8Array) => (await PDFDocument.load(pdf)).getPageCount();
export const zipEntries = (zip: Uint8Array) => unzipSync(zip);
/** The report's header and rows (the report is our own CSV). */
export const readReport = (csv: Uint8Array) => parseCsv(decodeCsvText(csv)!);
