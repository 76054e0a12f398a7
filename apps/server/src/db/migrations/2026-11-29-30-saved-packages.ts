import type { Kysely } from 'kysely';

/**
 * packages: a customer's saved packages, named presets of a weight (lb or oz) and optional dimensions (inches; all
 * three or none) that the order forms and the reseller API fill an order from. name_key is the name as compared
 * (lower case, worked out by the app the same way on either database), unique per customer; that index also lists a
 * customer's packages by name.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('packages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('weight', 'double precision', (c) => c.notNull())
    .addColumn('weight_unit', 'text', (c) => c.notNull())
    .addColumn('length', 'double precision')
    .addColumn('width', 'double precision')
    .addColumn('height', 'double precision')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('packages_user_name').on('packages').columns(['user_id', 'name_key']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('packages').execute();
}
