import type {
  AdjustBalanceBody,
  AdminContent,
  AdminFedexQueueResponse,
  AdminOrderDetail,
  AdminOrdersQuery,
  MessageResponse,
  Overview,
  UpdateLabelTypeBody,
  UserRole,
  adjustBalanceResponse,
  adminBulkOrdersResponse,
  adminInvoicesResponse,
  adminLabelTypeChangeResponse,
  adminLabelTypesResponse,
  adminOrdersResponse,
  adminStatementResponse,
  adminUserChangeResponse,
  adminUserInvoicesResponse,
  adminUserResponse,
  adminUsersResponse,
  auditResponse,
  faqCreatedResponse,
  fedexPriceResponse,
  outboxResponse,
  tosChangeResponse,
} from '@portal/contract';
import { download, request } from '../../api/client.ts';

// Every call of the operator console (/api/v1/admin/...), one typed function each. Only this
// feature imports this file, so none of it reaches the customers' bundle.

/** What a call answers, read from its contract schema. */
type Answer<Schema extends { parse: (data: unknown) => unknown }> = ReturnType<Schema['parse']>;

/** Every admin query starts with this key: a change can refresh the whole console at once. */
export const ADMIN_QUERY_KEY = ['admin'];
export const adminKey = (...parts: unknown[]) => [...ADMIN_QUERY_KEY, ...parts];

/** ?a=1&b=2 of the set values; empty and undefined values are left out. */
export function queryString(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

const id = (value: string) => encodeURIComponent(value);

// ---- Overview ----
export const readOverview = () => request<Overview>('/admin/overview');

// ---- Users ----
export type UsersFilter = { search?: string; page: number };
export const readUsers = ({ search, page }: UsersFilter) => request<Answer<typeof adminUsersResponse>>(`/admin/users${queryString({ search, page })}`);
export const readUser = (userId: string) => request<Answer<typeof adminUserResponse>>(`/admin/users/${id(userId)}`);
export const readUserStatement = (userId: string, page: number) => request<Answer<typeof adminStatementResponse>>(`/admin/users/${id(userId)}/statement${queryString({ page })}`);
export const readUserInvoices = (userId: string, page: number) => request<Answer<typeof adminUserInvoicesResponse>>(`/admin/users/${id(userId)}/invoices${queryString({ page })}`);
/** With the submission's idempotency key: the server moves the money once however often the same submission is sent. */
export const adjustBalance = (userId: string, body: AdjustBalanceBody, idempotencyKey: string) =>
  request<Answer<typeof adjustBalanceResponse>>(`/admin/users/${id(userId)}/adjust`, { method: 'POST', body, headers: { 'idempotency-key': idempotencyKey } });
export const setUserDisabled = (userId: string, disabled: boolean) =>
  request<Answer<typeof adminUserChangeResponse>>(`/admin/users/${id(userId)}/status`, { method: 'POST', body: { disabled } });
export const setUserRole = (userId: string, role: UserRole) => request<Answer<typeof adminUserChangeResponse>>(`/admin/users/${id(userId)}/role`, { method: 'POST', body: { role } });

// ---- Label types and prices ----
export const readAdminLabelTypes = () => request<Answer<typeof adminLabelTypesResponse>>('/admin/label-types');
export const updateLabelType = (typeId: string, body: UpdateLabelTypeBody) =>
  request<Answer<typeof adminLabelTypeChangeResponse>>(`/admin/label-types/${id(typeId)}`, { method: 'PUT', body });
export const readFedexPrice = () => request<Answer<typeof fedexPriceResponse>>('/admin/fedex-price');
export const updateFedexPrice = (price: number) => request<Answer<typeof fedexPriceResponse>>('/admin/fedex-price', { method: 'PUT', body: { price } });

// ---- Content ----
export const readAdminContent = () => request<AdminContent>('/admin/content');
export const updateAnnouncement = (announcement: string, status: boolean) =>
  request<MessageResponse>('/admin/content/announcement', { method: 'PUT', body: { announcement, status } });
export const updateTos = (tos: string) => request<Answer<typeof tosChangeResponse>>('/admin/content/tos', { method: 'PUT', body: { tos } });
export type FaqText = { question: string; answer: string };
export const createFaq = (body: FaqText) => request<Answer<typeof faqCreatedResponse>>('/admin/faqs', { method: 'POST', body });
export const updateFaq = (faqId: string, body: FaqText) => request<MessageResponse>(`/admin/faqs/${id(faqId)}`, { method: 'PUT', body });
export const deleteFaq = (faqId: string) => request<MessageResponse>(`/admin/faqs/${id(faqId)}`, { method: 'DELETE' });
export const reorderFaqs = (ids: string[]) => request<MessageResponse>('/admin/faqs-order', { method: 'PUT', body: { ids } });

// ---- Orders, bulk orders, invoices ----
export const readAdminOrders = (filter: AdminOrdersQuery) =>
  request<Answer<typeof adminOrdersResponse>>(`/admin/orders${queryString(filter as Record<string, string | number | undefined>)}`);
export const readAdminOrder = (orderId: string) => request<AdminOrderDetail>(`/admin/orders/${id(orderId)}`);
/** Any customer's completed label, saved as {tracking}.pdf. */
export const downloadAdminLabel = (order: { _id: string; tracking: string | null }) => download(`/admin/orders/${id(order._id)}/label`, `${order.tracking ?? order._id}.pdf`);
export const cancelAdminOrder = (orderId: string, reason: string) => request<MessageResponse>(`/admin/orders/${id(orderId)}/cancel`, { method: 'POST', body: { reason } });
export type OwnedListFilter = { status?: string; user?: string; page: number };
export const readAdminBulkOrders = (filter: OwnedListFilter) => request<Answer<typeof adminBulkOrdersResponse>>(`/admin/bulk-orders${queryString(filter)}`);
export const readAdminInvoices = (filter: OwnedListFilter) => request<Answer<typeof adminInvoicesResponse>>(`/admin/invoices${queryString(filter)}`);

// ---- FedEx hand-made queue ----
export const readFedexQueue = (page: number, limit: number) => request<AdminFedexQueueResponse>(`/admin/fedex-orders${queryString({ page, limit })}`);
/** Any order's commercial invoice. */
export const downloadAdminFedexInvoice = (order: { _id: string; uuid: string }) => download(`/admin/fedex-orders/${id(order._id)}/invoice`, `commercial-invoice-${order.uuid}.pdf`);
/** Multipart: the note before the file, so a streaming reader has it when it reaches the file. */
export function completeFedexOrder(orderId: string, label: File, note: string) {
  const form = new FormData();
  form.append('note', note);
  form.append('label', label, label.name);
  return request<MessageResponse>(`/admin/fedex-orders/${id(orderId)}/complete`, { method: 'POST', body: form });
}
export const cancelFedexOrder = (orderId: string, note: string) => request<MessageResponse>(`/admin/fedex-orders/${id(orderId)}/cancel`, { method: 'POST', body: { note } });

// ---- Audit log and outbox ----
export type AuditFilter = { admin?: string; target?: string; from?: string; to?: string; page: number };
export const readAudit = (filter: AuditFilter) => request<Answer<typeof auditResponse>>(`/admin/audit${queryString(filter)}`);
export const readOutbox = (page: number) => request<Answer<typeof outboxResponse>>(`/admin/outbox${queryString({ page })}`);
