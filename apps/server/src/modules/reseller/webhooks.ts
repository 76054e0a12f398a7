import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import {
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_EVENTS,
  WEBHOOK_EVENT_HEADER,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RECENT_DELIVERIES,
  WEBHOOK_REMOVED,
  WEBHOOK_SAVED,
  WEBHOOK_SECRET_ROTATED,
  WEBHOOK_SIGNATURE_HEADER,
  type WebhookDelivery,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookSettingsResponse,
} from '@portal/contract';
import type { Db } from '../../db/database.ts';
import { HttpError } from '../../lib/http-errors.ts';
import { newId, nowIso, randomToken } from '../../lib/ids.ts';
import type { SealedBox } from '../../lib/sealed-box.ts';
import { eventOf, type ShopEvent, type ShopEventRow } from '../../lib/shop-events.ts';
import type { JobContext, JobQueue, RetryPolicy } from '../../queue/job-queue.ts';
import type { BulkService } from '../bulk/service.ts';
import type { OrderService, PickupService, ScanFormService } from '../orders/service.ts';
import { parseWebhookUrl, publicAddressesOf, systemLookup, type Lookup } from './address-guard.ts';
import { bulkSummaryOf, resellerOrderOf } from './answers.ts';
import * as repo from './repository.ts';

export const WEBHOOK_DELIVERY_JOB = 'webhook-delivery';
const secretContext = (userId: string) => `webhook-secret:${userId}`;
const newSecret = () => `whsec_${randomToken(32)}`;
/** The receiver's answer kept with a failed attempt. */
const MAX_ERROR_TEXT = 300;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "${t}.${body}" with the secret>` */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  const mac = crypto.createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** The events webhooks carry: label orders and bulk orders (the reseller API's own resources). */
type WebhookShopEvent = Extract<ShopEvent, { type: WebhookEventType }>;
const isWebhookEvent = (event: ShopEvent): event is WebhookShopEvent => (WEBHOOK_EVENTS as readonly string[]).includes(event.type);

/** Retries of a delivery: WEBHOOK_MAX_ATTEMPTS tries, base, 2 x base, 4 x base, ... apart (the default base of 680 s spans about a day). */
export const webhookRetryPolicy = (baseMs: number): RetryPolicy => ({ attempts: WEBHOOK_MAX_ATTEMPTS, delayMs: (attempt) => baseMs * 2 ** (attempt - 1) });

class DeliveryError extends Error {
  constructor(
    message: string,
    readonly statusCode: number | null = null,
  ) {
    super(message);
  }
}

export function createWebhookService(deps: {
  db: Db;
  queue: JobQueue;
  sealedBox: SealedBox;
  orders: OrderService;
  bulk: BulkService;
  scanForms: Pick<ScanFormService, 'resellerView'>;
  pickups: Pick<PickupService, 'view'>;
  log: FastifyBaseLogger;
  /** PUBLIC_URL: download links in events are absolute with it, paths without. */
  publicUrl?: string;
  allowPrivate: boolean;
  timeoutMs: number;
  retryBaseMs: number;
  lookup?: Lookup;
}) {
  const { db, queue, sealedBox, orders, bulk, log } = deps;
  const lookup = deps.lookup ?? systemLookup;
  const base = (deps.publicUrl ?? '').replace(/\/+$/, '');
  const retry = webhookRetryPolicy(deps.retryBaseMs);
  const queueDelivery = (id: string) => queue.enqueue(WEBHOOK_DELIVERY_JOB, { deliveryId: id }, { jobId: `webhook-${id}` });

  const toDelivery = (row: repo.WebhookDeliveryRow): WebhookDelivery => ({
    _id: row.id,
    event: row.event_type as WebhookEventType,
    eventId: row.event_id,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at,
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.next_attempt_at,
    deliveredAt: row.delivered_at,
  });

  async function settings(userId: string, message: string, secret?: string): Promise<WebhookSettingsResponse> {
    const endpoint = await repo.findWebhookEndpoint(db, userId);
    const deliveries = await repo.recentDeliveries(db, userId, WEBHOOK_RECENT_DELIVERIES);
    return {
      message,
      url: endpoint?.url ?? null,
      hasSecret: Boolean(endpoint?.secret_sealed),
      ...(secret ? { secret } : {}),
      events: [...WEBHOOK_EVENTS],
      deliveries: deliveries.map(toDelivery),
    };
  }

  /**
   * What an event says: the order or bulk order as the reseller API shows it, read when the event is dispatched (just
   * after its commit, or after a crash, later); null when it is gone.
   */
  async function payloadOf(event: WebhookShopEvent): Promise<WebhookEvent | null> {
    const created = Math.floor(Date.now() / 1000);
    if (event.type === 'bulk.completed') {
      const own = await bulk.findOwn(event.userId, event.bulkOrderId);
      return own && { id: `${event.type}-${event.bulkOrderId}`, type: event.type, created, data: { bulkOrder: bulkSummaryOf(own, base) } };
    }
    if ('pickupId' in event) {
      const pickup = await deps.pickups.view(event.userId, event.pickupId);
      return pickup && { id: `${event.type}-${event.pickupId}`, type: event.type, created, data: { pickup } };
    }
    if (event.type === 'scan_form.created') {
      const form = await deps.scanForms.resellerView(event.userId, event.scanFormId, base);
      return form && { id: `${event.type}-${event.scanFormId}`, type: event.type, created, data: { scanForm: form } };
    }
    const order = await orders.getOwn(event.userId, event.orderId).catch((error) => {
      if (error instanceof HttpError && error.statusCode === 404) return null;
      throw error;
    });
    if (!order) return null;
    // A tracking event is one a status: its id names it, and the order is told as of that status.
    const id = event.type === 'order.tracking' ? `${event.type}-${event.orderId}-${event.status}` : `${event.type}-${event.orderId}`;
    const shown = event.type === 'order.tracking' ? { ...order, trackingStatus: event.status } : order;
    return { id, type: event.type, created, data: { order: resellerOrderOf(shown, base) } };
  }

  /**
   * The outbox's receiver: records each webhook event for its user's webhook, once per user and event (its delivery id
   * stays the same however often the event is dispatched), and queues its delivery. Other kinds of event (FedEx,
   * deposits) are not webhook events. A delivery recorded before and never tried is queued again.
   */
  async function record(rows: ShopEventRow[]): Promise<void> {
    const events = rows.map(eventOf).filter(isWebhookEvent);
    if (events.length === 0) return;
    const endpoints = new Map((await repo.findWebhookEndpoints(db, [...new Set(events.map((e) => e.userId))])).map((e) => [e.user_id, e]));
    const deliveries: repo.WebhookDeliveryRow[] = [];
    for (const event of events) {
      const endpoint = endpoints.get(event.userId);
      if (!endpoint?.url || !endpoint.secret_sealed) continue;
      const payload = await payloadOf(event);
      if (!payload) continue;
      const at = nowIso();
      deliveries.push({
        id: newId(),
        user_id: event.userId,
        event_id: payload.id,
        event_type: payload.type,
        payload: JSON.stringify(payload),
        url: endpoint.url,
        status: 'pending',
        attempts: 0,
        last_status_code: null,
        last_error: null,
        last_attempt_at: null,
        next_attempt_at: at,
        delivered_at: null,
        created_at: at,
        updated_at: at,
      });
    }
    if (deliveries.length === 0) return;
    const inserted = await repo.insertDeliveries(db, deliveries);
    const queued = [...inserted];
    if (inserted.size < deliveries.length) {
      const before = deliveries.filter((d) => !inserted.has(d.id));
      for (const { id } of await repo.untriedDeliveries(
        db,
        [...new Set(before.map((d) => d.user_id))],
        before.map((d) => d.event_id),
      ))
        queued.push(id);
    }
    for (const id of queued) await queueDelivery(id);
  }

  /** One POST of the body to the URL, connecting only to the address checked (no DNS rebinding between check and connect). */
  async function post(url: URL, headers: Record<string, string>, body: string): Promise<number> {
    let addresses: { address: string; family: number }[];
    try {
      addresses = await publicAddressesOf(url, deps.allowPrivate, lookup);
    } catch (error) {
      throw new DeliveryError(error instanceof HttpError ? error.message : 'The webhook URL could not be checked');
    }
    const [pinned] = addresses;
    const pinnedLookup: LookupFunction = (_hostname, options, callback) => {
      if (options.all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
      else callback(null, pinned.address, pinned.family);
    };
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<number>((resolve, reject) => {
      const request = client.request(
        url,
        { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: pinnedLookup, timeout: deps.timeoutMs },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            if (text.length < MAX_ERROR_TEXT) text += chunk;
          });
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve(status);
            else reject(new DeliveryError(`The receiver answered ${status}${text ? `: ${text.slice(0, MAX_ERROR_TEXT)}` : ''}`, status));
          });
          response.on('error', (error) => reject(new DeliveryError(error.message)));
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${deps.timeoutMs} ms`)));
      request.on('error', (error) => reject(error instanceof DeliveryError ? error : new DeliveryError(error.message)));
      request.end(body);
    });
  }

  return {
    retry,

    /** GET /account/webhook */
    settings: (userId: string) => settings(userId, 'Webhook'),

    /** PUT /account/webhook: checks the URL (https, or http to localhost; no private address unless allowed); the first save creates the signing secret and shows it once. */
    async save(userId: string, rawUrl: string | null): Promise<WebhookSettingsResponse> {
      const url = rawUrl === null ? null : parseWebhookUrl(rawUrl);
      if (url) await publicAddressesOf(url, deps.allowPrivate, lookup);
      const current = await repo.findWebhookEndpoint(db, userId);
      const secret = url && !current?.secret_sealed ? newSecret() : undefined;
      const at = nowIso();
      await repo.saveWebhookEndpoint(db, {
        user_id: userId,
        url: url ? url.toString() : null,
        secret_sealed: secret ? sealedBox.seal(secret, secretContext(userId)) : (current?.secret_sealed ?? null),
        created_at: current?.created_at ?? at,
        updated_at: at,
      });
      return settings(userId, url ? WEBHOOK_SAVED : WEBHOOK_REMOVED, secret);
    },

    /** POST /account/webhook/secret: a new signing secret, shown once; the old one stops signing at once. */
    async rotateSecret(userId: string): Promise<{ message: string; secret: string }> {
      const current = await repo.findWebhookEndpoint(db, userId);
      const secret = newSecret();
      const at = nowIso();
      await repo.saveWebhookEndpoint(db, {
        user_id: userId,
        url: current?.url ?? null,
        secret_sealed: sealedBox.seal(secret, secretContext(userId)),
        created_at: current?.created_at ?? at,
        updated_at: at,
      });
      return { message: WEBHOOK_SECRET_ROTATED, secret };
    },

    record,

    /** The job's handler: one delivery attempt; throws (so the queue retries) until the last attempt, which marks it failed. */
    async deliver(deliveryId: string, job: Pick<JobContext, 'attempt'>): Promise<void> {
      const delivery = await repo.findDelivery(db, deliveryId);
      if (!delivery || delivery.status === 'delivered' || delivery.status === 'failed') return;
      const endpoint = await repo.findWebhookEndpoint(db, delivery.user_id);
      const at = nowIso();
      if (!endpoint?.url || !endpoint.secret_sealed) {
        await repo.updateDelivery(db, deliveryId, { status: 'failed', last_error: 'The webhook was removed', next_attempt_at: null, updated_at: at });
        return;
      }
      const url = new URL(endpoint.url);
      const secret = sealedBox.open(endpoint.secret_sealed, secretContext(delivery.user_id));
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'LabelPortal-Webhooks/1.0',
        [WEBHOOK_EVENT_HEADER]: delivery.event_type,
        [WEBHOOK_DELIVERY_HEADER]: delivery.id,
        [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secret, delivery.payload, Math.floor(Date.now() / 1000)),
      };
      const attempts = delivery.attempts + 1;
      try {
        const status = await post(url, headers, delivery.payload);
        await repo.updateDelivery(db, deliveryId, {
          status: 'delivered',
          attempts,
          url: endpoint.url,
          last_status_code: status,
          last_error: null,
          last_attempt_at: at,
          next_attempt_at: null,
          delivered_at: nowIso(),
          updated_at: nowIso(),
        });
      } catch (error) {
        // The delivery counts its own tries too: a job queued again with the engine's count reset still ends.
        const tries = Math.max(job.attempt, attempts);
        const last = tries >= retry.attempts;
        await repo.updateDelivery(db, deliveryId, {
          status: last ? 'failed' : 'retrying',
          attempts,
          url: endpoint.url,
          last_status_code: error instanceof DeliveryError ? error.statusCode : null,
          last_error: (error instanceof Error ? error.message : String(error)).slice(0, 500),
          last_attempt_at: at,
          next_attempt_at: last ? null : new Date(Date.now() + retry.delayMs(tries)).toISOString(),
          updated_at: nowIso(),
        });
        throw error;
      }
    },

    /** Queues deliveries recorded before `before` and never tried (a process stopped before queueing them); a queued one is not queued twice. */
    async resume(before: string): Promise<void> {
      const pending = await repo.unqueuedDeliveries(db, before, 500);
      for (const delivery of pending) await queueDelivery(delivery.id);
      if (pending.length > 0) log.info({ count: pending.length }, 'webhook deliveries never queued were queued');
    },
  };
}
export type WebhookService = ReturnType<typeof createWebhookService>;
