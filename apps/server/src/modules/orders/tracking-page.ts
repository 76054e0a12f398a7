import { isUpsLabelType, TRACKING_PAGE_NOT_FOUND, type TrackingPage, type TrackingStatus } from '@portal/contract';
import type { Db } from '../../db/database.ts';
import { notFound } from '../../lib/http-errors.ts';
import { nowIso } from '../../lib/ids.ts';
import type { RatesService } from '../rates/service.ts';
import * as repo from './recipient-repository.ts';

/** The carrier of a label: the one it was bought at, else its label type's. */
export const carrierOf = (label: { upstream_carrier: string | null; label_type_uid: string }) =>
  label.upstream_carrier ?? (isUpsLabelType(label.label_type_uid) ? 'UPS' : label.label_type_uid.startsWith('fedex') ? 'FedEx' : 'USPS');

/** Statuses the parcel can no longer be expected from: no delivery day is shown for them. */
const SETTLED: readonly string[] = ['delivered', 'return_to_sender', 'failure', 'cancelled'];

/** The public tracking page (GET /track/:token) and its unsubscribe link. */
export function createTrackingPages(deps: { db: Db; rates: Pick<RatesService, 'deliveryDateOf'> }) {
  const { db } = deps;

  /** The label of a token: a completed label's, else 404 (the same answer for every unknown token). */
  async function labelOf(token: string): Promise<repo.TrackedLabel> {
    const label = await repo.findByToken(db, token);
    if (!label) throw notFound(TRACKING_PAGE_NOT_FOUND);
    return label;
  }

  return {
    async page(token: string): Promise<TrackingPage> {
      const label = await labelOf(token);
      const voided = label.refund_status === 'refunded';
      const shipDate = label.ship_date ?? label.created_at.slice(0, 10);
      const [events, estimated] = await Promise.all([
        repo.trackingHistory(db, label.id),
        voided || !label.quote_id || SETTLED.includes(label.tracking_status ?? '')
          ? null
          : deps.rates.deliveryDateOf(label.user_id, label.quote_id, label.label_type_uid, shipDate),
      ]);
      // Each status once, at its first word: a carrier repeats in_transit at every facility, a replay repeats anything.
      const seen = new Set<string>();
      const history = events.filter((event) => !seen.has(event.status) && seen.add(event.status));
      return {
        carrier: carrierOf(label),
        service: label.label_type_name,
        trackingNumber: label.tracking,
        status: label.tracking_status as TrackingStatus | null,
        voided,
        from: { city: label.from_city, state: label.from_state },
        to: { city: label.to_city, state: label.to_state },
        shipDate: label.ship_date,
        estimatedDelivery: estimated,
        history: history.map((event) => ({ status: event.status as TrackingStatus, at: event.received_at })),
      };
    },

    /**
     * The recipient asks for no more mails: their address is off for every label of that customer (a recipient who says
     * stop means the sender, not the one parcel). Answers whether the label had an address to stop; 404 for no label.
     */
    async unsubscribe(token: string): Promise<boolean> {
      const label = await labelOf(token);
      if (!label.to_email) return false;
      await repo.unsubscribe(db, label.user_id, label.to_email, nowIso());
      return true;
    },

    /** Whether a token names a label (the unsubscribe page's first step). */
    exists: async (token: string) => Boolean(await labelOf(token)),
  };
}
export type TrackingPages = ReturnType<typeof createTrackingPages>;
