import { sql } from 'kysely';
import type { DbOrTrx, Trx } from '../../db/database.ts';
import { newId, nowIsoIncreasing } from '../../lib/ids.ts';
import { paymentRequired } from '../../lib/http-errors.ts';

export const INSUFFICIENT_BALANCE = 'Insufficient balance';

export type LedgerKind = 'deposit' | 'deposit_bonus' | 'order_charge' | 'order_refund' | 'bulk_charge' | 'bulk_refund' | 'fedex_charge' | 'fedex_refund' | 'adjustment';

export type BalanceChange = {
  userId: string;
  /** Positive credits, negative debits. */
  amountCents: number;
  kind: LedgerKind;
  /** What caused it (order id, invoice id, ...); unique per kind, so a cause moves money once. */
  reference: string | null;
  note?: string;
};

/**
 * The only way a balance changes: one conditional update (never below zero) and its ledger row,
 * in the caller's transaction. Throws 402 'Insufficient balance' when a debit does not fit.
 */
export async function changeBalance(trx: Trx, change: BalanceChange): Promise<number> {
  if (!Number.isSafeInteger(change.amountCents) || change.amountCents === 0) throw new Error(`Bad ledger amount ${change.amountCents}`);
  const updated = await trx
    .updateTable('users')
    .set({ balance_cents: sql`balance_cents + ${change.amountCents}` })
    .where('id', '=', change.userId)
    .where(sql<boolean>`balance_cents + ${change.amountCents} >= 0`)
    .returning('balance_cents')
    .executeTakeFirst();
  if (!updated) throw paymentRequired(INSUFFICIENT_BALANCE);
  await trx
    .insertInto('ledger')
    .values({
      id: newId(),
      user_id: change.userId,
      amount_cents: change.amountCents,
      balance_after_cents: updated.balance_cents,
      kind: change.kind,
      reference: change.reference,
      note: change.note ?? '',
      // Increasing, so a deposit and its bonus written together keep their order in a statement.
      created_at: nowIsoIncreasing(),
    })
    .execute();
  return updated.balance_cents;
}

export async function ledgerSumCents(db: DbOrTrx, userId: string): Promise<number> {
  const row = await db.selectFrom('ledger').select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_cents'), sql<number>`0`).as('total')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.total);
}
