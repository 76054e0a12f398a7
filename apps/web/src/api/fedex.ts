import { queryOptions } from '@tanstack/react-query';
import { FEDEX_PAGE_SIZE, type CreateFedexOrderBody, type FedexListResponse, type FedexOrder, type MessageResponse } from '@portal/contract';
import { API_BASE, download, request } from './client.ts';
import { accessQuery } from './current-user.ts';
import { useSubmissionKeys } from './idempotency.ts';
import { serverMessage, useApiMutation } from './mutation.ts';

/** GET /fed/read-price: the flat price of a FedEx hand-made order, in dollars. */
export const readFedexPrice = () => request<{ price: number }>('/fed/read-price');
export const fedexPriceQuery = () => queryOptions({ queryKey: ['fedexPrice'], queryFn: readFedexPrice });

/** With the submission's Idempotency-Key: sent again, it is answered again, ordered and charged once. */
export const createFedexOrder = (body: CreateFedexOrderBody, idempotencyKey: string) =>
  request<MessageResponse>('/fed/create-order', { method: 'POST', body, headers: { 'idempotency-key': idempotencyKey } });

/** GET /fed/read: the user's FedEx orders, newest first, searched on the server. */
export function readFedexOrders({ page, limit, search }: { page: number; limit: number; search: string }) {
  const params = new URLSearchParams({ page: String(page), limit: String(limit), search });
  return request<FedexListResponse>(`/fed/read?${params}`);
}

/** Every page of every search of the FedEx orders starts with this key: a new order reads them all again. */
const FEDEX_ORDERS_QUERY_KEY = ['fedexOrders'];
export const fedexOrdersQuery = (search: string, page: number) =>
  queryOptions({ queryKey: [...FEDEX_ORDERS_QUERY_KEY, search, page], queryFn: () => readFedexOrders({ page, limit: FEDEX_PAGE_SIZE, search }) });

/** A completed order's label: the server path plus the order's signed file path, opened as a plain link. */
export const fedexFileUrl = (file: string) => `${API_BASE}${file}`;

/** The order's commercial invoice, fetched with the token. */
export const downloadFedexInvoice = (order: Pick<FedexOrder, '_id' | 'uuid'>) =>
  download(`/fed/invoice/${encodeURIComponent(order._id)}`, `commercial-invoice-${order.uuid}.pdf`);

/** Pay $price: the order made, the list and the balance read again. */
export function useCreateFedexOrder() {
  const keys = useSubmissionKeys();
  return useApiMutation({
    call: (body: CreateFedexOrderBody) => keys.send(body, (key) => createFedexOrder(body, key)),
    invalidates: [FEDEX_ORDERS_QUERY_KEY, accessQuery().queryKey],
    successToast: serverMessage,
  });
}
