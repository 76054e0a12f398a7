import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Each user's settled orders (completed, cancelled) counted by status in settled_order_counts, kept by triggers on
 * orders, in place of order_counts (one total per user, kept by the app with each insert).
 *
 * A settled order never leaves its status, and the waiting ones (pending, processing) are few, so any total of the
 * history (all of a user's orders, or one status) is a row or two of counts plus the waiting orders counted on the
 * (user_id, status, created_at, id) index; the console's counts likewise. A new order touches no count row: were it
 * counted on insert, every order of a customer would wait for that row while another of theirs is being placed, and
 * each recorded label would wait for it too. The database keeps the counts, whichever code writes the orders.
 *
 * - SQLite: row triggers (they run inside the engine).
 * - PostgreSQL: statement triggers over the rows each statement changed, grouped into one upsert per user and
 *   status, taken in (user_id, status) order so concurrent statements lock the count rows in the same order.
 */
const SETTLED = `('completed', 'cancelled')`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('settled_order_counts')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('settled_order_counts_pkey', ['user_id', 'status'])
    .execute();
  await sql`insert into settled_order_counts (user_id, status, total) select user_id, status, count(*) from orders where status in ${sql.raw(SETTLED)} group by user_id, status`.execute(
    db,
  );
  await db.schema.dropTable('order_counts').execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const settled = (rows: string, n: 1 | -1) => `select user_id, status, ${n} as n from ${rows} where status in ${SETTLED}`;
    const upsert = (changed: string) =>
      sql.raw(`insert into settled_order_counts as c (user_id, status, total)
      select user_id, status, sum(n) from (${changed}) as changed group by user_id, status having sum(n) <> 0 order by user_id, status
      on conflict (user_id, status) do update set total = c.total + excluded.total`);
    await sql`create function count_settled_orders() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          ${upsert(settled('new_rows', 1))};
        elsif tg_op = 'DELETE' then
          ${upsert(settled('old_rows', -1))};
        else
          ${upsert(`${settled('old_rows', -1)} union all ${settled('new_rows', 1)}`)};
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger orders_count_insert after insert on orders referencing new table as new_rows for each statement execute function count_settled_orders()`.execute(
      db,
    );
    await sql`create trigger orders_count_update after update on orders referencing old table as old_rows new table as new_rows for each statement execute function count_settled_orders()`.execute(
      db,
    );
    await sql`create trigger orders_count_delete after delete on orders referencing old table as old_rows for each statement execute function count_settled_orders()`.execute(
      db,
    );
    return;
  }

  const add = (row: 'new' | 'old', n: 1 | -1) =>
    sql.raw(`insert into settled_order_counts (user_id, status, total) select ${row}.user_id, ${row}.status, ${n} where ${row}.status in ${SETTLED}
      on conflict (user_id, status) do update set total = total + ${n};`);
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
  if (db.getExecutor().adapter instanceof PostgresAdapter) await sql`drop function count_settled_orders()`.execute(db);
  await db.schema
    .createTable('order_counts')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
    .addColumn('total', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into order_counts (user_id, total) select user_id, count(*) from orders group by user_id`.execute(db);
  await db.schema.dropTable('settled_order_counts').execute();
}
