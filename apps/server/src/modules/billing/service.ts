import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import {
  ADJUSTMENT_BELOW_ZERO,
  IDEMPOTENCY_KEY_REUSED,
  bonusCents,
  bonusPercent,
  centsToDollars,
  dollarsToCents,
  type CreateInvoiceResponse,
  type InvoicesResponse,
  type PaymentMethod,
  type StatementResponse,
} from '@portal/contract';
import { lockUser, type Db } from '../../db/database.ts';
import type { AuditHook } from '../../lib/audit.ts';
import { HttpError, badRequest, conflict, notFound, providerUnavailable, unauthorized } from '../../lib/http-errors.ts';
import { isoIn, newId, nowIso, nowIsoIncreasing, sha256Hex } from '../../lib/ids.ts';
import { eventRow, idleOutbox, recordEvents, type ShopEventOutbox, type ShopEventRow } from '../../lib/shop-events.ts';
import type { Metrics } from '../../lib/metrics.ts';
import type { PaymentProvider, ProviderInvoice } from '../../providers/payments/payment-provider.ts';
import { INSUFFICIENT_BALANCE, changeBalance } from './ledger.ts';

// The one balance function every module uses: a ledger row with each change, in the caller's transaction.
export { changeBalance, ledgerSumCents, INSUFFICIENT_BALANCE, type LedgerKind } from './ledger.ts';
import * as repo from './repository.ts';

export const INVALID_SIGNATURE = 'Invalid webhook signature';
export const INVOICE_NOT_FOUND = 'Invoice not found';
export const UNKNOWN_PROVIDER = 'Unknown payment provider';
export const PROVIDER_UNAVAILABLE = 'Payment provider unavailable, please try again in a minute';
export const PROVIDER_MISMATCH = 'The payment provider does not confirm this invoice';
/** The provider and payment method of an operator's manual credit: a paid invoice no payment provider knows. */
export const MANUAL_PROVIDER = 'manual';

const totalPages = (total: number, limit: number) => Math.ceil(total / limit) || 1;

/** An id shaped like the others (a UUID, version 5's layout) made from a name: the same name, the same id. */
function idOf(name: string): string {
  const h = sha256Hex(name);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${'89ab'[parseInt(h[16], 16) & 3]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function createBillingService(deps: {
  db: Db;
  payments: PaymentProvider;
  invoiceTtlMinutes: number;
  log: FastifyBaseLogger;
  /** Given the event of a paid deposit credited once it is committed. */
  outbox?: ShopEventOutbox;
  metrics?: Pick<Metrics, 'depositsCredited' | 'depositsCreditedCents'>;
}) {
  const { db, payments, log, metrics } = deps;
  const outbox = deps.outbox ?? idleOutbox;

  /**
   * Credits the amount and the bonus as two ledger rows, once: only the transaction that moves the invoice to paid
   * credits. Its deposit.credited event is written in that transaction.
   */
  async function credit(invoice: repo.InvoiceRow): Promise<boolean> {
    const credited = await db.transaction().execute(async (trx): Promise<ShopEventRow | null> => {
      const at = nowIso();
      const won = await repo.changeInvoiceStatus(trx, invoice.id, ['pending', 'expired', 'cancelled'], { status: 'paid', paid_at: at });
      if (!won) return null;
      const via = `${invoice.provider} invoice ${invoice.provider_invoice_id}`;
      let balanceCents = await changeBalance(trx, {
        userId: invoice.user_id,
        amountCents: invoice.amount_cents,
        kind: 'deposit',
        reference: invoice.id,
        note: `Deposit via ${via}`,
      });
      if (invoice.bonus_cents > 0) {
        balanceCents = await changeBalance(trx, {
          userId: invoice.user_id,
          amountCents: invoice.bonus_cents,
          kind: 'deposit_bonus',
          reference: invoice.id,
          note: `${invoice.bonus_percent}% deposit bonus`,
        });
      }
      const { amount_cents: amountCents, bonus_percent: bonusPercent, bonus_cents: bonusCents } = invoice;
      const event = eventRow(
        { type: 'deposit.credited', userId: invoice.user_id, invoiceId: invoice.id, amountCents, bonusPercent, bonusCents, balanceCents },
        at,
      );
      await recordEvents(trx, [event]);
      return event;
    });
    if (!credited) return false;
    metrics?.depositsCredited.inc();
    metrics?.depositsCreditedCents.inc(invoice.amount_cents + invoice.bonus_cents);
    outbox.committed([credited]);
    return true;
  }

  /** Brings our invoice to what the provider confirms; 'paid' is final and only 'paid' moves money. */
  async function apply(invoice: repo.InvoiceRow, confirmed: ProviderInvoice): Promise<{ message: string }> {
    switch (confirmed.state) {
      case 'paid':
        if (confirmed.amountCents !== invoice.amount_cents || confirmed.currency !== 'USD') {
          log.error({ invoiceId: invoice.id, confirmed }, 'provider reports a paid amount that does not match the invoice; not credited');
          throw conflict(PROVIDER_MISMATCH);
        }
        return { message: (await credit(invoice)) ? 'Invoice credited' : 'Invoice already paid' };
      case 'expired':
        await repo.changeInvoiceStatus(db, invoice.id, ['pending'], { status: 'expired' });
        return { message: 'Invoice expired' };
      case 'invalid':
        await repo.changeInvoiceStatus(db, invoice.id, ['pending', 'expired'], { status: 'cancelled' });
        return { message: 'Invoice cancelled' };
      default:
        return { message: 'Invoice still pending' };
    }
  }

  return {
    async createInvoice(userId: string, input: { amount: number; type: PaymentMethod }, baseUrl: string): Promise<CreateInvoiceResponse> {
      const amountCents = dollarsToCents(input.amount);
      const percent = bonusPercent(input.amount);
      const id = newId();
      let hosted;
      try {
        hosted = await payments.createInvoice({
          invoiceId: id,
          amountCents,
          currency: 'USD',
          returnUrl: `${baseUrl}/deposits`,
          baseUrl,
          expiresAt: isoIn(deps.invoiceTtlMinutes * 60_000),
        });
      } catch (error) {
        log.error({ err: error }, 'payment provider could not create an invoice');
        throw providerUnavailable(PROVIDER_UNAVAILABLE);
      }
      await repo.insertInvoice(db, {
        id,
        user_id: userId,
        amount_cents: amountCents,
        bonus_percent: percent,
        bonus_cents: bonusCents(amountCents, percent),
        payment_method: input.type,
        status: 'pending',
        provider: payments.name,
        provider_invoice_id: hosted.providerInvoiceId,
        hosted_url: hosted.hostedUrl,
        expires_at: hosted.expiresAt,
        paid_at: null,
        created_at: nowIsoIncreasing(),
      });
      return { message: 'Invoice created', data: { _id: id, hosted_url: hosted.hostedUrl } };
    },

    async listInvoices(userId: string, page: number, limit: number): Promise<InvoicesResponse> {
      await repo.expireOverdueInvoices(db, nowIso());
      const { rows, total } = await repo.listInvoices(db, userId, (page - 1) * limit, limit);
      return {
        invoices: rows.map((row) => ({
          _id: row.id,
          createdAt: row.created_at,
          amount: centsToDollars(row.amount_cents),
          bonus: row.bonus_percent,
          payment_method: row.payment_method,
          status: row.status,
          hosted_url: row.status === 'pending' ? row.hosted_url : null,
        })),
        totalPages: totalPages(total, limit),
        total,
      };
    },

    async statement(userId: string, page: number, limit: number): Promise<StatementResponse> {
      const { rows, total } = await repo.listLedger(db, userId, (page - 1) * limit, limit);
      return {
        entries: rows.map((row) => ({
          _id: row.id,
          createdAt: row.created_at,
          kind: row.kind,
          amount: centsToDollars(row.amount_cents),
          balance: centsToDollars(row.balance_after_cents),
          reference: row.reference,
          note: row.note,
        })),
        totalPages: totalPages(total, limit),
        total,
        balance: centsToDollars(await repo.balanceCentsOf(db, userId)),
      };
    },

    /**
     * An operator's manual change of a balance: one 'adjustment' ledger row through changeBalance. A
     * credit also becomes a paid invoice (payment_method 'manual', provider 'manual') in the same
     * transaction, so the customer sees it in Invoices; a debit that would go below zero is refused
     * with 400 and nothing is written. Answers the new balance in cents.
     *
     * With an idempotency key (the operator's, unique to them), the adjustment's reference is made from it: a request
     * sent again with the same key, however often and even at the same moment, finds the adjustment made (the ledger
     * keeps one row per reference) and answers the balance it left, moving no money; the same key with another
     * customer, amount, direction or reason is refused (422).
     */
    async adjust(
      userId: string,
      input: { direction: 'credit' | 'debit'; amountCents: number; reason: string },
      audit: AuditHook,
      idempotencyKey?: string,
    ): Promise<number> {
      const amountCents = input.direction === 'credit' ? input.amountCents : -input.amountCents;
      return db.transaction().execute(async (trx) => {
        const reference = idempotencyKey === undefined ? newId() : idOf(`adjustment\n${idempotencyKey}`);
        if (idempotencyKey !== undefined) {
          // Requests with one key go one at a time from here: the second finds the first's row.
          await lockUser(trx, userId);
          const made = await repo.findLedgerEntry(trx, 'adjustment', reference);
          if (made) {
            if (made.user_id !== userId || Number(made.amount_cents) !== amountCents || made.note !== input.reason)
              throw new HttpError(422, IDEMPOTENCY_KEY_REUSED);
            return Number(made.balance_after_cents);
          }
        }
        if (input.direction === 'credit') {
          const at = nowIsoIncreasing();
          await repo.insertInvoice(trx, {
            id: reference,
            user_id: userId,
            amount_cents: input.amountCents,
            bonus_percent: 0,
            bonus_cents: 0,
            payment_method: MANUAL_PROVIDER,
            status: 'paid',
            provider: MANUAL_PROVIDER,
            provider_invoice_id: reference,
            hosted_url: '',
            expires_at: at,
            paid_at: at,
            created_at: at,
          });
        }
        let balance: number;
        try {
          balance = await changeBalance(trx, { userId, amountCents, kind: 'adjustment', reference, note: input.reason });
        } catch (error) {
          if (error instanceof HttpError && error.message === INSUFFICIENT_BALANCE) throw badRequest(ADJUSTMENT_BELOW_ZERO);
          throw error;
        }
        await audit(trx, {
          targetId: userId,
          before: { balance: centsToDollars(balance - amountCents) },
          after: { balance: centsToDollars(balance), direction: input.direction, amount: centsToDollars(input.amountCents), reason: input.reason, reference },
        });
        return balance;
      });
    },

    /**
     * A provider's webhook: the signature over the raw body is checked first (401, nothing read),
     * then the invoice is looked up (404), then the provider is asked again and its answer applied.
     */
    async handleWebhook(providerName: string, rawBody: Buffer, headers: IncomingHttpHeaders): Promise<{ message: string }> {
      // A manual credit is no provider's invoice: nothing a webhook says can touch it.
      if (providerName === MANUAL_PROVIDER || providerName !== payments.name) throw notFound(UNKNOWN_PROVIDER);
      const event = payments.parseWebhook(rawBody, headers);
      if (!event) throw unauthorized(INVALID_SIGNATURE);
      const invoice = await repo.findInvoiceByProviderRef(db, payments.name, event.providerInvoiceId);
      if (!invoice) throw notFound(INVOICE_NOT_FOUND);
      if (!event.relevant) return { message: `Event ${event.type} ignored` };
      if (invoice.status === 'paid') return { message: 'Invoice already paid' };
      let confirmed: ProviderInvoice | null;
      try {
        confirmed = await payments.fetchInvoice(event.providerInvoiceId);
      } catch (error) {
        log.error({ err: error, invoiceId: invoice.id }, 'payment provider could not confirm an invoice');
        throw providerUnavailable(PROVIDER_UNAVAILABLE);
      }
      if (!confirmed || confirmed.orderId !== invoice.id) {
        log.error({ invoiceId: invoice.id, confirmed }, 'provider does not confirm the invoice a webhook names');
        throw conflict(PROVIDER_MISMATCH);
      }
      return apply(invoice, confirmed);
    },
  };
}
export type BillingService = ReturnType<typeof createBillingService>;
