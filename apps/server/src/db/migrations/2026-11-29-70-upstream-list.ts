import { sql, type Kysely } from 'kysely';
import { DEFAULT_UPSTREAM_SERVICES } from '../../providers/labels/default-services.ts';

/**
 * Several upstreams. What a label type is bought as moves from three label_types columns (EasyPost's, by their use)
 * to a table with a row per type and upstream (EasyPost's kept as they were, Shippo's defaults added). The order's
 * upstream shipment (orders.shipment_id, EasyPost's word) becomes upstream_ref, read with orders.provider (the
 * upstream the order is bought at), indexed (with the tracking number) for webhooks; webhook events are kept per upstream.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('upstream_services')
    .addColumn('label_type_id', 'text', (col) => col.notNull().references('label_types.id').onDelete('cascade'))
    .addColumn('upstream', 'text', (col) => col.notNull())
    .addColumn('carrier', 'text', (col) => col.notNull())
    .addColumn('service', 'text', (col) => col.notNull())
    .addColumn('carrier_account', 'text')
    .addPrimaryKeyConstraint('upstream_services_pk', ['label_type_id', 'upstream'])
    .execute();
  await sql`insert into upstream_services (label_type_id, upstream, carrier, service, carrier_account)
    select id, 'easypost', upstream_carrier, upstream_service, upstream_carrier_account from label_types
    where upstream_carrier is not null and upstream_service is not null`.execute(db);
  for (const [uid, mapped] of Object.entries(DEFAULT_UPSTREAM_SERVICES.shippo))
    await sql`insert into upstream_services (label_type_id, upstream, carrier, service)
      select id, 'shippo', ${mapped.carrier}, ${mapped.service} from label_types where uid = ${uid}`.execute(db);
  for (const column of ['upstream_carrier', 'upstream_service', 'upstream_carrier_account'])
    await db.schema.alterTable('label_types').dropColumn(column).execute();
  await db.schema.alterTable('orders').renameColumn('shipment_id', 'upstream_ref').execute();
  // Shippo keeps no idempotency key: when a purchase was asked, so no second is asked while it may still land.
  await db.schema.alterTable('orders').addColumn('upstream_asked_at', 'text').execute();
  await db.schema.createIndex('orders_upstream_ref').on('orders').columns(['upstream_ref']).execute();
  // Shippo's tracking webhooks name the tracking number.
  await db.schema.createIndex('orders_tracking').on('orders').columns(['tracking']).execute();
  await db.schema.alterTable('easypost_events').renameTo('upstream_events').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('upstream_events').renameTo('easypost_events').execute();
  await db.schema.dropIndex('orders_tracking').execute();
  await db.schema.dropIndex('orders_upstream_ref').execute();
  await db.schema.alterTable('orders').dropColumn('upstream_asked_at').execute();
  await db.schema.alterTable('orders').renameColumn('upstream_ref', 'shipment_id').execute();
  for (const column of ['upstream_carrier', 'upstream_service', 'upstream_carrier_account'])
    await db.schema.alterTable('label_types').addColumn(column, 'text').execute();
  await sql`update label_types set upstream_carrier = u.carrier, upstream_service = u.service, upstream_carrier_account = u.carrier_account
    from upstream_services u where u.label_type_id = label_types.id and u.upstream = 'easypost'`.execute(db);
  await db.schema.dropTable('upstream_services').execute();
}
