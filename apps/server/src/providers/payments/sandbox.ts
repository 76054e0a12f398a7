import type { Db } from '../../db/database.ts';
import type { SandboxInvoicesTable } from '../../db/schema.ts';
import { newId, nowIso } from '../../lib/ids.ts';
import { RELEVANT_EVENTS, hasValidSignature, parseJsonObject, signBody, type PaymentProvider, type ProviderInvoiceState } from './payment-provider.ts';

export const SANDBOX_SIGNATURE_HEADER = 'sandbox-sig';

export type SandboxInvoice = SandboxInvoicesTable & { state: ProviderInvoiceState };
export type SandboxAction = 'pay' | 'expire';

export type SandboxPaymentProvider = PaymentProvider & {
  readonly name: 'sandbox';
  /** The hosted page's view of an invoice; a new one past its time reads as expired. */
  findInvoice(id: string): Promise<SandboxInvoice | null>;
  /** Settles or expires a still-open invoice and returns the signed webhook to deliver; null when it was no longer open. */
  simulate(id: string, action: SandboxAction): Promise<{ body: string; signature: string } | null>;
};

export const isSandbox = (provider: PaymentProvider): provider is SandboxPaymentProvider => provider.name === 'sandbox';

function stateOf(row: SandboxInvoicesTable, now: string): ProviderInvoiceState {
  if (row.status === 'settled') return 'paid';
  if (row.status === 'expired' || row.expires_at <= now) return 'expired';
  return 'pending';
}

/**
 * A payment provider that moves no real money: it keeps its invoices in its own table, serves a
 * hosted page on our server (/pay/{id}), and reports payments through signed webhooks exactly like
 * a real provider, so crediting takes the one verified path.
 */
export function createSandboxPaymentProvider(db: Db, webhookSecret: string): SandboxPaymentProvider {
  const find = (id: string) => db.selectFrom('sandbox_invoices').selectAll().where('id', '=', id).executeTakeFirst();

  return {
    name: 'sandbox',

    async createInvoice(input) {
      const id = newId();
      await db
        .insertInto('sandbox_invoices')
        .values({
          id,
          order_id: input.invoiceId,
          amount_cents: input.amountCents,
          currency: input.currency,
          status: 'new',
          return_url: input.returnUrl,
          expires_at: input.expiresAt,
          created_at: nowIso(),
        })
        .execute();
      return { providerInvoiceId: id, hostedUrl: `${input.baseUrl}/pay/${id}`, expiresAt: input.expiresAt };
    },

    parseWebhook(rawBody, headers) {
      if (!hasValidSignature(webhookSecret, rawBody, headers[SANDBOX_SIGNATURE_HEADER])) return null;
      const body = parseJsonObject(rawBody);
      if (!body || typeof body.invoiceId !== 'string' || typeof body.type !== 'string') return null;
      return { providerInvoiceId: body.invoiceId, type: body.type, relevant: RELEVANT_EVENTS.has(body.type) };
    },

    async fetchInvoice(id) {
      const row = await find(id);
      return row ? { state: stateOf(row, nowIso()), amountCents: row.amount_cents, currency: row.currency, orderId: row.order_id } : null;
    },

    async findInvoice(id) {
      const row = await find(id);
      return row ? { ...row, state: stateOf(row, nowIso()) } : null;
    },

    async simulate(id, action) {
      const now = nowIso();
      let query = db
        .updateTable('sandbox_invoices')
        .set({ status: action === 'pay' ? 'settled' : 'expired' })
        .where('id', '=', id)
        .where('status', '=', 'new');
      if (action === 'pay') query = query.where('expires_at', '>', now);
      const result = await query.executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return null;
      const body = JSON.stringify({
        deliveryId: newId(),
        type: action === 'pay' ? 'InvoiceSettled' : 'InvoiceExpired',
        timestamp: Math.floor(Date.now() / 1000),
        storeId: 'sandbox',
        invoiceId: id,
      });
      return { body, signature: signBody(webhookSecret, body) };
    },
  };
}
