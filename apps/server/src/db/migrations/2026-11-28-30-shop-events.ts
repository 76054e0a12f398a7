import type { Kysely } from 'kysely';

/**
 * shop_events: the outbox of what happened to a customer's orders and balance (order completed or cancelled and
 * refunded, bulk order done, FedEx order done, deposit credited). A row is written in the transaction (or statement)
 * of the change it announces and deleted once the webhook deliveries and Telegram messages it makes are recorded, so
 * a crash between the commit and those records leaves the row to be dispatched again. Its id names the event
 * (`order.completed:<order id>`): a change announced twice is one row. No foreign key: a row lives a few
 * milliseconds, and the key's check would cost every order a look-up of its customer.
 *
 * telegram_messages.claimed_until: how long the run that took a message to send it holds it. A message whose holder
 * died while sending is taken again once it is over (it may then reach the chat twice; never not at all).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('shop_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('data', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('shop_events_created').on('shop_events').column('created_at').execute();
  await db.schema.alterTable('telegram_messages').addColumn('claimed_until', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('telegram_messages').dropColumn('claimed_until').execute();
  await db.schema.dropTable('shop_events').execute();
}
