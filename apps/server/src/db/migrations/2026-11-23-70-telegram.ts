import type { Kysely } from 'kysely';

/** Telegram: each account's linked chat and message choices, one-time link tokens, the messages sent, and leases (the one long-polling process). */
export async function up(db: Kysely<any>): Promise<void> {
  // One row an account once it used Telegram; unlinking clears the chat and keeps the choices.
  await db.schema
    .createTable('telegram_accounts')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
    .addColumn('chat_id', 'text')
    .addColumn('chat_username', 'text')
    .addColumn('shop_url', 'text')
    .addColumn('muted', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('linked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // A chat is linked to one account at most (several unlinked rows hold NULL, which both dialects allow).
  await db.schema.createIndex('telegram_accounts_chat').on('telegram_accounts').column('chat_id').unique().execute();

  await db.schema
    .createTable('telegram_link_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('shop_url', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('telegram_link_tokens_expires').on('telegram_link_tokens').column('expires_at').execute();

  await db.schema
    .createTable('telegram_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('telegram_message_id', 'bigint')
    .addColumn('sent_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The idempotency key: an event is sent to a chat once, however often it is told or its job runs.
  await db.schema.createIndex('telegram_messages_chat_event').on('telegram_messages').columns(['chat_id', 'event_id']).unique().execute();
  await db.schema.createIndex('telegram_messages_status').on('telegram_messages').columns(['status', 'created_at']).execute();

  // A named lease one process holds until expires_at, renewing it while it lives.
  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('leases').execute();
  await db.schema.dropTable('telegram_messages').execute();
  await db.schema.dropTable('telegram_link_tokens').execute();
  await db.schema.dropTable('telegram_accounts').execute();
}
