/** The one money and date formatters of the screens: $2,232.00 and the reader's own local date-time. */

/** Made on first use: a date formatter loads its locale's data when made, and most screens show no dates. */
const madeOnce = <T>(make: () => T) => {
  let made: T | undefined;
  return () => (made ??= make());
};

/** Options of every date-time shown (e2e tests format with the same ones). */
export const DATE_TIME_OPTIONS: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'medium' };
export const DAY_OPTIONS: Intl.DateTimeFormatOptions = { dateStyle: 'medium' };
const dateTime = madeOnce(() => new Intl.DateTimeFormat(undefined, DATE_TIME_OPTIONS));
const day = madeOnce(() => new Intl.DateTimeFormat(undefined, DAY_OPTIONS));
/**
 * Makes the date-time formatter in a task of its own, soon: a screen that lists dates calls this when its module
 * loads, so the first render with dates does not carry the 10-15 ms of loading the locale's date data (in
 * Lighthouse's 4x slower CPU, a 60 ms blocking task in the dashboard's first render).
 */
export const prepareDateFormat = () => void setTimeout(dateTime);
/** Options of a time of day: as the browser's own time field shows one (09:30 AM, or 09:30 where the reader's clock has 24 hours). */
export const CLOCK_OPTIONS: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit' };
const clock = madeOnce(() => new Intl.DateTimeFormat(undefined, CLOCK_OPTIONS));

/**
 * $2,232.00 without Intl.NumberFormat: making one loaded ICU's number data, 8-12 ms of the first page's script.
 * Amounts are whole cents, so rounding to them is exact.
 */
function dollars(amount: number): string {
  const cents = Math.round(Math.abs(amount) * 100);
  const whole = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+$)/g, ',');
  return `$${whole}.${String(cents % 100).padStart(2, '0')}`;
}

/** $2,232.00; a debit shows as -$12.40. */
export const money = (amount: number) => `${amount < 0 ? '-' : ''}${dollars(amount)}`;
/** Credits with a plus, debits with a minus: +$250.00, -$12.40. */
export const signedMoney = (amount: number) => `${amount < 0 ? '-' : '+'}${dollars(amount)}`;
/** A moment (ISO string) as the reader's local date and time. */
export const formatDate = (iso: string) => dateTime().format(new Date(iso));
/** A yyyy-mm-dd calendar date in the reader's own format, without shifting it through UTC. */
export function formatDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return day().format(new Date(y, m - 1, d));
}
/** An HH:mm time of day in the reader's own format, the one of a time field beside it; none is ''. */
export function formatClock(time: string | null): string {
  if (!time) return '';
  const [hours, minutes] = time.split(':').map(Number);
  return clock().format(new Date(2000, 0, 1, hours, minutes));
}
