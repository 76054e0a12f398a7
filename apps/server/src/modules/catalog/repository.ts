import type { DbOrTrx } from '../../db/database.ts';
import type { LabelTypePricesTable, LabelTypesTable } from '../../db/schema.ts';

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

/** A label type (by its id or its uid) and its price rows, in one query; undefined when there is none. */
export async function findLabelTypeWithPrices(db: DbOrTrx, ref: string): Promise<{ row: LabelTypesTable; prices: Pick<LabelTypePricesTable, 'from_weight' | 'to_weight' | 'price_cents'>[] } | undefined> {
  const rows = await db
    .selectFrom('label_types')
    .leftJoin('label_type_prices', 'label_type_prices.label_type_id', 'label_types.id')
    .selectAll('label_types')
    .select(['label_type_prices.from_weight', 'label_type_prices.to_weight', 'label_type_prices.price_cents'])
    .where((eb) => eb.or([eb('label_types.id', '=', ref), eb('label_types.uid', '=', ref)]))
    .orderBy('label_types.id')
    .orderBy('label_type_prices.from_weight')
    .execute();
  if (rows.length === 0) return undefined;
  const { from_weight: _from, to_weight: _to, price_cents: _price, ...row } = rows[0];
  // A type without tiers comes as one row of nulls (the left join); an id and a uid may name two types: the first is taken.
  const prices = rows.filter((r) => r.id === row.id && r.from_weight !== null).map((r) => ({ from_weight: r.from_weight!, to_weight: r.to_weight!, price_cents: r.price_cents! }));
  return { row, prices };
}

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
