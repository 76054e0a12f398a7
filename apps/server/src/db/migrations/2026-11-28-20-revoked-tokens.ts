import type { Kysely } from 'kysely';

/**
 * revoked_tokens: the sign-in tokens ended by signing out, by their id (the JWT's jti), each kept until the token
 * would have expired. A request's user is read together with whether its token is here, so every process refuses a
 * signed-out token at once, and the account's other sessions go on.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('revoked_tokens')
    .addColumn('jti', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('revoked_tokens_expires').on('revoked_tokens').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('revoked_tokens').execute();
}
