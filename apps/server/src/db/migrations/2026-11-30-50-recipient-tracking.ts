import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The recipient (issue 51, part 4). A completed label's public tracking page is found by orders.tracking_token (random,
 * made with the order; unique). The orders before it are given one here, from the database's own strong random source:
 * 122 bits of gen_random_uuid() on PostgreSQL, 128 of randomblob() on SQLite. orders.to_email is the recipient's address for status mails,
 * which a customer turns on (users.recipient_emails, off by default). recipient_mails holds one row per label and
 * status, taken before its mail is sent, so a status is mailed at most once; recipient_unsubscribes holds the addresses
 * that asked a customer's labels to stop mailing them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').addColumn('tracking_token', 'text').execute();
  await db.schema.alterTable('orders').addColumn('to_email', 'text').execute();
  const random = db.getExecutor().adapter instanceof PostgresAdapter ? sql`replace(gen_random_uuid()::text, '-', '')` : sql`lower(hex(randomblob(16)))`;
  await db.updateTable('orders').set({ tracking_token: random }).execute();
  await db.schema.createIndex('orders_tracking_token').unique().on('orders').column('tracking_token').execute();
  await db.schema
    .alterTable('users')
    .addColumn('recipient_emails', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('recipient_mails')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('recipient_mails_order_status', ['order_id', 'status'])
    .execute();
  await db.schema.createIndex('recipient_mails_state').on('recipient_mails').columns(['state', 'created_at']).execute();
  await db.schema
    .createTable('recipient_unsubscribes')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('recipient_unsubscribes_pk', ['user_id', 'email'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('recipient_unsubscribes').execute();
  await db.schema.dropTable('recipient_mails').execute();
  await db.schema.alterTable('users').dropColumn('recipient_emails').execute();
  await db.schema.dropIndex('orders_tracking_token').execute();
  await db.schema.alterTable('orders').dropColumn('to_email').execute();
  await db.schema.alterTable('orders').dropColumn('tracking_token').execute();
}
