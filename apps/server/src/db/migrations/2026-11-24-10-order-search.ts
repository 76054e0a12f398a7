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
 * - PostgreSQL: one GIN index on (user_id, the lowered text's trigrams): a customer's search reads only the
 *   postings of their own orders (btree_gin), the console's everyone's. pg_trgm and btree_gin are trusted
 *   extensions (PostgreSQL 13+): the database owner may create them. They are created in the schema `public`
 *   (kept when a schema of the shop is dropped); when they exist already, wherever they are, they are used.
 * - SQLite: a contentless FTS5 table with the trigram tokenizer, kept by triggers. Its rowid is the user's rowid
 *   times 2^32 plus the order's rowid, so one customer's orders are one rowid range that FTS5 seeks to. Rowids of
 *   tables without an INTEGER PRIMARY KEY can change in VACUUM only where rows were deleted; orders and users
 *   never are.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // A status filter pages and counts one user's orders in that status from the index alone.
  await db.schema.createIndex('orders_user_status_created').on('orders').columns(['user_id', 'status', 'created_at', 'id']).execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const extension of ['pg_trgm', 'btree_gin']) {
      try {
        await sql`create extension if not exists ${sql.raw(extension)} with schema public`.execute(db);
      } catch (error) {
        throw new Error(
          `The order search needs the PostgreSQL extension ${extension}, and this user may not create it (${String(error)}). ` +
            `Run 'CREATE EXTENSION IF NOT EXISTS ${extension} WITH SCHEMA public;' in this database as its owner or a superuser, then start again.`,
        );
      }
    }
    const trgm = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
    // A large table's index builds several times faster with more memory than the default 64 MB (this transaction only).
    await sql`set local maintenance_work_mem = '256MB'`.execute(db);
    await sql`create index orders_search on orders using gin (user_id, (lower(left(id, 8) || chr(10) || from_name || chr(10) || to_name || chr(10) || coalesce(tracking, ''))) ${sql.id(trgm.rows[0].schema, 'gin_trgm_ops')})`.execute(
      db,
    );
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
    await db.schema.dropIndex('orders_search').execute();
  } else {
    for (const trigger of ['orders_search_insert', 'orders_search_update', 'orders_search_delete']) await sql`drop trigger ${sql.id(trigger)}`.execute(db);
    await db.schema.dropTable('orders_search').execute();
  }
  await db.schema.dropIndex('orders_user_status_created').execute();
}
