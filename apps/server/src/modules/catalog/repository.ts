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

/** What the label types are bought as at each upstream. */
export const listUpstreamServiceRows = (db: DbOrTrx, labelTypeIds: string[]) =>
  labelTypeIds.length === 0 ? Promise.resolve([]) : db.selectFrom('upstream_services').selectAll().where('label_type_id', 'in', labelTypeIds).execute();

/**
 * What the label type is bought as at one upstream (its carrier, service and account there), or null for none. The
 * type's row is touched too, so the catalog's version moves (its triggers watch label_types) and every process reads
 * the new mapping.
 */
export async function setUpstream(
  db: DbOrTrx,
  id: string,
  upstream: string,
  mapped: { carrier: string; service: string; carrierAccount: string | null } | null,
): Promise<void> {
  await db.deleteFrom('upstream_services').where('label_type_id', '=', id).where('upstream', '=', upstream).execute();
  if (mapped)
    await db
      .insertInto('upstream_services')
      .values({ label_type_id: id, upstream, carrier: mapped.carrier, service: mapped.service, carrier_account: mapped.carrierAccount })
      .execute();
  await db
    .updateTable('label_types')
    .set((eb) => ({ status: eb.ref('status') }))
    .where('id', '=', id)
    .execute();
}
