// Deposit limits, bonus tiers and how invoices and ledger rows are named, without zod (see index.ts).

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
  label_refund: 'Label refund',
  pickup_fee: 'Pickup',
  pickup_refund: 'Pickup refund',
  adjustment: 'Adjustment',
};
export const ledgerKindLabel = (kind: string): string => LEDGER_KIND_LABELS[kind] ?? kind;
