import type { DbOrTrx } from '../../db/database.ts';
import type { Insertable, Selectable } from 'kysely';
import type { OneTimeCodesTable, UsersTable } from '../../db/schema.ts';

export type UserRow = Selectable<UsersTable>;

export const findUserById = (db: DbOrTrx, id: string) => db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

export const findUsersByIds = (db: DbOrTrx, ids: string[]) => db.selectFrom('users').selectAll().where('id', 'in', ids).execute();

/**
 * These users in one statement, each row with revoked_jti: one of the given token ids that was revoked for that user
 * (a user comes once for each such token, or once with null).
 */
export const findUsersWithRevokedTokens = (db: DbOrTrx, userIds: string[], tokenIds: string[]) =>
  db
    .selectFrom('users')
    .leftJoin('revoked_tokens', (join) =>
      // [''] stands for no token id: an empty IN list is not SQL, and no token has an empty id.
      join.onRef('revoked_tokens.user_id', '=', 'users.id').on('revoked_tokens.jti', 'in', tokenIds.length > 0 ? tokenIds : ['']),
    )
    .selectAll('users')
    .select('revoked_tokens.jti as revoked_jti')
    .where('users.id', 'in', userIds)
    .execute();

/** Records a token as signed out, and forgets the revoked tokens that have expired since (they are refused anyway). */
export async function revokeToken(db: DbOrTrx, token: { jti: string; user_id: string; expires_at: string }, now: string): Promise<void> {
  await db
    .insertInto('revoked_tokens')
    .values(token)
    .onConflict((oc) => oc.column('jti').doNothing())
    .execute();
  await db.deleteFrom('revoked_tokens').where('expires_at', '<', now).execute();
}

export const findUserByTgId = (db: DbOrTrx, tgId: string) =>
  db.selectFrom('users').selectAll().where('tg_id_lower', '=', tgId.toLowerCase()).executeTakeFirst();

export const findUserByApiKeyHash = (db: DbOrTrx, hash: string) => db.selectFrom('users').selectAll().where('api_key_hash', '=', hash).executeTakeFirst();

/** Users whose stored API key does not start with the sealed prefix: plain keys of accounts older than sealing. */
export const listUnsealedApiKeys = (db: DbOrTrx, sealedPrefix: string) =>
  db.selectFrom('users').select(['id', 'api_key_sealed']).where('api_key_sealed', 'not like', `${sealedPrefix}%`).execute();

export const findUserByVerifiedEmail = (db: DbOrTrx, email: string) =>
  db.selectFrom('users').selectAll().where('email', '=', email).where('email_verified', '=', 1).executeTakeFirst();

/** Inserts the user; false when the Telegram username is taken (unique index). */
export async function insertUser(db: DbOrTrx, user: Insertable<UsersTable>): Promise<boolean> {
  const result = await db
    .insertInto('users')
    .values(user)
    .onConflict((oc) => oc.column('tg_id_lower').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export const updateUser = (db: DbOrTrx, id: string, changes: Partial<Omit<UserRow, 'id' | 'balance_cents'>>) =>
  db.updateTable('users').set(changes).where('id', '=', id).execute();

export const insertCode = (db: DbOrTrx, code: OneTimeCodesTable) => db.insertInto('one_time_codes').values(code).execute();

/** The newest unused code for this email and purpose. */
export const findLatestCode = (db: DbOrTrx, email: string, purpose: OneTimeCodesTable['purpose']) =>
  db
    .selectFrom('one_time_codes')
    .selectAll()
    .where('email', '=', email)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();

export const countCodeAttempt = (db: DbOrTrx, id: string) =>
  db
    .updateTable('one_time_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .execute();

/** Marks a code used; false when another request used it first. */
export async function spendCode(db: DbOrTrx, id: string, at: string): Promise<boolean> {
  const result = await db.updateTable('one_time_codes').set({ used_at: at }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
