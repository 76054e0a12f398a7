import type { CreateInvoiceBody, CreateInvoiceResponse, InvoicesResponse, StatementResponse } from '@portal/contract';
import { request } from './client.ts';
import { useApiMutation } from './mutation.ts';

export const INVOICES_QUERY_KEY = ['invoices'];
export const STATEMENT_QUERY_KEY = ['statement'];

export const createInvoice = (body: CreateInvoiceBody) => request<CreateInvoiceResponse>('/invoices/create-invoice', { method: 'POST', body });
export const readInvoices = (page: number, limit: number) => request<InvoicesResponse>(`/invoices/readAll?page=${page}&limit=${limit}`);
export const readStatement = (page: number, limit: number) => request<StatementResponse>(`/account/statement?page=${page}&limit=${limit}`);

/** Add Balance: an invoice, and the browser sent to its hosted payment page. */
export const useCreateInvoice = () =>
  useApiMutation({
    call: createInvoice,
    onSuccess: ({ data }) => window.location.assign(data.hosted_url),
  });
