/** The one money and date formatters of the screens: $2,232.00 and the reader's own local date-time. */

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
/** Options of every date-time shown (e2e tests format with the same ones). */
export const DATE_TIME_OPTIONS: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'medium' };
export const DAY_OPTIONS: Intl.DateTimeFormatOptions = { dateStyle: 'medium' };
const dateTime = new Intl.DateTimeFormat(undefined, DATE_TIME_OPTIONS);
const day = new Intl.DateTimeFormat(undefined, DAY_OPTIONS);

/** $2,232.00; a debit shows as -$12.40. */
export const money = (amount: number) => dollars.format(amount);
/** Credits with a plus, debits with a minus: +$250.00, -$12.40. */
export const signedMoney = (amount: number) => `${amount < 0 ? '-' : '+'}${dollars.format(Math.abs(amount))}`;
/** A moment (ISO string) as the reader's local date and time. */
export const formatDate = (iso: string) => dateTime.format(new Date(iso));
/** A yyyy-mm-dd calendar date in the reader's own format, without shifting it through UTC. */
export function formatDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return day.format(new Date(y, m - 1, d));
}
