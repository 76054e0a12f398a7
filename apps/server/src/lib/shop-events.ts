import type { TrackingStatus } from '@portal/contract';
import type { DbOrTrx } from '../db/database.ts';
import type { ShopEventsTable } from '../db/schema.ts';

/**
 * What happened to a user's orders and balance. A service writes the event as an outbox row (shop_events) in the
 * transaction or statement of the change it announces (recordEvents, or rows given to changeBalance), and after the
 * commit hands the row to the outbox (ShopEventOutbox.committed) so that it is dispatched at once; the rows a crash
 * left behind are dispatched by the outbox's sweep. Dispatching records the webhook deliveries and Telegram messages
 * an event makes, each sent by a queue job of its own.
 */
export type ShopEvent =
  | { type: 'order.completed' | 'order.cancelled' | 'order.refunded' | 'order.refund_rejected'; userId: string; orderId: string }
  /** A label's tracking status changed (EasyPost's tracker, or the sandbox's timer); `bulk`: a bulk order's row. */
  | { type: 'order.tracking'; userId: string; orderId: string; status: TrackingStatus; bulk: boolean }
  | { type: 'bulk.completed'; userId: string; bulkOrderId: string }
  /** A SCAN form was made: its PDF can be downloaded. */
  | { type: 'scan_form.created'; userId: string; scanFormId: string }
  /** A carrier pickup was booked, or cancelled (its fee refunded). */
  | { type: 'pickup.booked' | 'pickup.cancelled'; userId: string; pickupId: string }
  | { type: 'fedex.completed' | 'fedex.cancelled'; userId: string; fedexOrderId: string }
  /** A paid deposit: the amounts as credited and the balance the credit left behind. */
  | { type: 'deposit.credited'; userId: string; invoiceId: string; amountCents: number; bonusPercent: number; bonusCents: number; balanceCents: number };

export type ShopEventRow = ShopEventsTable;

/** The id of the thing an event is about. */
function subjectOf(event: ShopEvent): string {
  switch (event.type) {
    case 'order.completed':
    case 'order.cancelled':
    case 'order.tracking':
    case 'order.refunded':
    case 'order.refund_rejected':
      return event.orderId;
    case 'bulk.completed':
      return event.bulkOrderId;
    case 'scan_form.created':
      return event.scanFormId;
    case 'pickup.booked':
    case 'pickup.cancelled':
      return event.pickupId;
    case 'fedex.completed':
    case 'fedex.cancelled':
      return event.fedexOrderId;
    case 'deposit.credited':
      return event.invoiceId;
  }
}

/**
 * The outbox row of an event. Its id is the event's name (a tracking event's with its status), so an event written
 * twice (a job run again) is one row.
 */
export function eventRow(event: ShopEvent, at: string): ShopEventRow {
  const subject = subjectOf(event);
  const data =
    event.type === 'deposit.credited'
      ? JSON.stringify({ amountCents: event.amountCents, bonusPercent: event.bonusPercent, bonusCents: event.bonusCents, balanceCents: event.balanceCents })
      : event.type === 'order.tracking'
        ? JSON.stringify({ status: event.status, bulk: event.bulk })
        : null;
  const id = event.type === 'order.tracking' ? `${event.type}:${subject}:${event.status}` : `${event.type}:${subject}`;
  return { id, type: event.type, user_id: event.userId, subject_id: subject, data, created_at: at };
}

/** The event an outbox row holds. */
export function eventOf(row: ShopEventRow): ShopEvent {
  const type = row.type as ShopEvent['type'];
  const userId = row.user_id;
  switch (type) {
    case 'order.completed':
    case 'order.cancelled':
    case 'order.refunded':
    case 'order.refund_rejected':
      return { type, userId, orderId: row.subject_id };
    case 'order.tracking': {
      const data = JSON.parse(row.data ?? '{}') as { status: TrackingStatus; bulk: boolean };
      return { type, userId, orderId: row.subject_id, status: data.status, bulk: Boolean(data.bulk) };
    }
    case 'bulk.completed':
      return { type, userId, bulkOrderId: row.subject_id };
    case 'scan_form.created':
      return { type, userId, scanFormId: row.subject_id };
    case 'pickup.booked':
    case 'pickup.cancelled':
      return { type, userId, pickupId: row.subject_id };
    case 'fedex.completed':
    case 'fedex.cancelled':
      return { type, userId, fedexOrderId: row.subject_id };
    case 'deposit.credited': {
      const data = JSON.parse(row.data ?? '{}') as { amountCents: number; bonusPercent: number; bonusCents: number; balanceCents: number };
      return { type, userId, invoiceId: row.subject_id, ...data };
    }
    default:
      throw new Error(`Unknown shop event type ${row.type}`);
  }
}

/**
 * Writes events in the caller's transaction, beside the change they announce. An event already there (the same change
 * announced again, by a job run again) stays one row.
 */
export async function recordEvents(db: DbOrTrx, rows: ShopEventRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('shop_events')
    .values(rows)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

export type ShopEventOutbox = {
  /** After the commit that wrote them: the rows go to this process's dispatcher at once. Never throws, never waits. */
  committed(rows: ShopEventRow[]): void;
};

/** For a service built without an outbox (tests of a service alone): the rows wait for a sweep. */
export const idleOutbox: ShopEventOutbox = { committed: () => {} };
