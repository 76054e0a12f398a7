import type { Kysely } from 'kysely';

/**
 * reference_packages: the packages the console's price check prices every enabled label type with (weight in
 * weight_unit, inches, two ZIP codes of one country), seeded with a few the operator may edit.
 * price_checks: the last price check's answer (JSON) and when it ran, one row (id 'last'), read by the overview.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('reference_packages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('weight', 'double precision', (c) => c.notNull())
    .addColumn('weight_unit', 'text', (c) => c.notNull())
    .addColumn('length', 'double precision')
    .addColumn('width', 'double precision')
    .addColumn('height', 'double precision')
    .addColumn('from_zip', 'text', (c) => c.notNull())
    .addColumn('to_zip', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  const now = new Date().toISOString();
  // Ids fixed here (a migration imports no app code); created_at apart by a millisecond keeps them in this order.
  const seed = [
    ['ref-us-8oz', 'Envelope 8 oz, New York to Los Angeles', 8, 'oz', null, null, null, '10001', '90012'],
    ['ref-us-1lb', 'Small box 1 lb 10x8x4, New York to Los Angeles', 1, 'lb', 10, 8, 4, '10001', '90012'],
    ['ref-us-5lb', 'Box 5 lb 12x12x8, New York to Los Angeles', 5, 'lb', 12, 12, 8, '10001', '90012'],
    ['ref-ca-2lb', 'Box 2 lb 10x8x4, Ottawa to Toronto', 2, 'lb', 10, 8, 4, 'K1A 0B1', 'M5V 3L9'],
  ] as const;
  await db
    .insertInto('reference_packages')
    .values(
      seed.map(([id, name, weight, unit, length, width, height, fromZip, toZip], i) => ({
        id,
        name,
        weight,
        weight_unit: unit,
        length,
        width,
        height,
        from_zip: fromZip,
        to_zip: toZip,
        created_at: new Date(Date.parse(now) + i).toISOString(),
      })),
    )
    .execute();
  await db.schema
    .createTable('price_checks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('checked_at', 'text', (c) => c.notNull())
    .addColumn('result_json', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('price_checks').execute();
  await db.schema.dropTable('reference_packages').execute();
}
