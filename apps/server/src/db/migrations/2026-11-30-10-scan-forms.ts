import type { Kysely } from 'kysely';

/**
 * SCAN forms (USPS Form 5630, a carrier's manifest): one barcode the carrier scans for a day's labels of one from
 * address. scan_forms holds each form and its state (creating, created, failed), the upstream it was asked of and its
 * reference there, the file's key once made. A label's form is orders.scan_form_id, set before the upstream is asked
 * and cleared when the form fails: set by a conditional update of the order's row, as a refund's request is, so a label
 * is on one form at most and never both on a form and refunded.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scan_forms')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('ship_date', 'text', (c) => c.notNull())
    .addColumn('from_json', 'text', (c) => c.notNull())
    .addColumn('label_count', 'integer', (c) => c.notNull())
    .addColumn('bulk_order_id', 'text')
    .addColumn('upstream_ref', 'text')
    .addColumn('upstream_asked_at', 'text')
    .addColumn('pdf_key', 'text')
    .addColumn('message', 'text')
    .addColumn('due_at', 'text')
    .addColumn('claims', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('scan_forms_user').on('scan_forms').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('scan_forms_due').on('scan_forms').columns(['status', 'due_at']).execute();
  await db.schema.alterTable('orders').addColumn('scan_form_id', 'text').execute();
  await db.schema.createIndex('orders_scan_form').on('orders').column('scan_form_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('orders_scan_form').execute();
  await db.schema.alterTable('orders').dropColumn('scan_form_id').execute();
  await db.schema.dropTable('scan_forms').execute();
}
