import type { DbOrTrx } from '../../db/database.ts';
import type { InvoicesTable } from '../../db/schema.ts';

export type InvoiceRow = InvoicesTable;

export const insertInvoice = (db: DbOrTrx, invoice: InvoiceRow) => db.insertInto('invoices').values(invoice).execute();

export const findInvoiceByProviderRef = (db: DbOrTrx, provider: string, providerInvoiceId: string) =>
  db.selectFrom('invoices').selectAll().where('provider', '=', provider).where('provider_invoice_id', '=', providerInvoiceId).executeTakeFirst();

/** Pending invoices whose time is up become expired. */
export const expireOverdueInvoices = (db: DbOrTrx, now: string) =>
  db.updateTable('invoices').set({ status: 'expired' }).where('status', '=', 'pending').where('expires_at', '<=', now).execute();

/** Moves an invoice to a new status only from one of the given ones; false when another change got there first. */
export async function changeInvoiceStatus(db: DbOrTrx, id: string, from: string[], to: Partial<Pick<InvoiceRow, 'status' | 'paid_at'>>): Promise<boolean> {
  const result = await db.updateTable('invoices').set(to).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function listInvoices(db: DbOrTrx, userId: string, offset: number, limit: number): Promise<{ rows: InvoiceRow[]; total: number }> {
  const rows = await db
    .selectFrom('invoices')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
  const count = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}

export async function listLedger(db: DbOrTrx, userId: string, offset: number, limit: number) {
  const rows = await db
    .selectFrom('ledger')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
  const count = await db
    .selectFrom('ledger')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}

/** The ledger row of a cause (its kind and reference), or undefined. */
export const findLedgerEntry = (db: DbOrTrx, kind: string, reference: string) =>
  db.selectFrom('ledger').selectAll().where('kind', '=', kind).where('reference', '=', reference).executeTakeFirst();

export const balanceCentsOf = async (db: DbOrTrx, userId: string): Promise<number> =>
  (await db.selectFrom('users').select('balance_cents').where('id', '=', userId).executeTakeFirst())?.balance_cents ?? 0;
