import type { DbOrTrx } from '../../db/database.ts';
import type { LabelTypePricesTable, LabelTypesTable } from '../../db/schema.ts';

/** Every label type, in catalog order. */
export const listLabelTypeRows = (db: DbOrTrx) => db.selectFrom('label_types').selectAll().orderBy('position').orderBy('name').execute();

/** A label type by its id or its uid. */
export const findLabelTypeRow = (db: DbOrTrx, ref: string) =>
  db
    .selectFrom('label_types')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', ref), eb('uid', '=', ref)]))
    .executeTakeFirst();

/** The catalog's version: it moves with every change to a label type or its tiers (triggers). */
export const catalogVersion = async (db: DbOrTrx): Promise<number> =>
  Number((await db.selectFrom('catalog_version').select('version').where('id', '=', 1).executeTakeFirstOrThrow()).version);

export const listPriceRows = (db: DbOrTrx, labelTypeIds: string[]) =>
  labelTypeIds.length === 0
    ? Promise.resolve([])
    : db.selectFrom('label_type_prices').selectAll().where('label_type_id', 'in', labelTypeIds).orderBy('label_type_id').orderBy('from_weight').execute();

export const updateLabelType = (db: DbOrTrx, id: string, changes: Pick<LabelTypesTable, 'name' | 'max_weight' | 'status'>) =>
  db.updateTable('label_types').set(changes).where('id', '=', id).execute();

/** Puts this set of tiers in place of the type's tiers (in the caller's transaction). */
export async function replacePriceRows(db: DbOrTrx, labelTypeId: string, rows: LabelTypePricesTable[]): Promise<void> {
  await db.deleteFrom('label_type_prices').where('label_type_id', '=', labelTypeId).execute();
  if (rows.length) await db.insertInto('label_type_prices').values(rows).execute();
}

/** What the label type is bought as upstream (EasyPost's carrier, service and account), or null for none. */
export const setUpstream = (db: DbOrTrx, id: string, upstream: { carrier: string; service: string; carrierAccount: string | null } | null) =>
  db
    .updateTable('label_types')
    .set({
      upstream_carrier: upstream?.carrier ?? null,
      upstream_service: upstream?.service ?? null,
      upstream_carrier_account: upstream?.carrierAccount ?? null,
    })
    .where('id', '=', id)
    .execute();
