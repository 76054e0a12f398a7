import type { DbOrTrx } from '../../db/database.ts';

export const listLabelTypeRows = (db: DbOrTrx, enabledOnly: boolean) => {
  let query = db.selectFrom('label_types').selectAll().orderBy('position').orderBy('name');
  if (enabledOnly) query = query.where('status', '=', 1);
  return query.execute();
};

/** A label type by its id or its uid. */
export const findLabelTypeRow = (db: DbOrTrx, ref: string) =>
  db
    .selectFrom('label_types')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', ref), eb('uid', '=', ref)]))
    .executeTakeFirst();

export const listPriceRows = (db: DbOrTrx, labelTypeIds: string[]) =>
  labelTypeIds.length === 0
    ? Promise.resolve([])
    : db.selectFrom('label_type_prices').selectAll().where('label_type_id', 'in', labelTypeIds).orderBy('label_type_id').orderBy('from_weight').execute();
