import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Indexes of the order history's search (a case-insensitive substring of the sender's or receiver's name or the
 * tracking number), and of its status filter.
 *
 * The indexed text of an order is the first 8 characters of its id (the order number people see; the search also
 * finds an id by its start), its from_name, to_name and tracking, joined by line breaks. The queries
 * (orders/repository.ts, searchedOrders) use the index only to find candidates and check every candidate with
 * the exact test, so the index may over-match (a term spanning two fields, folding more than lower()).
 *
 * - PostgreSQL: the extension pg_trgm, whose trigrams the search index (made by 2026-11-24-20-order-search-tokens)
 *   keys. It is a trusted extension (PostgreSQL 13+): the database owner may create it. It is created in the schema
 *   `public` (kept when a schema of the shop is dropped); when it exists already, wherever it is, it is used.
 * - SQLite: a contentless FTS5 table with the trigram tokenizer, kept by triggers. Its rowid is the user's rowid
 *   times 2^32 plus the order's rowid, so one customer's orders are one rowid range that FTS5 seeks to. Rowids of
 *   tables without an INTEGER PRIMARY KEY can change in VACUUM only where rows were deleted; orders and users
 *   never are.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // A status filter pages and counts one user's orders in that status from the index alone.
  await db.schema.createIndex('orders_user_status_created').on('orders').columns(['user_id', 'status', 'created_at', 'id']).execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const extension of ['pg_trgm']) {
      try {
        await sql`create extension if not exists ${sql.raw(extension)} with schema public`.execute(db);
      } catch (error) {
        throw new Error(
          `The order search needs the PostgreSQL extension ${extension}, and this user may not create it (${String(error)}). ` +
            `Run 'CREATE EXTENSION IF NOT EXISTS ${extension} WITH SCHEMA public;' in this database as its owner or a superuser, then start again.`,
        );
      }
    }
    // The GIN index this migration first made (orders_search on user_id and the text's trigrams) is superseded by
    // 2026-11-24-20-order-search-tokens, which drops it where it was made; a shop upgrading past both builds only that one.
    return;
  }

  await sql`create virtual table orders_search using fts5(body, content='', contentless_delete=1, tokenize='trigram', detail=none)`.execute(db);
  const key = (row: 'new' | 'old') => sql.raw(`(select rowid from users where id = ${row}.user_id) * 4294967296 + ${row}.rowid`);
  const body = sql.raw(`substr(new.id, 1, 8) || char(10) || new.from_name || char(10) || new.to_name || char(10) || coalesce(new.tracking, '')`);
  await sql`create trigger orders_search_insert after insert on orders begin
    insert into orders_search(rowid, body) values (${key('new')}, ${body});
  end`.execute(db);
  await sql`create trigger orders_search_update after update of id, user_id, from_name, to_name, tracking on orders begin
    delete from orders_search where rowid = ${key('old')};
    insert into orders_search(rowid, body) values (${key('new')}, ${body});
  end`.execute(db);
  await sql`create trigger orders_search_delete after delete on orders begin
    delete from orders_search where rowid = ${key('old')};
  end`.execute(db);
  // The orders already there, in rowid order (FTS5 writes a sorted run at once), merged into one segment.
  await sql`insert into orders_search(rowid, body)
    select u.rowid * 4294967296 + o.rowid, substr(o.id, 1, 8) || char(10) || o.from_name || char(10) || o.to_name || char(10) || coalesce(o.tracking, '')
    from orders o join users u on u.id = o.user_id order by 1`.execute(db);
  await sql`insert into orders_search(orders_search) values ('optimize')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.schema.dropIndex('orders_search').ifExists().execute();
  } else {
    for (const trigger of ['orders_search_insert', 'orders_search_update', 'orders_search_delete']) await sql`drop trigger ${sql.id(trigger)}`.execute(db);
    await db.schema.dropTable('orders_search').execute();
  }
  await db.schema.dropIndex('orders_user_status_created').execute();
}
