import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL: the order search's GIN index keys each trigram by its owner as well, so one customer's search reads
 * only their own orders' postings.
 *
 * The index it replaces (2026-11-24-10-order-search, on user_id and the text's trigrams) read every order's postings
 * of a trigram: a name like 'Receiver 500000' holds trigrams nearly every order has, and at 1,000,000 orders its
 * scan read 2,300 pages (38 ms alone). Here each order's key array (order_search_tokens) holds the text's trigrams
 * (pg_trgm's show_trgm) twice: as they are, for the console's search over everyone's orders, and behind the first 8
 * characters of the user's id, for the customer's. The same search reads 68 pages (under 1 ms). The indexed text is
 * the one the earlier migration describes. SQLite keeps its FTS5 table, whose rowids already group a user's orders.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  // Immutable (an index expression must be): show_trgm is, and text's output never depends on a setting. A trigram
  // never holds a comma (pg_trgm takes letters, digits and blanks), so the string round trip splits it back exactly.
  await sql`create function order_search_tokens(owner text, body text) returns text[] language plpgsql immutable strict parallel safe as $$
    declare trigrams text[] := ${await showTrgm(db)}(body);
    begin
      return trigrams || pg_catalog.string_to_array(pg_catalog.left(owner, 8) || pg_catalog.array_to_string(trigrams, ',' || pg_catalog.left(owner, 8)), ',');
    end $$`.execute(db);
  await sql`set local maintenance_work_mem = '256MB'`.execute(db);
  await sql`create index orders_search_tokens on orders using gin (order_search_tokens(user_id, lower(left(id, 8) || chr(10) || from_name || chr(10) || to_name || chr(10) || coalesce(tracking, ''))))`.execute(
    db,
  );
  await db.schema.dropIndex('orders_search').ifExists().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.schema.dropIndex('orders_search_tokens').execute();
  await sql`drop function order_search_tokens(text, text)`.execute(db);
}

/** pg_trgm's show_trgm, named with the schema the extension is in (a function's body does not follow search_path). */
export async function showTrgm(db: Kysely<any>) {
  const trgm = await sql<{
    schema: string;
  }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  return sql.id(trgm.rows[0].schema, 'show_trgm');
}
