import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Each user's orders counted by status (order_status_counts), kept by triggers on orders, in place of order_counts
 * (one total per user, kept by the app with each insert).
 *
 * The history's total (all statuses) is a sum of a few rows, and a status filter's total one row, so neither counts
 * the orders themselves; the console's counts by status likewise. The database keeps the counts with every insert,
 * status change and delete, whichever code writes the orders.
 *
 * - SQLite: row triggers (they run inside the engine: a 5,000-row bulk insert costs a few milliseconds).
 * - PostgreSQL: statement triggers over the rows each statement changed, grouped into one upsert per user and
 *   status, taken in (user_id, status) order so concurrent statements lock the count rows in the same order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('order_status_counts')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_status_counts_pkey', ['user_id', 'status'])
    .execute();
  await sql`insert into order_status_counts (user_id, status, total) select user_id, status, count(*) from orders group by user_id, status`.execute(db);
  await db.schema.dropTable('order_counts').execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const upsert = (rows: string) => sql.raw(`insert into order_status_counts as c (user_id, status, total)
      select user_id, status, sum(n) from (${rows}) as changed group by user_id, status having sum(n) <> 0 order by user_id, status
      on conflict (user_id, status) do update set total = c.total + excluded.total`);
    await sql`create function count_order_statuses() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          ${upsert('select user_id, status, 1 as n from new_rows')};
        elsif tg_op = 'DELETE' then
          ${upsert('select user_id, status, -1 as n from old_rows')};
        else
          ${upsert('select user_id, status, -1 as n from old_rows union all select user_id, status, 1 from new_rows')};
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger orders_count_insert after insert on orders referencing new table as new_rows for each statement execute function count_order_statuses()`.execute(db);
    await sql`create trigger orders_count_update after update on orders referencing old table as old_rows new table as new_rows for each statement execute function count_order_statuses()`.execute(db);
    await sql`create trigger orders_count_delete after delete on orders referencing old table as old_rows for each statement execute function count_order_statuses()`.execute(db);
    return;
  }

  const add = (row: 'new' | 'old', n: 1 | -1) =>
    sql.raw(`insert into order_status_counts (user_id, status, total) values (${row}.user_id, ${row}.status, ${n}) on conflict (user_id, status) do update set total = total + ${n};`);
  await sql`create trigger orders_count_insert after insert on orders begin ${add('new', 1)} end`.execute(db);
  await sql`create trigger orders_count_update after update of user_id, status on orders when old.status is not new.status or old.user_id is not new.user_id begin
    ${add('old', -1)}
    ${add('new', 1)}
  end`.execute(db);
  await sql`create trigger orders_count_delete after delete on orders begin ${add('old', -1)} end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const trigger of ['orders_count_insert', 'orders_count_update', 'orders_count_delete']) {
    await sql`drop trigger ${sql.id(trigger)}${db.getExecutor().adapter instanceof PostgresAdapter ? sql` on orders` : sql``}`.execute(db);
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter) await sql`drop function count_order_statuses()`.execute(db);
  await db.schema
    .createTable('order_counts')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
    .addColumn('total', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into order_counts (user_id, total) select user_id, count(*) from orders group by user_id`.execute(db);
  await db.schema.dropTable('order_status_counts').execute();
}
