import { queryOptions } from '@tanstack/react-query';
import type { ScanForm, ScanFormListResponse, ScanFormRequestBody, ScanFormResult, TodayLabelsResponse } from '@portal/contract';
import { download, request } from './client.ts';
import { useApiMutation, type ApiMutationOptions } from './mutation.ts';

/** Every SCAN form query's key starts so (today's labels, the forms). */
const SCAN_FORMS_QUERY_KEY = ['scan-forms'];
/** The orders' queries (orders.ts): a label put on a form shows so in Order History and Order Details. */
const ORDERS_QUERY_KEY = ['orders'];

export const readTodayLabels = () => request<TodayLabelsResponse>('/scan-form/today');
export const readScanForms = () => request<ScanFormListResponse>('/scan-form/read');
export const createScanForm = (body: ScanFormRequestBody) => request<ScanFormResult>('/scan-form', { method: 'POST', body });

/** A created form's PDF, saved as SF-XXXXXXXX.pdf. */
export const downloadScanForm = (form: Pick<ScanForm, '_id' | 'name'>) => download(`/scan-form/${encodeURIComponent(form._id)}/pdf`, `${form.name}.pdf`);

export const todayLabelsQuery = () => queryOptions({ queryKey: [...SCAN_FORMS_QUERY_KEY, 'today'], queryFn: readTodayLabels });
export const scanFormsQuery = () => queryOptions({ queryKey: [...SCAN_FORMS_QUERY_KEY, 'list'], queryFn: readScanForms });

/** The queries a failed form changes: it lets its labels go, back to today's and to no form in the orders. */
export const FREED_LABELS = [todayLabelsQuery().queryKey, ORDERS_QUERY_KEY] as const;

/**
 * 'Create SCAN form' of some labels. The screen says how the answer is shown (toasts, or alerts of its own).
 * The lists are read again after a refusal too: a label may have gone on a form meanwhile.
 */
export const useCreateScanForm = (options: Pick<ApiMutationOptions<ScanFormRequestBody, ScanFormResult>, 'successToast' | 'successKind' | 'errorToast'> = {}) =>
  useApiMutation({ call: createScanForm, invalidates: [SCAN_FORMS_QUERY_KEY, ORDERS_QUERY_KEY], invalidateOnError: true, ...options });
