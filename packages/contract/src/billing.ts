import { z } from 'zod';
import { DEPOSIT_MIN, DEPOSIT_MAX, PAYMENT_METHODS } from './billing-values.ts';

const hasAtMostTwoDecimals = (n: number) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6;

/** Dollars, 1..100000, at most 2 decimals; a numeric string (from a form field) is accepted too. */
export const depositAmountSchema = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
  z
    .number({ error: (issue) => (issue.input === undefined || issue.input === null || issue.input === '' ? 'Amount is required' : 'Amount must be a number') })
    .min(DEPOSIT_MIN, `Minimum deposit is $${DEPOSIT_MIN}`)
    .max(DEPOSIT_MAX, 'Maximum deposit is $100,000')
    .refine(hasAtMostTwoDecimals, 'Amount must have at most 2 decimal places'),
);

export const createInvoiceBody = z.object({
  amount: depositAmountSchema,
  type: z.enum(PAYMENT_METHODS, { error: 'Payment method must be crypto' }),
});
export type CreateInvoiceBody = z.input<typeof createInvoiceBody>;

/** POST /invoices/create-invoice: the browser goes to data.hosted_url. */
export const createInvoiceResponse = z.object({
  message: z.string(),
  data: z.object({ _id: z.string(), hosted_url: z.string() }),
});
export type CreateInvoiceResponse = z.infer<typeof createInvoiceResponse>;

export const invoiceSchema = z.object({
  _id: z.string(),
  /** ISO-8601. */
  createdAt: z.string(),
  /** Dollars with two decimals. */
  amount: z.number(),
  /** Percent, fixed when the invoice was created. */
  bonus: z.number(),
  payment_method: z.string(),
  /** pending | paid | cancelled | expired. */
  status: z.string(),
  /** The hosted payment page while the invoice is pending, else null. */
  hosted_url: z.string().nullable(),
});
export type Invoice = z.infer<typeof invoiceSchema>;

/** GET /invoices/readAll?page=&limit=, newest first. */
export const invoicesResponse = z.object({ invoices: z.array(invoiceSchema), totalPages: z.number(), total: z.number() });
export type InvoicesResponse = z.infer<typeof invoicesResponse>;

export const statementEntrySchema = z.object({
  _id: z.string(),
  createdAt: z.string(),
  /** deposit, deposit_bonus, order_charge, order_refund, ...; see LEDGER_KIND_LABELS. */
  kind: z.string(),
  /** Dollars; positive credits, negative debits. */
  amount: z.number(),
  /** The balance in dollars right after this row. */
  balance: z.number(),
  /** What caused it: an invoice id, an order id, ... */
  reference: z.string().nullable(),
  note: z.string(),
});
export type StatementEntry = z.infer<typeof statementEntrySchema>;

/** GET /account/statement?page=&limit=, newest first; balance is the current balance in dollars. */
export const statementResponse = z.object({ entries: z.array(statementEntrySchema), totalPages: z.number(), total: z.number(), balance: z.number() });
export type StatementResponse = z.infer<typeof statementResponse>;

export const webhookParams = z.object({ provider: z.string().min(1).max(32) });
