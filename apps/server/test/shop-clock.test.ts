import { afterEach, describe, expect, it, vi } from 'vitest';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { loadConfig } from '../src/config.ts';
import { dayIn, dayStartIn } from '../src/lib/shop-time.ts';
import { adminCall, signUpAdmin } from './admin-fixtures.ts';
import { fundedCustomer } from './customers.ts';
import { startTestApp } from './harness.ts';
import { orderPayload } from './order-fixtures.ts';

// Issue 49, One clock: SHOP_TIME_ZONE dates the label, and the console's day filters and overview count days in it.

/** 22:45 in New York on 29 November 2026: 03:45 UTC on the 30th. */
const NEW_YORK_EVENING = Date.parse('2026-11-30T03:45:00.000Z');
/** 00:15 in New York on the 30th (the New York day began at 05:00 UTC). */
const NEW_YORK_AFTER_MIDNIGHT = Date.parse('2026-11-30T05:15:00.000Z');

afterEach(() => {
  vi.useRealTimers();
});

async function pdfText(pdf: Uint8Array): Promise<string> {
  const doc = await getDocument({ data: new Uint8Array(pdf), verbosity: 0 }).promise;
  const content = await (await doc.getPage(1)).getTextContent();
  await doc.destroy();
  return content.items.map((item) => ('str' in item ? item.str : '')).join(' ');
}

describe('SHOP_TIME_ZONE', () => {
  it("is an IANA zone, the server's own by default; an unknown one stops the start, naming the setting", () => {
    expect(loadConfig({}).SHOP_TIME_ZONE).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(loadConfig({ SHOP_TIME_ZONE: 'America/New_York' }).SHOP_TIME_ZONE).toBe('America/New_York');
    expect(() => loadConfig({ SHOP_TIME_ZONE: 'Mars/Olympus_Mons' })).toThrowError(
      /SHOP_TIME_ZONE: must be an IANA time zone name, such as America\/New_York or UTC/,
    );
  });

  it("counts days from the zone's midnights, through clock changes", () => {
    expect(dayIn('America/New_York', NEW_YORK_EVENING)).toBe('2026-11-29');
    expect(dayIn('UTC', NEW_YORK_EVENING)).toBe('2026-11-30');
    expect(new Date(dayStartIn('America/New_York', '2026-11-30')).toISOString()).toBe('2026-11-30T05:00:00.000Z');
    // Summer time begins on 8 March 2026 at 02:00 and ends on 1 November at 02:00: days of 23 and 25 hours.
    expect(new Date(dayStartIn('America/New_York', '2026-03-08')).toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(new Date(dayStartIn('America/New_York', '2026-03-09')).toISOString()).toBe('2026-03-09T04:00:00.000Z');
    expect(new Date(dayStartIn('America/New_York', '2026-11-01')).toISOString()).toBe('2026-11-01T04:00:00.000Z');
    expect(new Date(dayStartIn('America/New_York', '2026-11-02')).toISOString()).toBe('2026-11-02T05:00:00.000Z');
    expect(new Date(dayStartIn('Asia/Kathmandu', '2026-11-30')).toISOString()).toBe('2026-11-29T18:15:00.000Z');
  });

  it('an order placed at 22:45 in New York (03:45 UTC the next day) ships, prints and counts on the New York day', async () => {
    const t = await startTestApp({ SHOP_TIME_ZONE: 'America/New_York' });
    try {
      // Only Date is moved (timers run as they do), from before the accounts are made.
      vi.useFakeTimers({ toFake: ['Date'], now: NEW_YORK_EVENING - 60 * 60_000, shouldAdvanceTime: true });
      const admin = await signUpAdmin(t);
      const user = await fundedCustomer(t.app, 10_000, t.db);
      const place = async () => {
        const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers });
        expect(res.statusCode).toBe(200);
        return t.db.selectFrom('orders').selectAll().where('user_id', '=', user.userId).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
      };

      vi.setSystemTime(NEW_YORK_EVENING);
      const evening = await place();
      expect(evening.created_at.slice(0, 10)).toBe('2026-11-30');
      expect(evening.ship_date).toBe('2026-11-29');
      const pdf = await t.app.inject({ method: 'GET', url: `/api/v1/order/download/${evening.id}`, headers: user.headers });
      expect(await pdfText(pdf.rawPayload)).toContain('Ship date 2026-11-29');
      const zpl = await t.app.inject({ method: 'GET', url: `/api/v1/order/download/${evening.id}?format=zpl`, headers: user.headers });
      expect(zpl.body).toContain('^FDShip date 2026-11-29^FS');

      const eveningPrice = Number(evening.price_cents) / 100;
      const overview = async () => (await adminCall(t.app, admin.headers, 'GET', '/overview')).json();
      const first = await overview();
      expect(first.timeZone).toBe('America/New_York');
      expect(first.sales.today).toBe(eveningPrice);
      expect(first.daily.at(-1)).toEqual({ date: '2026-11-29', sales: eveningPrice, deposits: 0 });

      // The console's day filters name New York days.
      const ordersOn = async (day: string) =>
        (await adminCall(t.app, admin.headers, 'GET', `/orders?from=${day}&to=${day}`)).json().orders.map((o: { _id: string }) => o._id);
      expect(await ordersOn('2026-11-29')).toEqual([evening.id]);
      expect(await ordersOn('2026-11-30')).toEqual([]);

      // 00:15 in New York: the next day, in the label, the overview and the filters.
      vi.setSystemTime(NEW_YORK_AFTER_MIDNIGHT);
      const night = await place();
      expect(night.ship_date).toBe('2026-11-30');
      const nightPrice = Number(night.price_cents) / 100;
      const second = await overview();
      expect(second.sales.today).toBe(nightPrice);
      expect(second.daily.slice(-2)).toEqual([
        { date: '2026-11-29', sales: eveningPrice, deposits: 0 },
        { date: '2026-11-30', sales: nightPrice, deposits: 0 },
      ]);
      expect(second.sales.last30d).toBe(eveningPrice + nightPrice);
      expect(await ordersOn('2026-11-30')).toEqual([night.id]);
      expect(await ordersOn('2026-11-29')).toEqual([evening.id]);

      // Back at 22:45 in New York, a ship date the customer picks is a New York day too (the web app learns the zone from
      // the access check): the New York today is taken while the UTC day is already the 30th; the day before is refused.
      vi.setSystemTime(NEW_YORK_EVENING);
      expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: user.headers })).json().timeZone).toBe('America/New_York');
      const withShipDate = (ShipDate: string) =>
        t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority', { ShipDate }), headers: user.headers });
      const yesterday = await withShipDate('2026-11-28');
      expect([yesterday.statusCode, yesterday.json().message]).toEqual([
        400,
        'Ship Date must be from today to 7 days ahead (2026-11-29 to 2026-12-06, America/New_York)',
      ]);
      expect((await withShipDate('2026-12-07')).statusCode).toBe(400);
      expect((await withShipDate('2026-11-29')).statusCode).toBe(200);
      const shipDates = await t.db.selectFrom('orders').select('ship_date').where('user_id', '=', user.userId).execute();
      expect(shipDates.map((o) => o.ship_date).sort()).toEqual(['2026-11-29', '2026-11-29', '2026-11-30']);
    } finally {
      vi.useRealTimers();
      await t.close();
    }
  });
});
