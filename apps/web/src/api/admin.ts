import { ADMIN_PAGE_SIZE, FEDEX_PAGE_SIZE, type SELLING_UPSTREAMS } from '@portal/contract';
import type {
  AdminPickupsResponse,
  AdminScanFormsResponse,
  ScanFormStatus,
  GoingLive,
  AdjustBalanceBody,
  AdminContent,
  AdminFedexQueueResponse,
  AdminRefundsResponse,
  AdminOrderDetail,
  AdminOrdersQuery,
  MessageResponse,
  Overview,
  PriceCheck,
  ReferencePackageBody,
  UpdateLabelTypeBody,
  UpdateUpstreamServiceBody,
  AdminUpstreamServices,
  AdminUpstreamHealth,
  UserRole,
  adjustBalanceResponse,
  adminBulkOrdersResponse,
  adminInvoicesResponse,
  adminLabelTypeChangeResponse,
  adminLabelTypesResponse,
  adminUpstreamServiceChangeResponse,
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
  referencePackageChangeResponse,
  referencePackagesResponse,
  tosChangeResponse,
} from '@portal/contract';
import { queryOptions, skipToken, useQueryClient } from '@tanstack/react-query';
import { money } from '../components/format.ts';
import { PRICE_QUERY_KEY, labelTypesQuery } from './catalog.ts';
import { download, request } from './client.ts';
import { announcementQuery, faqsQuery, tosQuery } from './content.ts';
import { accessQuery } from './current-user.ts';
import { serverMessage, useApiMutation } from './mutation.ts';

// Every call of the operator console (/api/v1/admin/...), one typed function each, a query factory
// for each read and a mutation hook for each write. Only the console (features/admin) imports this file, so none of it reaches
// the customers' bundle (lint keeps the other features out).

/** What a call answers, read from its contract schema. */
type Answer<Schema extends { parse: (data: unknown) => unknown }> = ReturnType<Schema['parse']>;

/** Every admin query starts with this key: a change can refresh the whole console at once. */
const ADMIN_QUERY_KEY = ['admin'];
const adminKey = (...parts: unknown[]) => [...ADMIN_QUERY_KEY, ...parts];

/** ?a=1&b=2 of the set values; empty and undefined values are left out. */
export function queryString(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

const id = (value: string) => encodeURIComponent(value);

/** An upstream that sells postage, whose mappings the console edits. */
export type SellingUpstream = (typeof SELLING_UPSTREAMS)[number];

// ---- Overview ----
export const readOverview = () => request<Overview>('/admin/overview');
export const readGoingLive = () => request<GoingLive>('/admin/going-live');

// ---- Users ----
export type UsersFilter = { search?: string; page: number };
export const readUsers = ({ search, page }: UsersFilter) => request<Answer<typeof adminUsersResponse>>(`/admin/users${queryString({ search, page })}`);
export const readUser = (userId: string) => request<Answer<typeof adminUserResponse>>(`/admin/users/${id(userId)}`);
export const readUserStatement = (userId: string, page: number) =>
  request<Answer<typeof adminStatementResponse>>(`/admin/users/${id(userId)}/statement${queryString({ page })}`);
export const readUserInvoices = (userId: string, page: number) =>
  request<Answer<typeof adminUserInvoicesResponse>>(`/admin/users/${id(userId)}/invoices${queryString({ page })}`);
/** With the submission's idempotency key: the server moves the money once however often the same submission is sent. */
export const adjustBalance = (userId: string, body: AdjustBalanceBody, idempotencyKey: string) =>
  request<Answer<typeof adjustBalanceResponse>>(`/admin/users/${id(userId)}/adjust`, { method: 'POST', body, headers: { 'idempotency-key': idempotencyKey } });
export const setUserDisabled = (userId: string, disabled: boolean) =>
  request<Answer<typeof adminUserChangeResponse>>(`/admin/users/${id(userId)}/status`, { method: 'POST', body: { disabled } });
export const setUserRole = (userId: string, role: UserRole) =>
  request<Answer<typeof adminUserChangeResponse>>(`/admin/users/${id(userId)}/role`, { method: 'POST', body: { role } });

// ---- Label types and prices ----
export const readAdminLabelTypes = () => request<Answer<typeof adminLabelTypesResponse>>('/admin/label-types');
export const updateLabelType = (typeId: string, body: UpdateLabelTypeBody) =>
  request<Answer<typeof adminLabelTypeChangeResponse>>(`/admin/label-types/${id(typeId)}`, { method: 'PUT', body });
export const readUpstreamServices = () => request<AdminUpstreamServices>('/admin/upstream-services');
export const readUpstreamHealth = () => request<AdminUpstreamHealth>('/admin/upstream-health');
/** What a label type is bought as at one selling upstream (easypost, shippo). */
export const updateUpstreamService = (typeId: string, upstream: SellingUpstream, body: UpdateUpstreamServiceBody) =>
  request<Answer<typeof adminUpstreamServiceChangeResponse>>(`/admin/label-types/${id(typeId)}/upstream/${id(upstream)}`, { method: 'PUT', body });
export const readFedexPrice = () => request<Answer<typeof fedexPriceResponse>>('/admin/fedex-price');
export const updateFedexPrice = (price: number) => request<Answer<typeof fedexPriceResponse>>('/admin/fedex-price', { method: 'PUT', body: { price } });

// ---- Price check ----
/** The last price check; `refresh` runs it anew ("Check now"). The server runs it again itself when it is over an hour old. */
export const readPriceCheck = (refresh = false) => request<PriceCheck>(`/admin/price-check${refresh ? '?refresh=true' : ''}`);
export const readReferencePackages = () => request<Answer<typeof referencePackagesResponse>>('/admin/reference-packages');
export const createReferencePackage = (body: ReferencePackageBody) =>
  request<Answer<typeof referencePackageChangeResponse>>('/admin/reference-packages', { method: 'POST', body });
export const updateReferencePackage = (packageId: string, body: ReferencePackageBody) =>
  request<Answer<typeof referencePackageChangeResponse>>(`/admin/reference-packages/${id(packageId)}`, { method: 'PUT', body });
export const deleteReferencePackage = (packageId: string) => request<MessageResponse>(`/admin/reference-packages/${id(packageId)}`, { method: 'DELETE' });

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
export const downloadAdminLabel = (order: { _id: string; tracking: string | null }) =>
  download(`/admin/orders/${id(order._id)}/label`, `${order.tracking ?? order._id}.pdf`);
export const cancelAdminOrder = (orderId: string, reason: string) =>
  request<MessageResponse>(`/admin/orders/${id(orderId)}/cancel`, { method: 'POST', body: { reason } });
/** The refund queue: orders in one refund state (requested, stuck, rejected, refunded). */
export const readAdminRefunds = (state: string, page: number) => request<AdminRefundsResponse>(`/admin/refunds${queryString({ state, page })}`);
export const approveAdminRefund = (orderId: string) => request<MessageResponse>(`/admin/orders/${id(orderId)}/refund/approve`, { method: 'POST' });
export const rejectAdminRefund = (orderId: string, reason: string) =>
  request<MessageResponse>(`/admin/orders/${id(orderId)}/refund/reject`, { method: 'POST', body: { reason } });
export type OwnedListFilter = { status?: string; user?: string; page: number };
export const readAdminBulkOrders = (filter: OwnedListFilter) => request<Answer<typeof adminBulkOrdersResponse>>(`/admin/bulk-orders${queryString(filter)}`);
export const readAdminInvoices = (filter: OwnedListFilter) => request<Answer<typeof adminInvoicesResponse>>(`/admin/invoices${queryString(filter)}`);

// ---- FedEx hand-made queue ----
/** The queue (pending, oldest first) or the history (state done: completed and cancelled, newest first). */
export const readFedexQueue = (page: number, limit: number, state: 'pending' | 'done' = 'pending') =>
  request<AdminFedexQueueResponse>(`/admin/fedex-orders${queryString({ state, page, limit })}`);
/** Any order's commercial invoice. */
export const downloadAdminFedexInvoice = (order: { _id: string; uuid: string }) =>
  download(`/admin/fedex-orders/${id(order._id)}/invoice`, `commercial-invoice-${order.uuid}.pdf`);
/** Multipart: the note before the file, so a streaming reader has it when it reaches the file. */
export function completeFedexOrder(orderId: string, label: File, note: string) {
  const form = new FormData();
  form.append('note', note);
  form.append('label', label, label.name);
  return request<MessageResponse>(`/admin/fedex-orders/${id(orderId)}/complete`, { method: 'POST', body: form });
}
export const cancelFedexOrder = (orderId: string, note: string) =>
  request<MessageResponse>(`/admin/fedex-orders/${id(orderId)}/cancel`, { method: 'POST', body: { note } });

// ---- SCAN forms ----
/** Every customer's newest SCAN forms, or one customer's (userId); a status picks some. */
export const readAdminScanForms = (status?: ScanFormStatus, userId?: string) =>
  request<AdminScanFormsResponse>(`/admin/scan-forms${queryString({ status, userId })}`);
export const adminScanFormsQuery = (status?: ScanFormStatus, userId?: string) =>
  queryOptions({ queryKey: adminKey('scan-forms', status ?? 'all', userId ?? 'everyone'), queryFn: () => readAdminScanForms(status, userId) });
/** Every customer's newest pickups, or one customer's (userId). */
export const readAdminPickups = (userId?: string) => request<AdminPickupsResponse>(`/admin/pickups${queryString({ userId })}`);
export const adminPickupsQuery = (userId?: string) =>
  queryOptions({ queryKey: adminKey('pickups', userId ?? 'everyone'), queryFn: () => readAdminPickups(userId) });
export const downloadAdminScanForm = (form: { _id: string; name: string }) => download(`/admin/scan-forms/${id(form._id)}/pdf`, `${form.name}.pdf`);

// ---- Audit log and outbox ----
export type AuditFilter = { admin?: string; target?: string; from?: string; to?: string; page: number };
export const readAudit = (filter: AuditFilter) => request<Answer<typeof auditResponse>>(`/admin/audit${queryString(filter)}`);
export const readOutbox = (page: number) => request<Answer<typeof outboxResponse>>(`/admin/outbox${queryString({ page })}`);

// ---- Reads: one query factory each; a list's page is the last part of its key ----

export const overviewQuery = () => queryOptions({ queryKey: adminKey('overview'), queryFn: readOverview });
export const usersQuery = (search: string, page: number) =>
  queryOptions({ queryKey: adminKey('users', search, page), queryFn: () => readUsers({ search: search || undefined, page }) });
export const userQuery = (userId: string) => queryOptions({ queryKey: adminKey('user', userId), queryFn: () => readUser(userId) });
export const userStatementQuery = (userId: string, page: number) =>
  queryOptions({ queryKey: adminKey('user', userId, 'statement', page), queryFn: () => readUserStatement(userId, page) });
export const userInvoicesQuery = (userId: string, page: number) =>
  queryOptions({ queryKey: adminKey('user', userId, 'invoices', page), queryFn: () => readUserInvoices(userId, page) });
export const adminLabelTypesQuery = () => queryOptions({ queryKey: adminKey('label-types'), queryFn: readAdminLabelTypes });
/** The upstreams' health and policy, and every type's mapping at each selling upstream (one call answers both). */
export const upstreamServicesQuery = () => queryOptions({ queryKey: adminKey('upstream-services'), queryFn: readUpstreamServices });
export const goingLiveQuery = () => queryOptions({ queryKey: adminKey('going-live'), queryFn: readGoingLive });
export const upstreamHealthQuery = () => queryOptions({ queryKey: adminKey('upstream-health'), queryFn: readUpstreamHealth });
export const priceCheckQuery = () => queryOptions({ queryKey: adminKey('price-check'), queryFn: () => readPriceCheck() });
export const referencePackagesQuery = () => queryOptions({ queryKey: adminKey('reference-packages'), queryFn: readReferencePackages });
export const adminFedexPriceQuery = () => queryOptions({ queryKey: adminKey('fedex-price'), queryFn: readFedexPrice });
export const adminContentQuery = () => queryOptions({ queryKey: adminKey('content'), queryFn: readAdminContent });
export type AdminOrdersFilter = Omit<AdminOrdersQuery, 'page' | 'limit'>;
export const adminOrdersQuery = (filter: AdminOrdersFilter, page: number) =>
  queryOptions({ queryKey: adminKey('orders', filter, page), queryFn: () => readAdminOrders({ ...filter, page, limit: ADMIN_PAGE_SIZE }) });
/** One order whole, or none asked for while no order is open. */
export const adminOrderQuery = (orderId: string | null) =>
  queryOptions({ queryKey: adminKey('order', orderId), queryFn: orderId === null ? skipToken : () => readAdminOrder(orderId) });
export const adminRefundsQuery = (state: string, page: number) =>
  queryOptions({ queryKey: adminKey('refunds', state, page), queryFn: () => readAdminRefunds(state, page) });
export type OwnedFilter = Omit<OwnedListFilter, 'page'>;
export const adminBulkOrdersQuery = (filter: OwnedFilter, page: number) =>
  queryOptions({ queryKey: adminKey('bulk-orders', filter, page), queryFn: () => readAdminBulkOrders({ ...filter, page }) });
export const adminInvoicesQuery = (filter: OwnedFilter, page: number) =>
  queryOptions({ queryKey: adminKey('invoices', filter, page), queryFn: () => readAdminInvoices({ ...filter, page }) });
export const fedexQueueQuery = (page: number) =>
  queryOptions({ queryKey: adminKey('fedex-queue', page), queryFn: () => readFedexQueue(page, FEDEX_PAGE_SIZE) });
export const fedexHistoryQuery = (page: number) =>
  queryOptions({ queryKey: adminKey('fedex-history', page), queryFn: () => readFedexQueue(page, FEDEX_PAGE_SIZE, 'done') });
export const auditQuery = (filter: Omit<AuditFilter, 'page'>, page: number) =>
  queryOptions({ queryKey: adminKey('audit', filter, page), queryFn: () => readAudit({ ...filter, page }) });
export const outboxQuery = (page: number) => queryOptions({ queryKey: adminKey('outbox', page), queryFn: () => readOutbox(page) });

// ---- Writes: each refreshes the console (and what customers see of the change) and shows its own toasts ----

/** Credit or debit. The operator may have adjusted their own account: the header balance follows. */
export const useAdjustBalance = () =>
  useApiMutation({
    call: ({ userId, body, key }: { userId: string; body: AdjustBalanceBody; key: string }) => adjustBalance(userId, body, key),
    invalidates: [ADMIN_QUERY_KEY, accessQuery().queryKey],
    invalidateOnError: true,
    successToast: serverMessage,
  });

export type AccountChange = { disabled: boolean } | { role: UserRole };
/** Disable or enable an account, grant or revoke admin. Revoking one's own role closes the console on the access check read again. */
export const useChangeAccount = () =>
  useApiMutation({
    call: ({ userId, change }: { userId: string; change: AccountChange }) =>
      'role' in change ? setUserRole(userId, change.role) : setUserDisabled(userId, change.disabled),
    invalidates: [ADMIN_QUERY_KEY, accessQuery().queryKey],
    invalidateOnError: true,
    successToast: serverMessage,
  });

/** A label type's name, max weight, state or tiers; customers' type lists and prices follow. */
export const useUpdateLabelType = () =>
  useApiMutation({
    call: ({ typeId, body }: { typeId: string; body: UpdateLabelTypeBody }) => updateLabelType(typeId, body),
    invalidates: [ADMIN_QUERY_KEY, labelTypesQuery().queryKey, PRICE_QUERY_KEY],
    invalidateOnError: true,
    successToast: serverMessage,
  });

/**
 * What a label type is bought as at one upstream; empty, it is not bought there (a type no upstream of the shop maps
 * leaves the customers' type lists).
 */
export const useUpdateUpstreamService = () =>
  useApiMutation({
    call: ({ typeId, upstream, body }: { typeId: string; upstream: SellingUpstream; body: UpdateUpstreamServiceBody }) =>
      updateUpstreamService(typeId, upstream, body),
    invalidates: [ADMIN_QUERY_KEY, labelTypesQuery().queryKey],
    invalidateOnError: true,
    successToast: serverMessage,
  });

/** "Check now": the price check run anew, its answer put in the cache (the overview's warning follows). */
export const useRunPriceCheck = () => {
  const queryClient = useQueryClient();
  return useApiMutation({
    call: () => readPriceCheck(true),
    onSuccess: (check) => queryClient.setQueryData(priceCheckQuery().queryKey, check),
    invalidates: [overviewQuery().queryKey, upstreamServicesQuery().queryKey, upstreamHealthQuery().queryKey],
    successToast: () => 'Prices checked',
  });
};

/** Add (no id), edit or delete a reference package; the price check is run again with them. */
export const useSaveReferencePackage = () =>
  useApiMutation({
    call: ({ packageId, body }: { packageId: string | null; body: ReferencePackageBody }) =>
      packageId ? updateReferencePackage(packageId, body) : createReferencePackage(body),
    invalidates: [ADMIN_QUERY_KEY],
    successToast: serverMessage,
  });
export const useDeleteReferencePackage = () =>
  useApiMutation({ call: deleteReferencePackage, invalidates: [ADMIN_QUERY_KEY], invalidateOnError: true, successToast: serverMessage });

export const useUpdateFedexPrice = () =>
  useApiMutation({ call: updateFedexPrice, invalidates: [ADMIN_QUERY_KEY], successToast: (saved) => `FedEx hand-made price saved: ${money(saved.price)}` });

export const useUpdateAnnouncement = () =>
  useApiMutation({
    call: ({ announcement, status }: { announcement: string; status: boolean }) => updateAnnouncement(announcement, status),
    invalidates: [ADMIN_QUERY_KEY, announcementQuery().queryKey],
    successToast: serverMessage,
  });

/** The terms as the server kept them (sanitized) are in the answer. */
export const useUpdateTos = () => useApiMutation({ call: updateTos, invalidates: [ADMIN_QUERY_KEY, tosQuery().queryKey], successToast: serverMessage });

/** Add (no id) or edit a FAQ. */
export const useSaveFaq = () =>
  useApiMutation({
    call: ({ faqId, body }: { faqId: string | null; body: FaqText }) => (faqId ? updateFaq(faqId, body) : createFaq(body)),
    invalidates: [ADMIN_QUERY_KEY, faqsQuery().queryKey],
    successToast: serverMessage,
  });
export const useReorderFaqs = () =>
  useApiMutation({ call: reorderFaqs, invalidates: [ADMIN_QUERY_KEY, faqsQuery().queryKey], invalidateOnError: true, successToast: serverMessage });
export const useDeleteFaq = () =>
  useApiMutation({ call: deleteFaq, invalidates: [ADMIN_QUERY_KEY, faqsQuery().queryKey], invalidateOnError: true, successToast: serverMessage });

/** Cancel and refund a waiting order. Read again after a refusal too: the order may have moved on meanwhile. */
export const useCancelAdminOrder = () =>
  useApiMutation({
    call: ({ orderId, reason }: { orderId: string; reason: string }) => cancelAdminOrder(orderId, reason),
    invalidates: [ADMIN_QUERY_KEY],
    invalidateOnError: true,
    successToast: serverMessage,
  });

/** An operator's decision on a label refund: approve (credited once) or reject with the reason the customer reads. */
export const useDecideRefund = () =>
  useApiMutation({
    call: (decision: { kind: 'approve'; orderId: string } | { kind: 'reject'; orderId: string; reason: string }) =>
      decision.kind === 'approve' ? approveAdminRefund(decision.orderId) : rejectAdminRefund(decision.orderId, decision.reason),
    invalidates: [ADMIN_QUERY_KEY],
    invalidateOnError: true,
    successToast: serverMessage,
  });

export type FedexQueueAction = { kind: 'complete'; orderId: string; label: File; note: string } | { kind: 'cancel'; orderId: string; note: string };
/** Complete (with the label) or cancel a FedEx hand-made order; a 409 (another operator was first) is the error toast, and the queue is read again either way. */
export const useFedexQueueAction = () =>
  useApiMutation({
    call: (action: FedexQueueAction) =>
      action.kind === 'complete' ? completeFedexOrder(action.orderId, action.label, action.note) : cancelFedexOrder(action.orderId, action.note),
    invalidates: [ADMIN_QUERY_KEY],
    invalidateOnError: true,
    successToast: serverMessage,
  });
