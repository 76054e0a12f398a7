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
export const uspsPickupDayRequired = (day: string) =>
  `A USPS pickup is on the next business day: ${day} (Monday to Saturday, not a federal holiday), the whole window that day in the shop's time zone`;
export const PICKUP_WINDOW_INVALID = `The pickup window must start in the future, within ${PICKUP_WINDOW_DAYS_AHEAD} days, and end after it starts, on the same day`;
export const PICKUP_SERVICE_UNKNOWN = 'The upstream offered no such pickup service';
export const PICKUP_ALREADY_BOOKED = 'This pickup was already booked';
export const PICKUP_NOT_CANCELLABLE = 'Only a booked pickup whose window has not started can be cancelled';
export const PICKUP_BOOKED = 'Pickup booked';
export const PICKUP_CANCELLED = 'Pickup cancelled; its fee was refunded';

// ---- USPS pickup days ----------------------------------------------------------------------------
// USPS picks up on the next business day: Monday to Saturday, not a federal holiday it observes.

const DAY_MS = 86_400_000;
const dayText = (utcMs: number) => new Date(utcMs).toISOString().slice(0, 10);
/** The nth (1-based; -1 the last) weekday (0 Sunday) of a month, as UTC ms. */
function nthWeekday(year: number, month: number, weekday: number, nth: number): number {
  if (nth < 0) {
    const last = Date.UTC(year, month + 1, 0);
    return last - ((new Date(last).getUTCDay() - weekday + 7) % 7) * DAY_MS;
  }
  const first = Date.UTC(year, month, 1);
  return first + (((weekday - new Date(first).getUTCDay() + 7) % 7) + (nth - 1) * 7) * DAY_MS;
}
/** A fixed-date holiday on a Sunday is kept on the Monday after; on a Saturday USPS keeps it that Saturday (it works Saturdays). */
function observed(year: number, month: number, date: number): number {
  const day = Date.UTC(year, month, date);
  return new Date(day).getUTCDay() === 0 ? day + DAY_MS : day;
}

/** The US federal holidays USPS observes in a year, as YYYY-MM-DD, by rule (5 U.S.C. 6103; Juneteenth from 2021). */
export function uspsHolidays(year: number): string[] {
  const days = [
    observed(year, 0, 1), // New Year's Day
    nthWeekday(year, 0, 1, 3), // Martin Luther King Jr. Day: third Monday of January
    nthWeekday(year, 1, 1, 3), // Washington's Birthday: third Monday of February
    nthWeekday(year, 4, 1, -1), // Memorial Day: last Monday of May
    ...(year >= 2021 ? [observed(year, 5, 19)] : []), // Juneteenth
    observed(year, 6, 4), // Independence Day
    nthWeekday(year, 8, 1, 1), // Labor Day: first Monday of September
    nthWeekday(year, 9, 1, 2), // Columbus Day: second Monday of October
    observed(year, 10, 11), // Veterans Day
    nthWeekday(year, 10, 4, 4), // Thanksgiving: fourth Thursday of November
    observed(year, 11, 25), // Christmas Day
  ];
  return days.map(dayText);
}

/** Whether USPS picks up on a YYYY-MM-DD day: not a Sunday, not a holiday it observes. */
export function isUspsPickupDay(day: string): boolean {
  const ms = Date.parse(`${day}T00:00:00Z`);
  return new Date(ms).getUTCDay() !== 0 && !uspsHolidays(new Date(ms).getUTCFullYear()).includes(day);
}

/** The day a USPS pickup asked on `today` (YYYY-MM-DD, the shop's day) is on: the next day USPS picks up. */
export function nextUspsPickupDay(today: string): string {
  let ms = Date.parse(`${today}T00:00:00Z`) + DAY_MS;
  while (!isUspsPickupDay(dayText(ms))) ms += DAY_MS;
  return dayText(ms);
}
