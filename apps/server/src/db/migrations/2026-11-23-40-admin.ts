import { sql, type Kysely } from 'kysely';

// The operator console: a role and a disabled mark on users, their last activity, the audit log,
// and the indexes the console's overview and lists read through.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('role', 'text', (c) =>
      c
        .notNull()
        .defaultTo('customer')
        .check(sql`role in ('customer', 'admin')`),
    )
    .execute();
  // Set while the account is disabled: sign-in, tokens and the API key are refused; balance and history stay.
  await db.schema.alterTable('users').addColumn('disabled_at', 'text').execute();
  // The last sign-in or use of the account (written at most about once an hour per user).
  await db.schema.alterTable('users').addColumn('last_active_at', 'text').execute();
  // Active users by last activity; with the balance, the overview's user figures are read from this index alone.
  await db.schema.createIndex('users_active_balance').on('users').columns(['last_active_at', 'balance_cents']).execute();
  await db.schema.createIndex('users_created').on('users').columns(['created_at', 'id']).execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Null for a change made from the command line (npm run admin).
    .addColumn('admin_id', 'text', (c) => c.references('users.id'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('before_json', 'text')
    .addColumn('after_json', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_created').on('audit_log').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('audit_log_admin_created').on('audit_log').columns(['admin_id', 'created_at']).execute();
  await db.schema.createIndex('audit_log_target_created').on('audit_log').columns(['target_id', 'created_at']).execute();
  await db.schema.createIndex('audit_log_type_created').on('audit_log').columns(['target_type', 'created_at']).execute();

  // The overview's money: sums of some kinds of ledger rows over a time range, read from the index alone.
  await db.schema.createIndex('ledger_kind_created').on('ledger').columns(['kind', 'created_at', 'amount_cents']).execute();
  // Every customer's orders, bulk orders and invoices, newest first.
  await db.schema.createIndex('orders_created').on('orders').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('bulk_orders_created').on('bulk_orders').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('invoices_created').on('invoices').columns(['created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ['invoices_created', 'bulk_orders_created', 'orders_created', 'ledger_kind_created', 'users_created', 'users_active_balance']) {
    await db.schema.dropIndex(index).execute();
  }
  await db.schema.dropTable('audit_log').execute();
  for (const column of ['last_active_at', 'disabled_at', 'role']) await db.schema.alterTable('users').dropColumn(column).execute();
}
