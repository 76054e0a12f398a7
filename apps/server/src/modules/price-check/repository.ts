import type { DbOrTrx } from '../../db/database.ts';
import type { ReferencePackagesTable } from '../../db/schema.ts';

export type ReferencePackageRow = ReferencePackagesTable;
const LAST = 'last';

/** Every reference package, oldest first. */
export const listReferencePackages = (db: DbOrTrx) => db.selectFrom('reference_packages').selectAll().orderBy('created_at').orderBy('id').execute();
export const findReferencePackage = (db: DbOrTrx, id: string) => db.selectFrom('reference_packages').selectAll().where('id', '=', id).executeTakeFirst();
export async function countReferencePackages(db: DbOrTrx): Promise<number> {
  const row = await db
    .selectFrom('reference_packages')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
export const insertReferencePackage = (db: DbOrTrx, row: ReferencePackageRow) => db.insertInto('reference_packages').values(row).execute();
export const updateReferencePackage = (db: DbOrTrx, id: string, change: Omit<ReferencePackageRow, 'id' | 'created_at'>) =>
  db.updateTable('reference_packages').set(change).where('id', '=', id).execute();
export const deleteReferencePackage = (db: DbOrTrx, id: string) => db.deleteFrom('reference_packages').where('id', '=', id).execute();

/** The last price check's answer (JSON) and when it ran, or undefined. */
export const lastPriceCheck = (db: DbOrTrx) => db.selectFrom('price_checks').select(['checked_at', 'result_json']).where('id', '=', LAST).executeTakeFirst();
export const keepPriceCheck = (db: DbOrTrx, checkedAt: string, resultJson: string) =>
  db
    .insertInto('price_checks')
    .values({ id: LAST, checked_at: checkedAt, result_json: resultJson })
    .onConflict((oc) => oc.column('id').doUpdateSet({ checked_at: checkedAt, result_json: resultJson }))
    .execute();
/** Forgets the last check (its packages, prices or mappings changed): the next visit runs one anew. */
export const forgetPriceCheck = (db: DbOrTrx) => db.deleteFrom('price_checks').where('id', '=', LAST).execute();
