import type { CreateOrderBody, MessageResponse, Order, OrderDetail, OrderListQuery, OrderListResponse } from '@portal/contract';
import { download, request } from './client.ts';

export const ORDERS_QUERY_KEY = ['orders'];

export const createOrder = (body: CreateOrderBody) => request<MessageResponse>('/order/create', { method: 'POST', body });

export function readOrders(query: OrderListQuery) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) params.set(key, value === undefined ? '' : String(value));
  return request<OrderListResponse>(`/order/read?${params}`);
}

/** The label PDF of a completed order, saved as {tracking}.pdf. */
export const downloadOrderLabel = (order: Pick<Order, '_id' | 'tracking'>) => download(`/order/download/${encodeURIComponent(order._id)}`, `${order.tracking}.pdf`);

/** The spec posts an empty body: a new order with the same details, priced and charged again. */
export const duplicateOrder = (id: string) => request<MessageResponse>(`/order/duplicate/${encodeURIComponent(id)}`, { method: 'POST' });

/** One of the user's orders whole: both addresses, dimensions, its bulk order and its ledger rows. */
export const readOrderDetails = (id: string) => request<OrderDetail>(`/order/details/${encodeURIComponent(id)}`);
