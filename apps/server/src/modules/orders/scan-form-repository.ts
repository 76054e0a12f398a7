import type { DbOrTrx } from '../../db/database.ts';
import type { ScanFormsTable } from '../../db/schema.ts';

export type ScanFormRow = ScanFormsTable;

export const insertForm = (db: DbOrTrx, row: ScanFormRow) => db.insertInto('scan_forms').values(row).execute();

/**
 * Puts the user's labels among `orderIds` on the form, each only if it is still completed, not refunded or asked to be,
 * and on no form: one conditional update, so a concurrent refund request or form takes each label once. The ids taken.
 */
export async function takeLabels(db: DbOrTrx, formId: string, userId: string, orderIds: string[]): Promise<string[]> {
  const rows = await db
    .updateTable('orders')
    .set({ scan_form_id: formId })
    .where('id', 'in', orderIds)
    .where('user_id', '=', userId)
    .where('status', '=', 'completed')
    .where('refund_status', 'is', null)
    .where('scan_form_id', 'is', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** A failed form's labels may go on another form (or be refunded). */
export const releaseLabels = (db: DbOrTrx, formId: string) => db.updateTable('orders').set({ scan_form_id: null }).where('scan_form_id', '=', formId).execute();

/** The labels on a form, in the order they were bought. */
export const formLabels = (db: DbOrTrx, formId: string) =>
  db
    .selectFrom('orders')
    .select(['id', 'tracking', 'upstream_ref', 'upstream_rate_id', 'to_name'])
    .where('scan_form_id', '=', formId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const findForm = (db: DbOrTrx, id: string) => db.selectFrom('scan_forms').selectAll().where('id', '=', id).executeTakeFirst();
export const findOwnForm = (db: DbOrTrx, userId: string, id: string) =>
  db.selectFrom('scan_forms').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();

export const listOwnForms = (db: DbOrTrx, userId: string, limit: number) =>
  db.selectFrom('scan_forms').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();

/** Every customer's newest forms (the console), or one customer's (their page), a failed one with its reason. */
export const listForms = (db: DbOrTrx, limit: number, filter: { status?: ScanFormRow['status']; userId?: string }) => {
  let query = db
    .selectFrom('scan_forms')
    .innerJoin('users', 'users.id', 'scan_forms.user_id')
    .selectAll('scan_forms')
    .select(['users.tg_id as owner_tg_id', 'users.username as owner_username']);
  if (filter.status) query = query.where('scan_forms.status', '=', filter.status);
  if (filter.userId) query = query.where('scan_forms.user_id', '=', filter.userId);
  return query.orderBy('scan_forms.created_at', 'desc').orderBy('scan_forms.id', 'desc').limit(limit).execute();
};

/**
 * Takes a creating form that is due for this process: held until `until` (another process leaves it alone meanwhile),
 * its takes counted. Undefined when it is not due, held elsewhere, or decided.
 */
export const takeForm = (db: DbOrTrx, id: string, now: string, until: string) =>
  db
    .updateTable('scan_forms')
    .set((eb) => ({ due_at: until, claims: eb('claims', '+', 1), updated_at: now }))
    .where('id', '=', id)
    .where('status', '=', 'creating')
    .where((eb) => eb.or([eb('due_at', 'is', null), eb('due_at', '<=', now)]))
    .returningAll()
    .executeTakeFirst();

/** Creating forms whose next ask is due. */
export const dueForms = (db: DbOrTrx, now: string, limit: number) =>
  db.selectFrom('scan_forms').select('id').where('status', '=', 'creating').where('due_at', '<=', now).orderBy('due_at').limit(limit).execute();

export const setForm = (db: DbOrTrx, id: string, set: Partial<ScanFormRow>) => db.updateTable('scan_forms').set(set).where('id', '=', id).execute();

/** Decides a creating form (created or failed), once: false when it was decided before. */
export async function decideForm(db: DbOrTrx, id: string, set: Partial<ScanFormRow>): Promise<boolean> {
  const result = await db.updateTable('scan_forms').set(set).where('id', '=', id).where('status', '=', 'creating').executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
