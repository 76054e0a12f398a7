import { useNavigate } from 'react-router-dom';
import { queryOptions, skipToken, useQueryClient } from '@tanstack/react-query';
import {
  DASHBOARD_PAGE_SIZE,
  type AutoVoidSaved,
  type CreateOrderBody,
  type MessageResponse,
  type Order,
  type OrderDetail,
  type OrderIssue,
  type OrderListQuery,
  type OrderListResponse,
  type RatesBody,
  type RatesResponse,
  type RefundResult,
  type RefundResultsResponse,
} from '@portal/contract';
import { shortBalanceToast } from '../components/short-balance.tsx';
import { ApiError, download, errorMessage, request } from './client.ts';
import { accessQuery } from './current-user.ts';
import { useSubmissionKeys } from './idempotency.ts';
import { serverMessage, useApiMutation } from './mutation.ts';

/** Every order query's key starts so (the history's pages, the count, an order's details): a write reads them all again. */
const ORDERS_QUERY_KEY = ['orders'];

/** Create Order's body: a label type, or a `quoteId` of /order/rates (labelType then its uid) with the weight in WeightUnit. */
export type CreateOrderCall = CreateOrderBody & { quoteId?: string; WeightUnit?: 'lb' | 'oz' };

/** With the submission's Idempotency-Key: sent again, it is answered again, ordered and charged once. */
export const createOrder = (body: CreateOrderCall, idempotencyKey: string) =>
  request<MessageResponse>('/order/create', { method: 'POST', body, headers: { 'idempotency-key': idempotencyKey } });

/** Every enabled label type priced for one package (or why it cannot take it), kept by the server as a quote. */
export const askRates = (body: RatesBody) => request<RatesResponse>('/order/rates', { method: 'POST', body });

/** 'Compare rates': a write, as each ask makes a quote of its own; the screen keeps the answer (mutate's onSuccess). */
export const useAskRates = () => useApiMutation({ call: askRates });

export function readOrders(query: OrderListQuery) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) params.set(key, value === undefined ? '' : String(value));
  return request<OrderListResponse>(`/order/read?${params}`);
}

export type OrderHistoryFilter = Pick<OrderListQuery, 'search' | 'status' | 'sort'>;
/** A page of Order History (readOrders' query in the order early-call-paths.ts spells it). */
export const orderHistoryQuery = (filter: OrderHistoryFilter, page: number) =>
  queryOptions({
    queryKey: [...ORDERS_QUERY_KEY, 'history', filter, page],
    queryFn: () => readOrders({ search: filter.search, status: filter.status, sort: filter.sort, page, limit: DASHBOARD_PAGE_SIZE }),
  });
/** How many orders the user has, whatever the history's search shows. */
/** What the automatic voids of unused labels credited this month (the dashboard's line). */
export const autoVoidSavedQuery = () =>
  queryOptions({ queryKey: [...ORDERS_QUERY_KEY, 'auto-voids'], queryFn: () => request<AutoVoidSaved>('/order/auto-voids') });

export const orderCountQuery = () =>
  queryOptions({ queryKey: [...ORDERS_QUERY_KEY, 'count'], queryFn: () => readOrders({ search: '', status: 'all', sort: 'desc', page: 1, limit: 1 }) });

/** The label of a completed order in the account's label format, saved as {tracking}.pdf or {tracking}.zpl. */
export const downloadOrderLabel = (order: Pick<Order, '_id' | 'tracking'>) =>
  download(`/order/download/${encodeURIComponent(order._id)}`, `${order.tracking}.pdf`);

/** Several completed orders' labels as one file in the account's label format (labels.pdf or labels.zpl). */
export const downloadSelectedLabels = (ids: string[]) => download('/order/download-selected', 'labels.pdf', { method: 'POST', body: { ids } });

/** The spec posts an empty body: a new order with the same details, priced and charged again (once per Idempotency-Key). */
export const duplicateOrder = (id: string, idempotencyKey: string) =>
  request<MessageResponse>(`/order/duplicate/${encodeURIComponent(id)}`, { method: 'POST', headers: { 'idempotency-key': idempotencyKey } });

/** A return label of a completed order (its addresses swapped), charged like any label of its type. */
export const returnOrder = (id: string, idempotencyKey: string) =>
  request<MessageResponse>(`/order/return/${encodeURIComponent(id)}`, { method: 'POST', headers: { 'idempotency-key': idempotencyKey } });

export function useReturnOrder() {
  const keys = useSubmissionKeys();
  return useApiMutation({
    call: (id: string) => keys.send(id, (key) => returnOrder(id, key)),
    invalidates: [ORDERS_QUERY_KEY, accessQuery().queryKey],
    invalidateOnError: true,
    successToast: serverMessage,
  });
}

/** One of the user's orders whole: both addresses, dimensions, its bulk order and its ledger rows. */
export const readOrderDetails = (id: string) => request<OrderDetail>(`/order/details/${encodeURIComponent(id)}`);
/** One order's details, or none asked for while no order is open. */
export const orderDetailsQuery = (id: string | null) =>
  queryOptions({ queryKey: [...ORDERS_QUERY_KEY, 'details', id], queryFn: id === null ? skipToken : () => readOrderDetails(id) });

/** The fields a 400 of the create call names ({ errors: [{ field, message }] }), or none. */
export function orderIssues(error: unknown): OrderIssue[] {
  if (!(error instanceof ApiError) || error.status !== 400) return [];
  const list = (error.body as { errors?: unknown }).errors;
  return Array.isArray(list) ? list.filter((i): i is OrderIssue => typeof i?.message === 'string' && typeof i?.field === 'string') : [];
}

/**
 * Create Order, at the price the form shows. A refused label is refunded on the server, so the
 * balance and the list are read again either way; a 402 says how much balance is missing.
 */
export function useCreateOrder() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const keys = useSubmissionKeys();
  return useApiMutation({
    call: ({ order }: { order: CreateOrderCall; price: number }) => keys.send(order, (key) => createOrder(order, key)),
    invalidates: [ORDERS_QUERY_KEY, accessQuery().queryKey],
    invalidateOnError: true,
    successToast: serverMessage,
    errorToast: (error, { price }) => {
      if (!(error instanceof ApiError && error.status === 402)) return errorMessage(error);
      // The balance was read again (invalidateOnError) before this toast.
      const balance = queryClient.getQueryData(accessQuery().queryKey)?.balance ?? 0;
      const missing = Math.max(0, Math.round((price - balance) * 100) / 100);
      return shortBalanceToast(error.message, missing, () => void navigate('/deposits'));
    },
  });
}

/** 'Duplicate Order'. Also after a refusal the list and balance are read again: a refused label leaves a cancelled, refunded order. */
export function useDuplicateOrder() {
  const keys = useSubmissionKeys();
  return useApiMutation({
    call: (id: string) => keys.send(id, (key) => duplicateOrder(id, key)),
    invalidates: [ORDERS_QUERY_KEY, accessQuery().queryKey],
    invalidateOnError: true,
    successToast: serverMessage,
  });
}

/** Asks for the refund (void) of one completed label. */
export const refundOrder = (id: string) => request<RefundResult>(`/order/refund/${encodeURIComponent(id)}`, { method: 'POST' });

/** Asks for the refunds of several labels; each order is answered on its own. */
export const refundOrders = (ids: string[]) => request<RefundResultsResponse>('/order/refund', { method: 'POST', body: { ids } });

/** 'Request refund' of one label (Order Details). The list, the details and the balance are read again; a refusal is an error toast. */
export const useRefundOrder = () =>
  useApiMutation({
    call: refundOrder,
    invalidates: [ORDERS_QUERY_KEY, accessQuery().queryKey],
    successToast: (result) => result.message,
    successKind: (result) => (result.ok ? 'success' : 'error'),
  });

/** The short order number of an order id (the history's Order ID). */
const shortId = (id: string) => id.slice(0, 8).toUpperCase();

/** What a refund of several labels came to, in one line: how many were asked, and each refused label (by `nameOf`) with why. */
export function refundSummary(results: RefundResult[], nameOf: (id: string) => string = shortId): string {
  const asked = results.filter((r) => r.ok).length;
  const refused = results.filter((r) => !r.ok).map((r) => `${nameOf(r.orderId)}: ${r.message}`);
  return [`${asked} of ${results.length} ${results.length === 1 ? 'refund' : 'refunds'} requested`, ...refused].join('. ');
}

/** A success when every refund was asked; a warning when some were refused, an error when none was asked. */
export function refundSummaryKind(results: RefundResult[]): 'success' | 'warn' | 'error' {
  const asked = results.filter((r) => r.ok).length;
  return asked === results.length ? 'success' : asked === 0 ? 'error' : 'warn';
}

/** 'Request refund' of the orders selected in Order History; a refused label is named by `nameOf` (its order number and tracking). */
export const useRefundOrders = (nameOf?: (id: string) => string) =>
  useApiMutation({
    call: refundOrders,
    invalidates: [ORDERS_QUERY_KEY, accessQuery().queryKey],
    successToast: (data) => refundSummary(data.results, nameOf),
    successKind: (data) => refundSummaryKind(data.results),
  });
