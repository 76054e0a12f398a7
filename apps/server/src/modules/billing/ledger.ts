import { sql } from 'kysely';
import { isPostgres, type DbOrTrx, type Trx } from '../../db/database.ts';
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
  const entry = {
    id: newId(),
    user_id: change.userId,
    amount_cents: change.amountCents,
    kind: change.kind,
    reference: change.reference,
    note: change.note ?? '',
    // Increasing, so a deposit and its bonus written together keep their order in a statement.
    created_at: nowIsoIncreasing(),
  };
  const debited = trx
    .updateTable('users')
    .set({ balance_cents: sql`balance_cents + ${change.amountCents}` })
    .where('id', '=', change.userId)
    .where(sql<boolean>`balance_cents + ${change.amountCents} >= 0`)
    .returning('balance_cents');
  if (isPostgres(trx)) {
    // One statement: the user's row stays locked (until commit) one round trip less, and a customer's orders queue on it.
    const written = await trx
      .with('changed', () => debited)
      .insertInto('ledger')
      .columns(['id', 'user_id', 'amount_cents', 'balance_after_cents', 'kind', 'reference', 'note', 'created_at'])
      .expression((eb) =>
        eb
          .selectFrom('changed')
          .select([
            sql.val(entry.id).as('id'),
            sql.val(entry.user_id).as('user_id'),
            sql.val(entry.amount_cents).as('amount_cents'),
            'balance_cents',
            sql.val(entry.kind).as('kind'),
            sql.val(entry.reference).as('reference'),
            sql.val(entry.note).as('note'),
            sql.val(entry.created_at).as('created_at'),
          ]),
      )
      .returning('balance_after_cents')
      .executeTakeFirst();
    if (!written) throw paymentRequired(INSUFFICIENT_BALANCE);
    return written.balance_after_cents;
  }
  const updated = await debited.executeTakeFirst();
  if (!updated) throw paymentRequired(INSUFFICIENT_BALANCE);
  await trx.insertInto('ledger').values({ ...entry, balance_after_cents: updated.balance_cents }).execute();
  return updated.balance_cents;
}

export async function ledgerSumCents(db: DbOrTrx, userId: string): Promise<number> {
  const row = await db.selectFrom('ledger').select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_cents'), sql<number>`0`).as('total')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.total);
}
