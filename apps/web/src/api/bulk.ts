import { queryOptions } from '@tanstack/react-query';
import {
  DASHBOARD_PAGE_SIZE,
  REQUEST_ALREADY_SENT,
  csvErrorResponse,
  isBulkFinished,
  type BulkOrder,
  type CsvRowError,
  type MessageResponse,
  type validateCsvResponse,
} from '@portal/contract';
import { ApiError, download, request } from './client.ts';
import { accessQuery } from './current-user.ts';
import { useSubmissionKeys } from './idempotency.ts';
import { serverMessage, useApiMutation } from './mutation.ts';

let handedOver: File | null = null;
/** Another page (the Amazon CSV Generator) hands the CSV page a file, to open it there ready to validate. */
export const handOverCsvFile = (file: File) => {
  handedOver = file;
};
/** The file handed over, once. */
export function takeHandedOverCsvFile(): File | null {
  const file = handedOver;
  handedOver = null;
  return file;
}

/** The answer of a successful validation: total in dollars and the number of labels. */
export type ValidateCsvResult = ReturnType<(typeof validateCsvResponse)['parse']>;

/** POST /order/validatecsv (multipart: labeltype, csv): the total of a file whose every row is valid. */
export function validateCsv(file: File, labelType: string) {
  const form = new FormData();
  // Text fields before the file, so a streaming multipart reader has them when it reaches the file.
  form.append('labeltype', labelType);
  form.append('csv', file, file.name);
  return request<ValidateCsvResult>('/order/validatecsv', { method: 'POST', body: form });
}

export type CreateOrderFromCsv = { file: File; labelType: string; totalPrice: number; design: string };

/** POST /order/createOrderFromCSV (multipart: type, total_price, design, csv): pays the validated total. */
export function createOrderFromCsv({ file, labelType, totalPrice, design }: CreateOrderFromCsv, idempotencyKey: string) {
  const form = new FormData();
  form.append('type', labelType);
  form.append('total_price', String(totalPrice));
  form.append('design', design);
  form.append('csv', file, file.name);
  return request<MessageResponse>('/order/createOrderFromCSV', { method: 'POST', body: form, headers: { 'idempotency-key': idempotencyKey } });
}

/** GET /order/read-bulk-orders: every bulk order of the user, newest first. */
export const readBulkOrders = () => request<{ orders: BulkOrder[] }>('/order/read-bulk-orders');

/** One page of the bulk orders (the server sends them all), and the ids of all those not finished yet. */
export async function readBulkOrdersPage(page: number, limit: number) {
  const { orders } = await readBulkOrders();
  return {
    orders: orders.slice((page - 1) * limit, page * limit),
    total: orders.length,
    totalPages: Math.max(1, Math.ceil(orders.length / limit)),
    unfinished: orders.filter((o) => !isBulkFinished(o.status)).map((o) => o._id),
  };
}

/** Every page of the bulk orders starts with this key: a new bulk order reads them all again. */
const BULK_ORDERS_QUERY_KEY = ['bulkOrders'];
export const bulkOrdersQuery = (page: number) =>
  queryOptions({ queryKey: [...BULK_ORDERS_QUERY_KEY, page], queryFn: () => readBulkOrdersPage(page, DASHBOARD_PAGE_SIZE) });

export const BULK_DOWNLOADS = [
  { kind: 'zip', label: 'Zip', path: 'bulk-download', fileName: 'label.zip' },
  { kind: 'csv', label: 'CSV', path: 'bulk-download-csv', fileName: 'label.csv' },
  { kind: 'pdf', label: 'PDF', path: 'bulk-download-pdf', fileName: 'label.pdf' },
] as const;
export type BulkDownload = (typeof BULK_DOWNLOADS)[number];

/** One of a completed bulk order's files, saved as label.zip, label.csv or label.pdf. */
export const downloadBulkFile = (id: string, file: BulkDownload) => download(`/order/${file.path}/${encodeURIComponent(id)}`, file.fileName);

/** The problems a 400 of validatecsv or createOrderFromCSV lists, and how many more it did not list; null when the error is of another kind. */
export function csvRowErrors(error: unknown): CsvProblems | null {
  if (!(error instanceof ApiError)) return null;
  const parsed = csvErrorResponse.safeParse(error.body);
  return parsed.success && parsed.data.errors.length > 0 ? { errors: parsed.data.errors, more: parsed.data.moreErrors ?? 0 } : null;
}
export type CsvProblems = { errors: CsvRowError[]; more: number };

/** Validate CSV: the file priced, or every bad cell listed (csvRowErrors). One call at a time. */
export const useValidateCsv = () =>
  useApiMutation({
    call: ({ file, labelType }: { file: File; labelType: string }) => validateCsv(file, labelType),
    successToast: serverMessage,
    alreadySent: REQUEST_ALREADY_SENT,
  });

/** Pay $total: the validated file ordered. The balance and the bulk orders are read again after a refusal too. */
export function usePayCsv() {
  const keys = useSubmissionKeys();
  return useApiMutation({
    // One key per submission of this file (its name, size and time) at this type, total and design.
    call: (order: CreateOrderFromCsv) =>
      keys.send([order.file.name, order.file.size, order.file.lastModified, order.labelType, order.totalPrice, order.design], (key) =>
        createOrderFromCsv(order, key),
      ),
    invalidates: [accessQuery().queryKey, BULK_ORDERS_QUERY_KEY],
    invalidateOnError: true,
    successToast: serverMessage,
    alreadySent: REQUEST_ALREADY_SENT,
  });
}
