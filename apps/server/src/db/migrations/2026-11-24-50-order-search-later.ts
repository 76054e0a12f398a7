import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * SQLite: the order search's FTS5 table is brought up to date a batch at a time, no longer in the statement that
 * changes an order. FTS5 writes its changes out at every commit, and a single order committed twice (paid, then its
 * label) cost about a third of a millisecond of the request's thread in FTS alone. Now a trigger only notes the
 * order's rowid in orders_search_pending; orders/repository.ts (indexPendingOrders) indexes the noted orders in one
 * transaction, a few times a second, and the search takes every noted order as a candidate meanwhile, so it finds
 * an order the moment it is written. An order that changed owner (none does) leaves its old entry at once.
 * PostgreSQL's GIN index keeps its own pending list: nothing changes there.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await sql`create table orders_search_pending (order_rowid integer primary key)`.execute(db);
  for (const trigger of ['orders_search_insert', 'orders_search_update']) await sql`drop trigger ${sql.id(trigger)}`.execute(db);
  await sql`create trigger orders_search_insert after insert on orders begin
    insert or ignore into orders_search_pending (order_rowid) values (new.rowid);
  end`.execute(db);
  await sql`create trigger orders_search_update after update of id, from_name, to_name, tracking on orders begin
    insert or ignore into orders_search_pending (order_rowid) values (new.rowid);
  end`.execute(db);
  await sql`create trigger orders_search_owner after update of user_id on orders when old.user_id is not new.user_id begin
    delete from orders_search where rowid = ${key('old')};
    insert or ignore into orders_search_pending (order_rowid) values (new.rowid);
  end`.execute(db);
  await sql`create trigger orders_search_forget after delete on orders begin
    delete from orders_search_pending where order_rowid = old.rowid;
  end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  // The noted orders first, while the table still says which.
  await sql`delete from orders_search where rowid in (select ${key('o')} from orders o where o.rowid in (select order_rowid from orders_search_pending))`.execute(
    db,
  );
  await sql`insert into orders_search(rowid, body) select ${key('o')}, ${body('o')} from orders o where o.rowid in (select order_rowid from orders_search_pending)`.execute(
    db,
  );
  for (const trigger of ['orders_search_insert', 'orders_search_update', 'orders_search_owner', 'orders_search_forget'])
    await sql`drop trigger ${sql.id(trigger)}`.execute(db);
  await sql`drop table orders_search_pending`.execute(db);
  // The triggers of 2026-11-24-10-order-search.
  await sql`create trigger orders_search_insert after insert on orders begin
    insert into orders_search(rowid, body) values (${key('new')}, ${body('new')});
  end`.execute(db);
  await sql`create trigger orders_search_update after update of id, user_id, from_name, to_name, tracking on orders begin
    delete from orders_search where rowid = ${key('old')};
    insert into orders_search(rowid, body) values (${key('new')}, ${body('new')});
  end`.execute(db);
}

/** The FTS5 rowid and the indexed text of an order, as 2026-11-24-10-order-search defines them. */
const key = (row: string) => sql.raw(`(select rowid from users where id = ${row}.user_id) * 4294967296 + ${row}.rowid`);
const body = (row: string) =>
  sql.raw(`substr(${row}.id, 1, 8) || char(10) || ${row}.from_name || char(10) || ${row}.to_name || char(10) || coalesce(${row}.tracking, '')`);
