import { z } from 'zod';

/** Deposit limits in dollars. */
export const DEPOSIT_MIN = 1;
export const DEPOSIT_MAX = 100_000;

/** Methods the Add Balance form offers (spec: Crypto only). */
export const PAYMENT_METHODS = ['crypto'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** Payment providers the server can be configured with (PAYMENT_PROVIDER). */
export const PAYMENT_PROVIDERS = ['sandbox', 'btcpay'] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];

export const INVOICE_STATUSES = ['pending', 'paid', 'cancelled', 'expired'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/**
 * Deposit bonus tiers, highest first: an amount strictly above `above` dollars earns `percent`.
 * Exactly $200 earns nothing; $200.01 earns 2%.
 */
export const BONUS_TIERS = [
  { above: 1000, percent: 7 },
  { above: 500, percent: 4 },
  { above: 200, percent: 2 },
] as const;

/** The bonus percent for a deposit of this many dollars (compared in cents, so 200.01 is above 200). */
export function bonusPercent(amountDollars: number): number {
  const cents = Math.round(amountDollars * 100);
  return BONUS_TIERS.find((tier) => cents > tier.above * 100)?.percent ?? 0;
}

/** Bonus in cents, rounded down to a whole cent so it never exceeds the stated percent. */
export const bonusCents = (amountCents: number, percent: number): number => Math.floor((amountCents * percent) / 100);

/** How the Invoices table shows a payment method: stripe, paypal, cashapp, crypto, otherwise Manual. */
export function paymentMethodLabel(method: string): string {
  const known: Record<string, string> = { stripe: 'Stripe', paypal: 'PayPal', cashapp: 'Cash App', crypto: 'Crypto' };
  return known[method] ?? 'Manual';
}

/** How the Invoices table shows a status: paid is Completed, anything unknown is Expired. */
export function invoiceStatusLabel(status: string): string {
  const known: Record<string, string> = { pending: 'Pending', paid: 'Completed', cancelled: 'Cancelled' };
  return known[status] ?? 'Expired';
}

/** Ledger row kinds as the statement shows them. */
export const LEDGER_KIND_LABELS: Record<string, string> = {
  deposit: 'Deposit',
  deposit_bonus: 'Deposit bonus',
  order_charge: 'Order',
  order_refund: 'Order refund',
  bulk_charge: 'CSV order',
  bulk_refund: 'CSV order refund',
  fedex_charge: 'FedEx order',
  fedex_refund: 'FedEx order refund',
  adjustment: 'Adjustment',
};
export const ledgerKindLabel = (kind: string): string => LEDGER_KIND_LABELS[kind] ?? kind;

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
