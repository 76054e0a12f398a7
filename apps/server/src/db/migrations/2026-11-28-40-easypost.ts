import { sql, type Kysely } from 'kysely';

/** The upstream carrier and service each spec label type is bought as at first (EasyPost's names). */
const DEFAULTS: [uid: string, carrier: string, service: string][] = [
  ['priority', 'USPS', 'Priority'],
  ['uspsv9', 'USPS', 'Priority'],
  ['ground_oz', 'USPS', 'GroundAdvantage'],
  ['fedex_ground', 'FedEx', 'FEDEX_GROUND'],
  ['ups_standard', 'UPS', 'Ground'],
  ['ups_express', 'UPS', 'NextDayAir'],
  ['ups_express_saver', 'UPS', 'NextDayAirSaver'],
  ['ups_express_early', 'UPS', 'NextDayAirEarlyAM'],
  ['ups_expedited', 'UPS', '2ndDayAir'],
];

/**
 * What an upstream label provider (EasyPost) keeps on an order: its Shipment's id, recorded before the Shipment is
 * bought (a retry retrieves it instead of buying again), and what the label cost upstream with the carrier and service
 * bought, beside the order's price (the margin). And what each label type is bought as upstream (carrier, service,
 * optionally a carrier account), edited in the console: a type without one is not offered while the provider is EasyPost.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').addColumn('shipment_id', 'text').execute();
  await db.schema.alterTable('orders').addColumn('upstream_cost_cents', 'integer').execute();
  await db.schema.alterTable('orders').addColumn('upstream_carrier', 'text').execute();
  await db.schema.alterTable('orders').addColumn('upstream_service', 'text').execute();
  // The carrier's tracking status as EasyPost's tracker.updated events tell it; each event id is taken once.
  await db.schema.alterTable('orders').addColumn('tracking_status', 'text').execute();
  await db.schema
    .createTable('easypost_events')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('received_at', 'text', (col) => col.notNull())
    .execute();
  for (const column of ['upstream_carrier', 'upstream_service', 'upstream_carrier_account'])
    await db.schema.alterTable('label_types').addColumn(column, 'text').execute();
  for (const [uid, carrier, service] of DEFAULTS)
    await sql`update label_types set upstream_carrier = ${carrier}, upstream_service = ${service} where uid = ${uid}`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['upstream_carrier_account', 'upstream_service', 'upstream_carrier'])
    await db.schema.alterTable('label_types').dropColumn(column).execute();
  await db.schema.dropTable('easypost_events').execute();
  for (const column of ['tracking_status', 'upstream_service', 'upstream_carrier', 'upstream_cost_cents', 'shipment_id'])
    await db.schema.alterTable('orders').dropColumn(column).execute();
}
