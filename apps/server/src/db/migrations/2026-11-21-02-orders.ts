import { type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('label_types')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('uid', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('max_weight', 'double precision', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('label_type_prices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('label_type_id', 'text', (c) => c.notNull().references('label_types.id').onDelete('cascade'))
    .addColumn('from_weight', 'double precision', (c) => c.notNull())
    .addColumn('to_weight', 'double precision', (c) => c.notNull())
    .addColumn('price_cents', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('label_type_prices_type').on('label_type_prices').columns(['label_type_id', 'from_weight']).execute();

  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('label_type_id', 'text', (c) => c.notNull().references('label_types.id'))
    // The type's uid and name as they were when ordered: history keeps its words.
    .addColumn('label_type_uid', 'text', (c) => c.notNull())
    .addColumn('label_type_name', 'text', (c) => c.notNull())
    .addColumn('design', 'text')
    .addColumn('weight', 'double precision', (c) => c.notNull())
    .addColumn('length', 'double precision')
    .addColumn('width', 'double precision')
    .addColumn('height', 'double precision')
    .addColumn('from_name', 'text', (c) => c.notNull())
    .addColumn('from_company', 'text', (c) => c.notNull())
    .addColumn('from_street', 'text', (c) => c.notNull())
    .addColumn('from_street2', 'text', (c) => c.notNull())
    .addColumn('from_city', 'text', (c) => c.notNull())
    .addColumn('from_state', 'text', (c) => c.notNull())
    .addColumn('from_zip', 'text', (c) => c.notNull())
    .addColumn('from_country', 'text', (c) => c.notNull())
    .addColumn('from_phone', 'text', (c) => c.notNull())
    .addColumn('to_name', 'text', (c) => c.notNull())
    .addColumn('to_company', 'text', (c) => c.notNull())
    .addColumn('to_street', 'text', (c) => c.notNull())
    .addColumn('to_street2', 'text', (c) => c.notNull())
    .addColumn('to_city', 'text', (c) => c.notNull())
    .addColumn('to_state', 'text', (c) => c.notNull())
    .addColumn('to_zip', 'text', (c) => c.notNull())
    .addColumn('to_country', 'text', (c) => c.notNull())
    .addColumn('to_phone', 'text', (c) => c.notNull())
    .addColumn('price_cents', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('tracking', 'text')
    .addColumn('pdf_key', 'text')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_ref', 'text')
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The order history: one user's orders by creation time.
  await db.schema.createIndex('orders_user_created').on('orders').columns(['user_id', 'created_at', 'id']).execute();
  // The background runner's scan for orders still waiting on the provider.
  await db.schema.createIndex('orders_status_updated').on('orders').columns(['status', 'updated_at']).execute();

  // How many orders each user ever placed (orders are never deleted): the history's total without counting rows.
  await db.schema
    .createTable('order_counts')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
    .addColumn('total', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('addresses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('company', 'text', (c) => c.notNull())
    .addColumn('street', 'text', (c) => c.notNull())
    .addColumn('street2', 'text', (c) => c.notNull())
    .addColumn('city', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('zip', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('addresses_user_created').on('addresses').columns(['user_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['addresses', 'order_counts', 'orders', 'label_type_prices', 'label_types']) {
    await db.schema.dropTable(table).execute();
  }
}
