import { type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // A bulk (CSV) order: its rows are ordinary orders that point back at it (orders.bulk_order_id, bulk_row).
  await db.schema
    .createTable('bulk_orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('label_type_id', 'text', (c) => c.notNull().references('label_types.id'))
    .addColumn('label_type_uid', 'text', (c) => c.notNull())
    .addColumn('label_type_name', 'text', (c) => c.notNull())
    .addColumn('design', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('total_orders', 'integer', (c) => c.notNull())
    .addColumn('total_cents', 'bigint', (c) => c.notNull())
    .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('job_id', 'text')
    .addColumn('input_key', 'text', (c) => c.notNull())
    .addColumn('report_key', 'text')
    .addColumn('pdf_key', 'text')
    .addColumn('zip_key', 'text')
    .addColumn('made_orders', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed_orders', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('refunded_cents', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema.createIndex('bulk_orders_user_created').on('bulk_orders').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('bulk_orders_status_updated').on('bulk_orders').columns(['status', 'updated_at']).execute();

  await db.schema
    .alterTable('orders')
    .addColumn('bulk_order_id', 'text', (c) => c.references('bulk_orders.id'))
    .execute();
  await db.schema.alterTable('orders').addColumn('bulk_row', 'integer').execute();
  // One order per row of a bulk order: the key that makes each row's label at most once.
  await db.schema.createIndex('orders_bulk_row').on('orders').columns(['bulk_order_id', 'bulk_row']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('orders_bulk_row').execute();
  await db.schema.alterTable('orders').dropColumn('bulk_row').execute();
  await db.schema.alterTable('orders').dropColumn('bulk_order_id').execute();
  await db.schema.dropTable('bulk_orders').execute();
}
