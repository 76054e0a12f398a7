import { PostgresAdapter, sql, type Kysely } from 'kysely';
import * as ownerAndEveryoneTokens from './2026-11-24-20-order-search-tokens.ts';

/**
 * PostgreSQL: the order search's GIN index keys each trigram by its owner only (order_search_keys). The index it
 * replaces (2026-11-24-20-order-search-tokens) also held every trigram as it is, for the console's search over
 * everyone's orders. Those keys were half of each order's: the index's upkeep (its entries, then the pending list
 * moved into the tree) was about two fifths of what PostgreSQL spent on a new order, and the unowned half cost
 * 0.2 ms an order (0.9 -> 0.7 ms at 32 connections), for a search only operators run. The console's search now tests
 * the orders one by one (orders/repository.ts, searchedOrders). SQLite keeps its FTS5 table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  // As order_search_tokens' second half: a trigram never holds a comma, so the string round trip splits it back exactly.
  await sql`create function order_search_keys(owner text, body text) returns text[] language plpgsql immutable strict parallel safe as $$
    declare trigrams text[] := ${await ownerAndEveryoneTokens.showTrgm(db)}(body);
    begin
      if pg_catalog.cardinality(trigrams) = 0 then return trigrams; end if;
      return pg_catalog.string_to_array(pg_catalog.left(owner, 8) || pg_catalog.array_to_string(trigrams, ',' || pg_catalog.left(owner, 8)), ',');
    end $$`.execute(db);
  await sql`set local maintenance_work_mem = '256MB'`.execute(db);
  await sql`create index orders_search_keys on orders using gin (order_search_keys(user_id, lower(left(id, 8) || chr(10) || from_name || chr(10) || to_name || chr(10) || coalesce(tracking, ''))))`.execute(
    db,
  );
  await ownerAndEveryoneTokens.down(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await ownerAndEveryoneTokens.up(db);
  await db.schema.dropIndex('orders_search_keys').execute();
  await sql`drop function order_search_keys(text, text)`.execute(db);
}
