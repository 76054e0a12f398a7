import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from '../../db/database.ts';
import { HttpError, notFound } from '../../lib/http-errors.ts';
import { TRACKING_STATUSES, type TrackingStatus } from '@portal/contract';
import { nowIso } from '../../lib/ids.ts';
import type { ShopEventOutbox } from '../../lib/shop-events.ts';
import { WebhookRefused, type LabelProvider } from '../../providers/labels/label-provider.ts';
import * as repo from './repository.ts';
import { setTrackingStatus } from './tracking.ts';

export const UPSTREAM_WEBHOOK_UNKNOWN = 'This shop buys no labels at that upstream';

/**
 * An upstream's webhook event (POST /api/v1/labels/webhook/:upstream). The upstream's adapter verifies and reads it
 * (a forged one is refused before anything is read); each event id is taken once per upstream, so a replay changes
 * nothing. A refund's word settles the requested refund of the order bought there as that shipment; a tracking
 * status is set on the order it names (setTrackingStatus: its order.tracking event goes to the outbox); anything else
 * is acknowledged and ignored.
 */
export async function handleUpstreamEvent(
  db: Db,
  outbox: ShopEventOutbox,
  upstream: LabelProvider | undefined,
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  query: Record<string, string>,
  onRefund?: (upstream: string, shipmentRef: string, refundStatus: string) => Promise<boolean>,
): Promise<{ message: string }> {
  if (!upstream?.parseWebhook) throw notFound(UPSTREAM_WEBHOOK_UNKNOWN);
  let news;
  try {
    news = await upstream.parseWebhook(rawBody, headers, query);
  } catch (error) {
    if (error instanceof WebhookRefused) throw new HttpError(error.statusCode, error.message);
    throw error;
  }
  if (!news) return { message: 'Ignored' };
  const eventId = `${upstream.name}:${news.eventId}`;
  // A refund's word: settled once by a conditional update, so a replayed event changes nothing; the event id is kept
  // after, so a crash in between loses nothing.
  if (news.refund && onRefund) {
    if (await repo.upstreamEventSeen(db, eventId)) return { message: 'Already received' };
    const settled = await onRefund(upstream.name, news.refund.shipmentRef, news.refund.status);
    await repo.takeUpstreamEvent(db, eventId, nowIso());
    return { message: settled ? 'Refund recorded' : 'Refund noted' };
  }
  const tracking = news.tracking;
  const status = tracking && (TRACKING_STATUSES as readonly string[]).includes(tracking.status) ? (tracking.status as TrackingStatus) : null;
  if (!tracking || !status) return { message: 'Ignored' };
  const taken = await db.transaction().execute(async (trx) => {
    if (!(await repo.takeUpstreamEvent(trx, eventId, nowIso()))) return null;
    const orders = await repo.trackedAt(trx, upstream.name, tracking);
    return setTrackingStatus(trx, orders, status, nowIso());
  });
  if (taken) outbox.committed(taken);
  return { message: taken ? 'Tracking status recorded' : 'Already received' };
}
