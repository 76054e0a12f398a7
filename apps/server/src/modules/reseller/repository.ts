import type { DbOrTrx } from '../../db/database.ts';
import type { IdempotencyKeysTable, WebhookDeliveriesTable, WebhookEndpointsTable } from '../../db/schema.ts';

export type IdempotencyRow = IdempotencyKeysTable;
export type WebhookEndpointRow = WebhookEndpointsTable;
export type WebhookDeliveryRow = WebhookDeliveriesTable;

// ---- idempotency keys ----

/** Claims a key with a unique insert; false when the user already holds this key. */
export async function insertIdempotencyKey(db: DbOrTrx, row: IdempotencyRow): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export const findIdempotencyKey = (db: DbOrTrx, userId: string, key: string) =>
  db.selectFrom('idempotency_keys').selectAll().where('user_id', '=', userId).where('key', '=', key).executeTakeFirst();

/** Deletes the claim this request (or a stale one) holds, as it was read; false when it changed meanwhile. */
export async function deleteIdempotencyKey(db: DbOrTrx, id: string, updatedAt: string): Promise<boolean> {
  const result = await db.deleteFrom('idempotency_keys').where('id', '=', id).where('updated_at', '=', updatedAt).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Records what a claimed request paid for, in the transaction of its charge. */
export const setIdempotencyResource = (db: DbOrTrx, id: string, resourceId: string, at: string) =>
  db.updateTable('idempotency_keys').set({ resource_id: resourceId, updated_at: at }).where('id', '=', id).execute();

/** Stores the answer that repeats will get. */
export const completeIdempotencyKey = (db: DbOrTrx, id: string, answer: { statusCode: number; response: string; at: string }) =>
  db
    .updateTable('idempotency_keys')
    .set({ state: 'done', status_code: answer.statusCode, response: answer.response, updated_at: answer.at })
    .where('id', '=', id)
    .execute();

/** Takes over a claim whose request died: false when another request took it first. */
export async function retakeIdempotencyKey(db: DbOrTrx, id: string, staleUpdatedAt: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ updated_at: at })
    .where('id', '=', id)
    .where('updated_at', '=', staleUpdatedAt)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const deleteExpiredIdempotencyKeys = (db: DbOrTrx, now: string) => db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).execute();

// ---- webhooks ----

export const findWebhookEndpoint = (db: DbOrTrx, userId: string) =>
  db.selectFrom('webhook_endpoints').selectAll().where('user_id', '=', userId).executeTakeFirst();

export const findWebhookEndpoints = (db: DbOrTrx, userIds: string[]) =>
  db.selectFrom('webhook_endpoints').selectAll().where('user_id', 'in', userIds).execute();

export async function saveWebhookEndpoint(db: DbOrTrx, row: WebhookEndpointRow): Promise<void> {
  await db
    .insertInto('webhook_endpoints')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ url: row.url, secret_sealed: row.secret_sealed, updated_at: row.updated_at }))
    .execute();
}

/** Inserts deliveries, each once per user and event: answers the ids of those inserted (an event recorded before keeps its delivery). */
export async function insertDeliveries(db: DbOrTrx, rows: WebhookDeliveryRow[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const inserted = await db
    .insertInto('webhook_deliveries')
    .values(rows)
    .onConflict((oc) => oc.columns(['user_id', 'event_id']).doNothing())
    .returning('id')
    .execute();
  return new Set(inserted.map((row) => row.id));
}

/** The deliveries of these users' events not tried yet (recorded before, perhaps never queued). */
export const untriedDeliveries = (db: DbOrTrx, userIds: string[], eventIds: string[]) =>
  db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('user_id', 'in', userIds)
    .where('event_id', 'in', eventIds)
    .where('status', '=', 'pending')
    .where('attempts', '=', 0)
    .execute();

export const findDelivery = (db: DbOrTrx, id: string) => db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();

export const updateDelivery = (db: DbOrTrx, id: string, changes: Partial<Omit<WebhookDeliveryRow, 'id' | 'user_id' | 'event_id'>>) =>
  db.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute();

export const recentDeliveries = (db: DbOrTrx, userId: string, limit: number) =>
  db.selectFrom('webhook_deliveries').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();

/** Deliveries never tried that were recorded before `before`. */
export const unqueuedDeliveries = (db: DbOrTrx, before: string, limit: number) =>
  db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('attempts', '=', 0)
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit)
    .execute();
