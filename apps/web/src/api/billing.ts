import type { CreateInvoiceBody, CreateInvoiceResponse, InvoicesResponse, StatementResponse } from '@portal/contract';
import { queryOptions } from '@tanstack/react-query';
import { request } from './client.ts';
import { useApiMutation } from './mutation.ts';

export const createInvoice = (body: CreateInvoiceBody) => request<CreateInvoiceResponse>('/invoices/create-invoice', { method: 'POST', body });
export const readInvoices = (page: number, limit: number) => request<InvoicesResponse>(`/invoices/readAll?page=${page}&limit=${limit}`);
export const readStatement = (page: number, limit: number) => request<StatementResponse>(`/account/statement?page=${page}&limit=${limit}`);

/** A page of the deposit invoices or of the statement, as the Deposits page shows them. */
export const BILLING_PAGE_SIZE = 10;
export const invoicesQuery = (page: number) => queryOptions({ queryKey: ['invoices', page], queryFn: () => readInvoices(page, BILLING_PAGE_SIZE) });
export const statementQuery = (page: number) => queryOptions({ queryKey: ['statement', page], queryFn: () => readStatement(page, BILLING_PAGE_SIZE) });

/** Add Balance: an invoice, and the browser sent to its hosted payment page. */
export const useCreateInvoice = () =>
  useApiMutation({
    call: createInvoice,
    onSuccess: ({ data }) => window.location.assign(data.hosted_url),
  });
