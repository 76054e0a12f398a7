import type { DbOrTrx } from '../../db/database.ts';
import type { AddressesTable } from '../../db/schema.ts';

export type AddressRow = AddressesTable;
export type AddressFields = Omit<AddressRow, 'id' | 'user_id' | 'created_at'>;

export const listOwnAddresses = (db: DbOrTrx, userId: string) =>
  db.selectFrom('addresses').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();

export const insertAddress = (db: DbOrTrx, row: AddressRow) => db.insertInto('addresses').values(row).execute();

/** Changes the user's own address; false when there is none with this id for this user. */
export async function updateOwnAddress(db: DbOrTrx, userId: string, id: string, fields: AddressFields): Promise<boolean> {
  const result = await db.updateTable('addresses').set(fields).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteOwnAddress(db: DbOrTrx, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('addresses').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
