import crypto from 'node:crypto';
import { type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // API keys are looked up by their SHA-256 (unique index) and kept only sealed (encrypted with the
  // server's key) for Account Setting. The plain keys are hashed here; the app seals them at its next
  // start, since this migration does not know the server's key.
  await db.schema.alterTable('users').renameColumn('api_key', 'api_key_sealed').execute();
  await db.schema.alterTable('users').addColumn('api_key_hash', 'text').execute();
  const users = await db.selectFrom('users').select(['id', 'api_key_sealed']).execute();
  for (const user of users) {
    const hash = crypto.createHash('sha256').update(user.api_key_sealed).digest('hex');
    await db.updateTable('users').set({ api_key_hash: hash }).where('id', '=', user.id).execute();
  }
  await db.schema.createIndex('users_api_key_hash').on('users').column('api_key_hash').unique().execute();

  // Idempotency-Key of the reseller API's create calls: claimed by a unique insert, answered once.
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text')
    .addColumn('status_code', 'integer')
    .addColumn('response', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('idempotency_keys_user_key').on('idempotency_keys').columns(['user_id', 'key']).unique().execute();
  await db.schema.createIndex('idempotency_keys_expires').on('idempotency_keys').column('expires_at').execute();

  // One webhook URL a user, with its signing secret (sealed), and every delivery of an event to it.
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
    .addColumn('url', 'text')
    .addColumn('secret_sealed', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // An event is delivered once to a user, however often it is told.
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['user_id', 'event_id']).unique().execute();
  await db.schema.createIndex('webhook_deliveries_user_created').on('webhook_deliveries').columns(['user_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema.dropIndex('users_api_key_hash').execute();
  await db.schema.alterTable('users').dropColumn('api_key_hash').execute();
  await db.schema.alterTable('users').renameColumn('api_key_sealed', 'api_key').execute();
}
