import crypto from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { PaymentProviderName } from '@portal/contract';

/** What a provider says an invoice is now: only 'paid' moves money. */
export type ProviderInvoiceState = 'pending' | 'paid' | 'expired' | 'invalid';

export type CreateHostedInvoice = {
  /** Our invoice id; the provider keeps it as its order id. */
  invoiceId: string;
  amountCents: number;
  currency: 'USD';
  /** Where the hosted page sends the customer back (our /deposits). */
  returnUrl: string;
  /** Our own origin, for a provider whose page we serve ourselves (the sandbox). */
  baseUrl: string;
  expiresAt: string;
};

export type HostedInvoice = { providerInvoiceId: string; hostedUrl: string; expiresAt: string };

/** A verified webhook: which provider invoice it is about and what kind of event it is. */
export type WebhookEvent = {
  providerInvoiceId: string;
  /** The provider's event type, e.g. InvoiceSettled. */
  type: string;
  /** True for the events that may change an invoice (settled, expired, invalid); others are acknowledged and ignored. */
  relevant: boolean;
};

/** The invoice as the provider reports it when asked directly. */
export type ProviderInvoice = {
  state: ProviderInvoiceState;
  amountCents: number;
  currency: string;
  /** Our invoice id as the provider stored it. */
  orderId: string | null;
};

export interface PaymentProvider {
  readonly name: PaymentProviderName;
  createInvoice(input: CreateHostedInvoice): Promise<HostedInvoice>;
  /** Verifies the signature over the exact request bytes; null when it is missing or wrong, or the body is unreadable. */
  parseWebhook(rawBody: Buffer, headers: IncomingHttpHeaders): WebhookEvent | null;
  /** Asks the provider again, so a webhook is never trusted on its own; null when it does not know the invoice. */
  fetchInvoice(providerInvoiceId: string): Promise<ProviderInvoice | null>;
}

/** Webhook event types (BTCPay's names, which the sandbox copies) that can change an invoice; others are acknowledged. */
export const RELEVANT_EVENTS = new Set(['InvoiceSettled', 'InvoiceExpired', 'InvoiceInvalid']);

/** Thrown when the provider cannot be reached or answers with an error. */
export class PaymentProviderError extends Error {}

/** `sha256=<hex HMAC-SHA256 of the body>`, the signature format BTCPay uses and the sandbox copies. */
export const signBody = (secret: string, body: Buffer | string): string => `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;

/** Constant-time check of a `sha256=<hex>` signature header over the raw body. */
export function hasValidSignature(secret: string, rawBody: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(signBody(secret, rawBody));
  const given = Buffer.from(header.trim().toLowerCase());
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/** A JSON object from the body, or null. */
export function parseJsonObject(rawBody: Buffer): Record<string, unknown> | null {
  try {
    const value = JSON.parse(rawBody.toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** Cents as a decimal string, '250.00'. */
export const centsToDecimal = (cents: number): string => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

/** A decimal string ('250', '250.00', '250.0000') as exact cents; NaN when it is not a whole number of cents. */
export function decimalToCents(value: unknown): number {
  const m = typeof value === 'string' || typeof value === 'number' ? /^(\d+)(?:\.(\d+))?$/.exec(String(value)) : null;
  if (!m) return NaN;
  const fraction = (m[2] ?? '').padEnd(2, '0');
  if (/[1-9]/.test(fraction.slice(2))) return NaN;
  return Number(m[1]) * 100 + Number(fraction.slice(0, 2));
}
