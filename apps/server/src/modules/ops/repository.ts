import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/** Answers when the database does: the readiness probe's question. */
export const pingDatabase = (db: Db) => sql`select 1`.execute(db);

/** Every customer's balance together, in cents (a gauge at each scrape). */
export async function sumBalancesCents(db: Db): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('balance_cents'), eb.lit(0)).as('sum'))
    .executeTakeFirstOrThrow();
  return Number(row.sum);
}
