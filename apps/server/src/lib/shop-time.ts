/**
 * The shop's one clock (SHOP_TIME_ZONE): the day a label prints, the days the console's filters and the overview
 * count. Moments are stored as UTC ISO strings; a day of the shop is the range of them between two of its midnights,
 * computed here, so a query compares stored strings with two bounds and SQLite and PostgreSQL count the same days.
 */

const DAY_MS = 24 * 60 * 60_000;

/** The zone this process runs in (TZ, or the system's): SHOP_TIME_ZONE's default. */
export const serverTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';

/** Whether Intl knows the zone by this name (an IANA name such as America/New_York, or UTC). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function partsIn(zone: string, ms: number): { y: number; m: number; d: number; h: number; min: number; s: number } {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, format);
  }
  const part = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return { y: Number(part.year), m: Number(part.month), d: Number(part.day), h: Number(part.hour), min: Number(part.minute), s: Number(part.second) };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The yyyy-mm-dd day a moment falls on in the zone. */
export function dayIn(zone: string, ms: number = Date.now()): string {
  const { y, m, d } = partsIn(zone, ms);
  return `${y}-${pad(m)}-${pad(d)}`;
}

/** How far the zone's wall clock is ahead of UTC at a moment, in ms. */
function offsetAt(zone: string, ms: number): number {
  const { y, m, d, h, min, s } = partsIn(zone, ms);
  return Date.UTC(y, m - 1, d, h, min, s) - Math.floor(ms / 1000) * 1000;
}

/** The first moment (UTC ms) of a yyyy-mm-dd day in the zone: its midnight, or the first minute after a gap that skips it. */
export function dayStartIn(zone: string, day: string): number {
  const [y, m, d] = day.split('-').map(Number);
  const wall = Date.UTC(y, m - 1, d);
  let start = wall - offsetAt(zone, wall);
  start = wall - offsetAt(zone, start);
  // A clock change at midnight (a gap): the day starts at the first quarter hour it has.
  for (let i = 0; i < 16 && dayIn(zone, start) < day; i++) start += 15 * 60_000;
  while (dayIn(zone, start - 1) === day) start -= 15 * 60_000;
  return start;
}

/** The day after a yyyy-mm-dd day (calendar arithmetic, no zone). */
export const nextDay = (day: string, days = 1): string => new Date(Date.parse(`${day}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** The ISO bounds [from, until) of each of these days in the zone: what a query compares created_at with. */
export const dayBounds = (zone: string, days: string[]) =>
  days.map((day) => ({ day, from: new Date(dayStartIn(zone, day)).toISOString(), until: new Date(dayStartIn(zone, nextDay(day))).toISOString() }));
