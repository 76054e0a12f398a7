import { type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // A FedEx hand-made international order: paid at once, fulfilled by an operator who uploads the label.
  let table = db.schema
    .createTable('fedex_orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('price_cents', 'bigint', (c) => c.notNull());
  for (const side of ['from', 'to']) {
    for (const field of ['name', 'street', 'street2', 'city', 'state', 'zip', 'phone', 'email', 'country']) {
      table = table.addColumn(`${side}_${field}`, 'text', (c) => c.notNull());
    }
  }
  await table
    .addColumn('weight', 'double precision', (c) => c.notNull())
    .addColumn('weight_unit', 'text', (c) => c.notNull())
    .addColumn('length', 'double precision', (c) => c.notNull())
    .addColumn('width', 'double precision', (c) => c.notNull())
    .addColumn('height', 'double precision', (c) => c.notNull())
    .addColumn('dimension_unit', 'text', (c) => c.notNull())
    .addColumn('special_notes', 'text', (c) => c.notNull())
    .addColumn('signature', 'integer', (c) => c.notNull())
    .addColumn('pickup', 'integer', (c) => c.notNull())
    // The pickup: a date and a 4-hour window in the customer's time zone, and where; all null without one.
    .addColumn('pickup_date', 'text')
    .addColumn('pickup_time', 'text')
    .addColumn('pickup_end_time', 'text')
    .addColumn('pickup_time_zone', 'text')
    .addColumn('pickup_name', 'text')
    .addColumn('pickup_street', 'text')
    .addColumn('pickup_street2', 'text')
    .addColumn('pickup_city', 'text')
    .addColumn('pickup_state', 'text')
    .addColumn('pickup_zip', 'text')
    .addColumn('pickup_phone', 'text')
    .addColumn('pickup_country', 'text')
    .addColumn('shipment_purpose', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    // The commercial invoice's lines as JSON: they are only ever read and written with their order.
    .addColumn('invoice_items', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    // The label PDF the operator uploaded, a key in the file store.
    .addColumn('file_key', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The customer's list, newest first.
  await db.schema.createIndex('fedex_orders_user_created').on('fedex_orders').columns(['user_id', 'created_at', 'id']).execute();
  // The operator's queue of pending orders, oldest first, and its count.
  await db.schema.createIndex('fedex_orders_status_created').on('fedex_orders').columns(['status', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('fedex_orders').execute();
}
