import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('invoices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('amount_cents', 'bigint', (c) => c.notNull().check(sql`amount_cents > 0`))
    .addColumn('bonus_percent', 'integer', (c) => c.notNull())
    .addColumn('bonus_cents', 'bigint', (c) => c.notNull())
    .addColumn('payment_method', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_invoice_id', 'text', (c) => c.notNull())
    .addColumn('hosted_url', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('paid_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('invoices_user_created').on('invoices').columns(['user_id', 'created_at']).execute();
  // A webhook names the provider's invoice; one of ours per provider invoice.
  await db.schema.createIndex('invoices_provider_ref').on('invoices').columns(['provider', 'provider_invoice_id']).unique().execute();
  await db.schema.createIndex('invoices_status_expires').on('invoices').columns(['status', 'expires_at']).execute();

  // The sandbox payment provider's own books, as a real provider keeps its own.
  await db.schema
    .createTable('sandbox_invoices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('return_url', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sandbox_invoices').execute();
  await db.schema.dropTable('invoices').execute();
}
