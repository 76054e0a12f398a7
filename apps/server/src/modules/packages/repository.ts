import type { DbOrTrx } from '../../db/database.ts';
import type { PackagesTable } from '../../db/schema.ts';

export type PackageRow = PackagesTable;
export type PackageFields = Omit<PackageRow, 'id' | 'user_id' | 'created_at'>;

/** The user's packages by name. */
export const listOwnPackages = (db: DbOrTrx, userId: string) =>
  db.selectFrom('packages').selectAll().where('user_id', '=', userId).orderBy('name_key').orderBy('id').execute();

export async function countOwnPackages(db: DbOrTrx, userId: string): Promise<number> {
  const row = await db
    .selectFrom('packages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const findOwnPackageByKey = (db: DbOrTrx, userId: string, nameKey: string) =>
  db.selectFrom('packages').selectAll().where('user_id', '=', userId).where('name_key', '=', nameKey).executeTakeFirst();

/** Inserts the package; false when the user has one of this name already (unique index). */
export async function insertPackage(db: DbOrTrx, row: PackageRow): Promise<boolean> {
  const result = await db
    .insertInto('packages')
    .values(row)
    .onConflict((oc) => oc.columns(['user_id', 'name_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/**
 * Changes the user's own package: 'missing' when there is none with this id for this user, 'taken' when another of
 * theirs has the new name (the unique index refused it: two renames at once cannot both take one name).
 */
export async function updateOwnPackage(db: DbOrTrx, userId: string, id: string, fields: PackageFields): Promise<'updated' | 'missing' | 'taken'> {
  try {
    const result = await db.updateTable('packages').set(fields).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? 'updated' : 'missing';
  } catch (error) {
    if (isUniqueViolation(error)) return 'taken';
    throw error;
  }
}

export async function deleteOwnPackage(db: DbOrTrx, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('packages').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** A unique index refused the row: PostgreSQL's 23505, better-sqlite3's SQLITE_CONSTRAINT_UNIQUE. */
const isUniqueViolation = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
};
