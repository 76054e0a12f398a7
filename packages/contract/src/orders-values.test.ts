import { afterEach, describe, expect, it } from 'vitest';
import { setShopTimeZone, shopDay } from './orders-values.ts';

describe("shopDay: a day of the shop's time zone", () => {
  afterEach(() => setShopTimeZone('UTC'));
  const instants = ['2026-11-29T00:00:00Z', '2026-11-29T23:59:59.999Z', '2026-12-31T23:30:00Z', '2028-02-28T12:00:00Z'].map(Date.parse);

  it("on UTC (computed without Intl) is the day Intl gives, today and days ahead, across a month's and a year's end and a leap day", () => {
    const intlDay = (now: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
    for (const zone of ['UTC', 'Etc/UTC']) {
      setShopTimeZone(zone);
      for (const now of instants) {
        expect(shopDay(0, now)).toBe(intlDay(now));
        expect(shopDay(1, now)).toBe(intlDay(now + 86_400_000));
      }
    }
    expect(shopDay(7, Date.parse('2026-12-31T23:30:00Z'))).toBe('2027-01-07');
    expect(shopDay(1, Date.parse('2028-02-28T12:00:00Z'))).toBe('2028-02-29');
  });

  it('on another zone counts from its midnights, and a change of zone takes effect at once', () => {
    const now = Date.parse('2026-11-30T03:45:00Z'); // 22:45 the day before in New York, 17:45 the same day in Kiritimati
    setShopTimeZone('America/New_York');
    expect([shopDay(0, now), shopDay(7, now)]).toEqual(['2026-11-29', '2026-12-06']);
    setShopTimeZone('Pacific/Kiritimati');
    expect(shopDay(0, now)).toBe('2026-11-30');
    setShopTimeZone('UTC');
    expect(shopDay(0, now)).toBe('2026-11-30');
  });
});
