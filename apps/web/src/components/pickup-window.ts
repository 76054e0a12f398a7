import { PICKUP_STATUS_LABELS, type OrderPickup } from '@portal/contract';
import { formatClock, formatDay } from './format.ts';

const pad = (n: number) => String(n).padStart(2, '0');
const localDay = (at: Date) => `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
const localClock = (at: Date) => formatClock(`${pad(at.getHours())}:${pad(at.getMinutes())}`);

/** A pickup's window in the reader's time and locale: Dec 1, 2026, 09:00 AM – 01:00 PM (the end's day too when it is another one). */
export function pickupWindowText(window: { minDatetime: string; maxDatetime: string }): string {
  const from = new Date(window.minDatetime);
  const until = new Date(window.maxDatetime);
  const end = localDay(until) === localDay(from) ? localClock(until) : `${formatDay(localDay(until))}, ${localClock(until)}`;
  return `${formatDay(localDay(from))}, ${localClock(from)} – ${end}`;
}

/**
 * What Order History and Order Details say of the pickup a label is on: "Pickup WTC123, <window>" once booked. A pickup
 * that failed or was cancelled lets its labels go (the server shows none), so only these three states reach here.
 */
export function orderPickupText(pickup: OrderPickup): string {
  const window = pickupWindowText(pickup);
  if (pickup.status === 'booked') return `Pickup ${pickup.confirmation ?? ''}, ${window}`;
  if (pickup.status === 'cancelling') return `Pickup ${pickup.confirmation ?? ''} being cancelled (was ${window})`;
  return `Pickup being booked for ${window}`;
}

/** The row's short badge: the confirmation once booked, else the state. */
export const orderPickupBadge = (pickup: OrderPickup) =>
  pickup.status === 'booked' ? `Pickup ${pickup.confirmation ?? ''}`.trim() : `Pickup ${PICKUP_STATUS_LABELS[pickup.status].toLowerCase()}`;
