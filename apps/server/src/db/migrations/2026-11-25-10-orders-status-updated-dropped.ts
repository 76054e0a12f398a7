import type { Kysely } from 'kysely';

/**
 * Drops orders_status_updated (status, updated_at): it served the first background scan for waiting orders, which
 * the claims (2026-11-23-01-claims) replaced with orders_claimable (status, claimed_until). No query orders or
 * filters orders by updated_at, and every lookup by status alone finds the same rows through orders_claimable. Each
 * order wrote it twice all the same: at its insert, and again when its status changed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('orders_status_updated').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('orders_status_updated').on('orders').columns(['status', 'updated_at']).execute();
}
