import {
  RELEVANT_EVENTS,
  hasValidSignature,
  parseJsonObject,
  PaymentProviderError,
  centsToDecimal,
  decimalToCents,
  type PaymentProvider,
  type ProviderInvoiceState,
} from './payment-provider.ts';

export type BtcpayOptions = { url: string; storeId: string; apiKey: string; webhookSecret: string; timeoutMs?: number };

/** Greenfield InvoiceStatus -> ours. Processing means paid but not yet confirmed: not credited until Settled. */
const STATES: Record<string, ProviderInvoiceState> = { New: 'pending', Processing: 'pending', Settled: 'paid', Expired: 'expired', Invalid: 'invalid' };

/**
 * BTCPay Server through its Greenfield API: invoices are created on the store and paid on BTCPay's
 * checkout page; the store's webhook (pointed at /api/v1/invoices/webhook/btcpay, with the same
 * secret) reports changes, and each change is confirmed by reading the invoice back.
 */
export function createBtcpayPaymentProvider(options: BtcpayOptions): PaymentProvider {
  const base = `${options.url.replace(/\/+$/, '')}/api/v1/stores/${encodeURIComponent(options.storeId)}/invoices`;
  const headers = { authorization: `token ${options.apiKey}`, 'content-type': 'application/json', accept: 'application/json' };
  const timeout = () => AbortSignal.timeout(options.timeoutMs ?? 15_000);

  async function call(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, { ...init, headers, signal: timeout() });
    } catch (error) {
      throw new PaymentProviderError(`BTCPay request failed: ${(error as Error).message}`);
    }
  }

  return {
    name: 'btcpay',

    async createInvoice(input) {
      const minutes = Math.max(1, Math.round((Date.parse(input.expiresAt) - Date.now()) / 60_000));
      const response = await call(base, {
        method: 'POST',
        body: JSON.stringify({
          amount: centsToDecimal(input.amountCents),
          currency: input.currency,
          metadata: { orderId: input.invoiceId },
          checkout: { redirectURL: input.returnUrl, redirectAutomatically: true, expirationMinutes: minutes },
        }),
      });
      if (!response.ok) throw new PaymentProviderError(`BTCPay create invoice answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
      const data = (await response.json()) as { id?: unknown; checkoutLink?: unknown; expirationTime?: unknown };
      if (typeof data.id !== 'string' || typeof data.checkoutLink !== 'string')
        throw new PaymentProviderError('BTCPay create invoice answered without id or checkoutLink');
      const expiresAt = typeof data.expirationTime === 'number' ? new Date(data.expirationTime * 1000).toISOString() : input.expiresAt;
      return { providerInvoiceId: data.id, hostedUrl: data.checkoutLink, expiresAt };
    },

    parseWebhook(rawBody, headers) {
      if (!hasValidSignature(options.webhookSecret, rawBody, headers['btcpay-sig'])) return null;
      const body = parseJsonObject(rawBody);
      if (!body || typeof body.invoiceId !== 'string' || typeof body.type !== 'string') return null;
      return { providerInvoiceId: body.invoiceId, type: body.type, relevant: RELEVANT_EVENTS.has(body.type) };
    },

    async fetchInvoice(id) {
      const response = await call(`${base}/${encodeURIComponent(id)}`, { method: 'GET' });
      if (response.status === 404) return null;
      if (!response.ok) throw new PaymentProviderError(`BTCPay get invoice answered ${response.status}`);
      const data = (await response.json()) as { status?: unknown; amount?: unknown; currency?: unknown; metadata?: { orderId?: unknown } };
      return {
        state: STATES[String(data.status)] ?? 'pending',
        amountCents: decimalToCents(data.amount),
        currency: String(data.currency ?? ''),
        orderId: typeof data.metadata?.orderId === 'string' ? data.metadata.orderId : null,
      };
    },
  };
}
