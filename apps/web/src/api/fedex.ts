import type { CreateFedexOrderBody, FedexListResponse, FedexOrder, MessageResponse } from '@portal/contract';
import { API_BASE, download, request } from './client.ts';
import { ACCESS_QUERY_KEY } from './current-user.ts';
import { useSubmissionKeys } from './idempotency.ts';
import { serverMessage, useApiMutation } from './mutation.ts';

export const FEDEX_ORDERS_QUERY_KEY = ['fedexOrders'];
export const FEDEX_PRICE_QUERY_KEY = ['fedexPrice'];

/** GET /fed/read-price: the flat price of a FedEx hand-made order, in dollars. */
export const readFedexPrice = () => request<{ price: number }>('/fed/read-price');

/** With the submission's Idempotency-Key: sent again, it is answered again, ordered and charged once. */
export const createFedexOrder = (body: CreateFedexOrderBody, idempotencyKey: string) =>
  request<MessageResponse>('/fed/create-order', { method: 'POST', body, headers: { 'idempotency-key': idempotencyKey } });

/** GET /fed/read: the user's FedEx orders, newest first, searched on the server. */
export function readFedexOrders({ page, limit, search }: { page: number; limit: number; search: string }) {
  const params = new URLSearchParams({ page: String(page), limit: String(limit), search });
  return request<FedexListResponse>(`/fed/read?${params}`);
}

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
    invalidates: [FEDEX_ORDERS_QUERY_KEY, ACCESS_QUERY_KEY],
    successToast: serverMessage,
  });
}
