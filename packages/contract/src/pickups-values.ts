import { SCAN_FORM_REFUSALS } from './scan-forms-values.ts';

/**
 * A carrier pickup's states: rated (the upstream's rates asked, nothing bought), booking (the fee charged, the purchase
 * asked), booked (its confirmation), failed (refused: the fee refunded), cancelling, cancelled (the fee refunded).
 */
export const PICKUP_STATUSES = ['rated', 'booking', 'booked', 'failed', 'cancelling', 'cancelled'] as const;
export type PickupStatus = (typeof PICKUP_STATUSES)[number];
export const PICKUP_STATUS_LABELS: Record<PickupStatus, string> = {
  rated: 'Not booked',
  booking: 'Booking',
  booked: 'Booked',
  failed: 'Failed',
  cancelling: 'Cancelling',
  cancelled: 'Cancelled',
};
export const PICKUP_LABELS_MAX = 1000;
export const PICKUP_INSTRUCTIONS_MAX = 200;
/** How far ahead a pickup may be asked for, in days. */
export const PICKUP_WINDOW_DAYS_AHEAD = 7;

export const PICKUP_NOT_FOUND = 'Pickup not found';
export const PICKUP_REFUSALS = {
  notFound: SCAN_FORM_REFUSALS.notFound,
  notCompleted: 'Only a completed label can be picked up',
  refunded: 'A refunded label (or one with a refund asked) is not picked up',
  onPickup: 'This label already has a pickup booked',
  mixed: 'A pickup takes labels of one carrier and one from address, bought at one upstream: ask for one pickup per group',
  noPickups: (upstream: string) => `Labels bought at ${upstream} cannot get a pickup through this shop`,
} as const;
export const PICKUP_WINDOW_INVALID = `The pickup window must start in the future, within ${PICKUP_WINDOW_DAYS_AHEAD} days, and end after it starts, on the same day`;
export const PICKUP_SERVICE_UNKNOWN = 'The upstream offered no such pickup service';
export const PICKUP_ALREADY_BOOKED = 'This pickup was already booked';
export const PICKUP_NOT_CANCELLABLE = 'Only a booked pickup whose window has not started can be cancelled';
export const PICKUP_BOOKED = 'Pickup booked';
export const PICKUP_CANCELLED = 'Pickup cancelled; its fee was refunded';
