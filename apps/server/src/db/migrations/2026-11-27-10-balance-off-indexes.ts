import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * PostgreSQL: users_active_balance (last_active_at, balance_cents) becomes users_active (last_active_at), so no index
 * holds a balance. PostgreSQL rewrites a row in place (a HOT update) only when no indexed column changed; every order's
 * charge changed one, so each wrote a new entry into all seven of the users table's indexes, and the customer's id
 * then led to a growing chain of dead versions until a vacuum. The console's overview sums the balances from the table.
 *
 * SQLite keeps the index: it changes only the entries of the indexes whose columns changed, and the overview reads
 * its count and sum from the index alone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.schema.createIndex('users_active').on('users').column('last_active_at').execute();
  await db.schema.dropIndex('users_active_balance').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.schema.createIndex('users_active_balance').on('users').columns(['last_active_at', 'balance_cents']).execute();
  await db.schema.dropIndex('users_active').execute();
}
