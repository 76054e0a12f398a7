import { describe, expect, it } from 'vitest';
import { isUspsPickupDay, nextUspsPickupDay, uspsHolidays } from './pickups-values.ts';

describe('USPS pickup days: Monday to Saturday, not a federal holiday', () => {
  it('counts the holidays by rule: fixed dates (a Sunday one kept on Monday) and the nth weekdays', () => {
    // 2026: Independence Day is a Saturday, which USPS keeps (it works Saturdays); nothing falls on a Sunday.
    expect(uspsHolidays(2026)).toEqual([
      '2026-01-01',
      '2026-01-19',
      '2026-02-16',
      '2026-05-25',
      '2026-06-19',
      '2026-07-04',
      '2026-09-07',
      '2026-10-12',
      '2026-11-11',
      '2026-11-26',
      '2026-12-25',
    ]);
    // 2023: New Year's Day a Sunday, kept on Monday 2 January; Memorial Day the last Monday of a May with five.
    expect(uspsHolidays(2023)).toContain('2023-01-02');
    expect(uspsHolidays(2023)).not.toContain('2023-01-01');
    expect(uspsHolidays(2023)).toContain('2023-05-29');
    // Juneteenth is a holiday from 2021 only.
    expect(uspsHolidays(2020)).not.toContain('2020-06-19');
    expect(uspsHolidays(2020)).toHaveLength(10);
  });

  it('a Friday is followed by Saturday, a Saturday by Monday', () => {
    expect(nextUspsPickupDay('2026-12-04')).toBe('2026-12-05');
    expect(nextUspsPickupDay('2026-12-05')).toBe('2026-12-07');
    expect(nextUspsPickupDay('2026-12-06')).toBe('2026-12-07');
    expect(nextUspsPickupDay('2026-12-07')).toBe('2026-12-08');
    expect(isUspsPickupDay('2026-12-05')).toBe(true);
    expect(isUspsPickupDay('2026-12-06')).toBe(false);
  });

  it('skips the holidays: Thanksgiving, Christmas kept on a Monday, New Year across the year', () => {
    // Thanksgiving 2026 is Thursday 26 November.
    expect(nextUspsPickupDay('2026-11-25')).toBe('2026-11-27');
    // Christmas 2022 a Sunday, kept on Monday 26: from Saturday 24 the next day is Tuesday 27.
    expect(nextUspsPickupDay('2022-12-24')).toBe('2022-12-27');
    // New Year's Day 2023 a Sunday, kept on Monday 2 January.
    expect(nextUspsPickupDay('2022-12-31')).toBe('2023-01-03');
    // Christmas 2026 a Friday: Saturday 26 is a pickup day.
    expect(nextUspsPickupDay('2026-12-24')).toBe('2026-12-26');
    // Memorial Day 2026 (Monday 25 May) after a Saturday.
    expect(nextUspsPickupDay('2026-05-23')).toBe('2026-05-26');
  });
});
