import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from '../../db/database.ts';
import { HttpError } from '../../lib/http-errors.ts';
import { TRACKING_STATUSES, type TrackingStatus } from '@portal/contract';
import { nowIso } from '../../lib/ids.ts';
import type { ShopEventOutbox } from '../../lib/shop-events.ts';
import * as repo from './repository.ts';
import { setTrackingStatus } from './tracking.ts';

export const EASYPOST_WEBHOOK_OFF = 'EasyPost webhooks are not set up (EASYPOST_WEBHOOK_SECRET)';
export const EASYPOST_SIGNATURE_INVALID = 'The webhook signature does not match';

const REFUND_STATUSES = ['submitted', 'refunded', 'rejected', 'not_applicable'];

/** The Shipment and refund status an event's result tells, if it is about a refund. */
function refundOf(result: any): { shipmentId: string; status: string } | null {
  if (result?.object === 'Refund' && typeof result.shipment_id === 'string' && REFUND_STATUSES.includes(result.status))
    return { shipmentId: result.shipment_id, status: result.status };
  if (result?.object === 'Shipment' && typeof result.id === 'string' && REFUND_STATUSES.includes(result.refund_status))
    return { shipmentId: result.id, status: result.refund_status };
  return null;
}

/**
 * An EasyPost webhook event (POST /api/v1/labels/webhook/easypost). The X-Hmac-Signature over the raw body is checked
 * by the official client's validateWebhook (NFKD-normalised secret, constant time): a forged event is refused (401)
 * before anything is read. Each event id is taken once, so a replay changes nothing. tracker.updated sets the
 * tracking status of the order whose Shipment it tracks (setTrackingStatus: its order.tracking event goes to the
 * outbox); other events are acknowledged and ignored.
 */
export async function handleEasyPostEvent(
  db: Db,
  outbox: ShopEventOutbox,
  secret: string | undefined,
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  onRefund?: (shipmentId: string, refundStatus: string) => Promise<boolean>,
): Promise<{ message: string }> {
  if (!secret) throw new HttpError(401, EASYPOST_WEBHOOK_OFF);
  let event: any;
  try {
    // validateWebhook needs a client only for its Utils; no call is made. Loaded with the first event: the client is
    // 22 MB of a process that may never receive one.
    const { default: EasyPostClient } = await import('@easypost/api');
    event = new EasyPostClient('webhook-check').Utils.validateWebhook(rawBody, headers as Record<string, string>, secret);
  } catch {
    throw new HttpError(401, EASYPOST_SIGNATURE_INVALID);
  }
  if (!event || typeof event.id !== 'string') throw new HttpError(400, 'The event has no id');
  // A refund's word (a Refund object, or a Shipment with its refund_status): settled once by a conditional update, so
  // a replayed event changes nothing; the event id is kept after, so a crash in between loses nothing.
  const refund = refundOf(event.result);
  if (refund && onRefund) {
    if (await repo.easyPostEventSeen(db, event.id)) return { message: 'Already received' };
    const settled = await onRefund(refund.shipmentId, refund.status);
    await repo.takeEasyPostEvent(db, event.id, nowIso());
    return { message: settled ? 'Refund recorded' : 'Refund noted' };
  }
  const tracker = event.result;
  const status =
    typeof tracker?.status === 'string' && (TRACKING_STATUSES as readonly string[]).includes(tracker.status) ? (tracker.status as TrackingStatus) : null;
  if (event.description !== 'tracker.updated' || !status || typeof tracker.shipment_id !== 'string') return { message: 'Ignored' };
  const taken = await db.transaction().execute(async (trx) => {
    if (!(await repo.takeEasyPostEvent(trx, event.id, nowIso()))) return null;
    const orders = await repo.trackedByShipment(trx, tracker.shipment_id);
    return setTrackingStatus(trx, orders, status, nowIso());
  });
  if (taken) outbox.committed(taken);
  return { message: taken ? 'Tracking status recorded' : 'Already received' };
}
