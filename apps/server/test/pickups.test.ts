import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  PICKUP_NOT_CANCELLABLE,
  PICKUP_REFUSALS,
  PICKUP_WINDOW_INVALID,
  getShopTimeZone,
  nextUspsPickupDay,
  shopDay,
  uspsPickupDayRequired,
  type Order,
  type PickupAnswer,
} from '@portal/contract';
import { dayStartIn } from '../src/lib/shop-time.ts';
import { WAIT } from './basics.ts';
import { engines, startTestApp, type TestApp } from './harness.ts';
import { orderPayload } from './order-fixtures.ts';
import { adminCall, signUpAdmin } from './admin-fixtures.ts';
import { fundedCustomer } from './customers.ts';
import { callApi, resellerUser } from './reseller-fixtures.ts';
import { startReceiver, verifySignature } from './webhook-receiver.ts';
import { ledgerSumCents } from '../src/modules/billing/service.ts';
import type { FakeEasyPost } from './fake-easypost.ts';
import { RATES_UNDER_PRICES, startEasyPostApp } from './easypost-fixtures.ts';

type User = Awaited<ReturnType<typeof fundedCustomer>>;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 09:00 to 13:00 of a day of the shop's time zone (YYYY-MM-DD). */
const windowOn = (day: string) => {
  const start = dayStartIn(getShopTimeZone(), day);
  return { minDatetime: new Date(start + 9 * HOUR).toISOString(), maxDatetime: new Date(start + 13 * HOUR).toISOString() };
};
/** A window every carrier takes: on USPS's next pickup day after the shop's today (at most a few days ahead). */
const window = () => windowOn(nextUspsPickupDay(shopDay()));

function pickupsOf(get: () => TestApp) {
  const completed = async (user: User, type = 'priority', overrides: Record<string, unknown> = {}) => {
    const res = await get().app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload(type, overrides), headers: user.headers });
    expect(res.statusCode).toBe(200);
    return res.json().orderId as string;
  };
  const post = (user: User, url: string, payload?: Record<string, unknown>) =>
    get().app.inject({ method: 'POST', url: `/api/v1${url}`, payload, headers: user.headers });
  const rated = async (user: User, orderIds: string[]) => {
    const res = await post(user, '/pickup/rates', { orderIds, ...window(), instructions: 'Back door' });
    expect(res.statusCode).toBe(200);
    return (res.json() as PickupAnswer).pickup;
  };
  const row = (id: string) => get().db.selectFrom('pickups').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const ledger = (userId: string) =>
    get()
      .db.selectFrom('ledger')
      .select(['kind', 'amount_cents'])
      .where('user_id', '=', userId)
      .where('kind', 'like', 'pickup_%')
      .orderBy('created_at')
      .execute();
  const settled = (id: string) =>
    vi.waitFor(async () => {
      const now = await row(id);
      if (now.status === 'booking' || now.status === 'cancelling') throw new Error(now.status);
      return now;
    }, WAIT);
  return { completed, post, rated, row, ledger, settled };
}

describe.each(engines)('carrier pickups through EasyPost (the official client against a strict fake), on the %s queue', (engine) => {
  let t: TestApp;
  let fake: FakeEasyPost;
  let close = async () => {};
  const { completed, post, rated, row, ledger, settled } = pickupsOf(() => t);

  beforeAll(async () => {
    ({ t, fake, close } = await startEasyPostApp(engine, 'pickups', () => ({ EASYPOST_TIMEOUT_MS: '500', ORDER_POLL_INTERVAL_MS: '100' })));
    fake.rates = { ...RATES_UNDER_PRICES };
  });
  afterAll(() => close());

  it("rates the labels' carrier's pickups, books one charging its fee once, and cancels it before the window refunding it once", async () => {
    const user = await fundedCustomer(t.app, 20_000, t.db);
    const ids = [await completed(user, 'ups_standard'), await completed(user, 'ups_standard')];
    const pickup = await rated(user, ids);
    expect(pickup).toMatchObject({ status: 'rated', carrier: 'UPS', labelCount: 2, instructions: 'Back door', fee: null });
    expect(pickup.rates).toEqual([
      { service: 'Same-Day Pickup', fee: 8.5 },
      { service: 'Future-Day Pickup', fee: 6.5 },
    ]);
    const balance = await ledgerSumCents(t.db, user.userId);
    const booked = await post(user, '/pickup', { pickupId: pickup._id, service: 'Future-Day Pickup' });
    expect(booked.statusCode).toBe(200);
    expect(booked.json()).toMatchObject({ message: 'Pickup booked', pickup: { status: 'booked', fee: 6.5, confirmation: expect.stringMatching(/^WTC/) } });
    expect(await ledger(user.userId)).toEqual([{ kind: 'pickup_fee', amount_cents: -650 }]);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(balance - 650);
    const orders = await t.db.selectFrom('orders').select('pickup_id').where('id', 'in', ids).execute();
    expect(orders.map((o) => o.pickup_id)).toEqual([pickup._id, pickup._id]);
    // Booked once: a second purchase is refused, and another customer finds nothing.
    expect((await post(user, '/pickup', { pickupId: pickup._id, service: 'Future-Day Pickup' })).statusCode).toBe(409);
    const other = await fundedCustomer(t.app, 0, t.db);
    expect((await post(other, `/pickup/${pickup._id}/cancel`)).statusCode).toBe(404);

    const cancelled = await post(user, `/pickup/${pickup._id}/cancel`);
    expect(cancelled.json()).toMatchObject({ pickup: { status: 'cancelled' } });
    expect(await ledger(user.userId)).toEqual([
      { kind: 'pickup_fee', amount_cents: -650 },
      { kind: 'pickup_refund', amount_cents: 650 },
    ]);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(balance);
    expect((await post(user, `/pickup/${pickup._id}/cancel`)).statusCode).toBe(409);
    expect([...fake.pickups.values()].find((p) => p.reference === pickup._id).status).toBe('canceled');
    // The labels may have another pickup now.
    expect((await rated(user, ids)).status).toBe('rated');
  });

  it('refuses labels of two from addresses, a window in the past, and a cancel once the window has started', async () => {
    const user = await fundedCustomer(t.app, 20_000, t.db);
    const a = await completed(user);
    const b = await completed(user, 'priority', { FromStreet: '99 Other Street' });
    const mixed = await post(user, '/pickup/rates', { orderIds: [a, b], ...window() });
    expect(mixed.statusCode).toBe(422);
    expect(mixed.json().message).toBe(PICKUP_REFUSALS.mixed);
    const past = await post(user, '/pickup/rates', {
      orderIds: [a],
      minDatetime: new Date(Date.now() - HOUR).toISOString(),
      maxDatetime: new Date().toISOString(),
    });
    expect(past.json().message).toBe(PICKUP_WINDOW_INVALID);
    // USPS picks up for free: no ledger row.
    const pickup = await rated(user, [a]);
    expect(pickup.rates).toEqual([{ service: 'NextDay', fee: 0 }]);
    expect((await post(user, '/pickup', { pickupId: pickup._id, service: 'NextDay' })).json().pickup.status).toBe('booked');
    expect(await ledger(user.userId)).toEqual([]);
    await t.db
      .updateTable('pickups')
      .set({ min_datetime: new Date(Date.now() - HOUR).toISOString() })
      .where('id', '=', pickup._id)
      .execute();
    const late = await post(user, `/pickup/${pickup._id}/cancel`);
    expect(late.statusCode).toBe(409);
    expect(late.json().message).toBe(PICKUP_NOT_CANCELLABLE);
  });

  it('a lost purchase answer books once and charges once: the sweep asks the upstream before buying again; a cancel the upstream could not take is asked again', async () => {
    const user = await fundedCustomer(t.app, 20_000, t.db);
    const pickup = await rated(user, [await completed(user, 'ups_standard')]);
    const purchases = fake.pickupPurchases;
    fake.faults.push({ kind: 'lose', on: 'pickup-buy', count: 1 });
    const answer = await post(user, '/pickup', { pickupId: pickup._id, service: 'Same-Day Pickup' });
    expect(answer.json().pickup.status).toBe('booking');
    expect(await settled(pickup._id)).toMatchObject({ status: 'booked', confirmation: expect.stringMatching(/^WTC/) });
    expect(fake.pickupPurchases - purchases).toBe(1);
    expect(await ledger(user.userId)).toEqual([{ kind: 'pickup_fee', amount_cents: -850 }]);

    fake.faults.push({ kind: '500', on: 'pickup-cancel', count: 1 });
    expect((await post(user, `/pickup/${pickup._id}/cancel`)).json().pickup.status).toBe('cancelling');
    expect(await settled(pickup._id)).toMatchObject({ status: 'cancelled' });
    expect(await ledger(user.userId)).toEqual([
      { kind: 'pickup_fee', amount_cents: -850 },
      { kind: 'pickup_refund', amount_cents: 850 },
    ]);
  });

  it('a purchase the upstream refuses fails the pickup and refunds its fee once', async () => {
    const user = await fundedCustomer(t.app, 20_000, t.db);
    const pickup = await rated(user, [await completed(user, 'ups_standard')]);
    // Bought upstream behind the shop's back: the strict fake refuses a second purchase.
    fake.pickups.get((await row(pickup._id)).upstream_ref!).status = 'scheduled';
    const answer = await post(user, '/pickup', { pickupId: pickup._id, service: 'Same-Day Pickup' });
    expect(answer.json().pickup).toMatchObject({ status: 'failed', message: expect.stringContaining('the carrier refused the pickup') });
    expect(await ledger(user.userId)).toEqual([
      { kind: 'pickup_fee', amount_cents: -850 },
      { kind: 'pickup_refund', amount_cents: 850 },
    ]);
    expect((await t.db.selectFrom('orders').select('pickup_id').where('user_id', '=', user.userId).executeTakeFirstOrThrow()).pickup_id).toBeNull();
  });
});

describe('carrier pickups on the sandbox', () => {
  let t: TestApp;
  const { completed, post, rated, ledger } = pickupsOf(() => t);
  beforeAll(async () => {
    t = await startTestApp({ LABEL_SANDBOX_TRACKING_STEP_MS: '0', WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  afterAll(() => t?.close());

  /** Each of the user's orders' pickup, by order id, as the history's page shows them. */
  const pickupsInHistory = async (user: User) =>
    Object.fromEntries(
      ((await t.app.inject({ method: 'GET', url: '/api/v1/order/read', headers: user.headers })).json().orders as Order[]).map((o) => [o._id, o.pickup]),
    );
  const details = async (user: User, id: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/order/details/${id}`, headers: user.headers })).json().order as Order;

  it('rates, books and cancels through the same path, a UPS fee charged and refunded once; the labels show the booked pickup', async () => {
    const user = await fundedCustomer(t.app, 20_000, t.db);
    const label = await completed(user, 'ups_standard');
    const other = await completed(user, 'ups_standard');
    const pickup = await rated(user, [label]);
    expect(pickup.rates).toEqual([{ service: 'Sandbox pickup', fee: 4.5 }]);
    const booked = (await post(user, '/pickup', { pickupId: pickup._id, service: 'Sandbox pickup' })).json().pickup;
    expect(booked).toMatchObject({ status: 'booked', confirmation: expect.stringMatching(/^SANDBOX-/) });
    // Its labels show the pickup: confirmation and window, in the history's page and in the order's details.
    const onLabel = { _id: pickup._id, status: 'booked', confirmation: booked.confirmation, minDatetime: pickup.minDatetime, maxDatetime: pickup.maxDatetime };
    expect(await pickupsInHistory(user)).toEqual({ [label]: onLabel, [other]: null });
    expect((await details(user, label)).pickup).toEqual(onLabel);
    expect((await post(user, `/pickup/${pickup._id}/cancel`)).json().pickup.status).toBe('cancelled');
    // A cancelled pickup lets its labels go: they show none (and may get another).
    expect(await pickupsInHistory(user)).toEqual({ [label]: null, [other]: null });
    expect((await details(user, label)).pickup).toBeNull();
    expect(await ledger(user.userId)).toEqual([
      { kind: 'pickup_fee', amount_cents: -450 },
      { kind: 'pickup_refund', amount_cents: 450 },
    ]);
    const list = (await t.app.inject({ method: 'GET', url: '/api/v1/pickup/read', headers: user.headers })).json();
    expect(list.pickups.map((p: { _id: string }) => p._id)).toEqual([pickup._id]);
  });

  it('the reseller API rates, books and cancels a pickup; pickup.booked and pickup.cancelled reach the webhook once each, signed', async () => {
    const receiver = await startReceiver();
    try {
      const user = await resellerUser(t.app, t.db, 20_000);
      const { secret } = (await t.app.inject({ method: 'PUT', url: '/api/v1/account/webhook', headers: user.headers, payload: { url: receiver.url } })).json();
      const label = await completed(user, 'ups_standard');
      const rates = await callApi(t.app, user.apiKey, 'POST', '/pickup/rates', { payload: { orderIds: [label], ...window() } });
      expect(rates.statusCode).toBe(200);
      const pickupId: string = rates.json().pickup._id;
      const booked = await callApi(t.app, user.apiKey, 'POST', '/pickup', { payload: { pickupId, service: 'Sandbox pickup' } });
      expect(booked.json()).toMatchObject({ type: 'success', pickup: { status: 'booked', fee: 4.5 } });
      const other = await resellerUser(t.app, t.db, 0);
      expect((await callApi(t.app, other.apiKey, 'POST', `/pickup/${pickupId}/cancel`)).statusCode).toBe(404);
      expect((await callApi(t.app, user.apiKey, 'POST', `/pickup/${pickupId}/cancel`)).json().pickup.status).toBe('cancelled');
      const types = () => receiver.received.map((r) => JSON.parse(r.body).type as string).filter((type) => type.startsWith('pickup.'));
      await vi.waitFor(() => expect(types().sort()).toEqual(['pickup.booked', 'pickup.cancelled']), WAIT);
      for (const delivery of receiver.received.filter((r) => JSON.parse(r.body).type.startsWith('pickup.'))) {
        expect(verifySignature(delivery.headers['x-portal-signature'], delivery.body, secret)).toBe(true);
        expect(JSON.parse(delivery.body).data.pickup).toMatchObject({ _id: pickupId, carrier: 'UPS' });
      }
    } finally {
      await receiver.close();
    }
  });

  it("the console lists one customer's forms and pickups by userId (an id checked), and counts pickup fees in the day's sales", async () => {
    const admin = await signUpAdmin(t);
    const consoleCall = async (path: string) => {
      const res = await adminCall(t.app, admin.headers, 'GET', path);
      expect(res.statusCode).toBe(200);
      return res.json();
    };
    const salesToday = async () => (await consoleCall('/overview')).sales.today as number;
    const [alice, bob] = [await fundedCustomer(t.app, 20_000, t.db), await fundedCustomer(t.app, 20_000, t.db)];
    const made: Record<string, { pickup: string; form: string }> = {};
    for (const user of [alice, bob]) {
      const pickup = await rated(user, [await completed(user, 'ups_standard')]);
      const before = await salesToday();
      expect((await post(user, '/pickup', { pickupId: pickup._id, service: 'Sandbox pickup' })).json().pickup.status).toBe('booked');
      // The $4.50 fee is a sale of the day (pickup_fee is one of the overview's sale kinds).
      expect(await salesToday()).toBeCloseTo(before + 4.5, 2);
      const form = await post(user, '/scan-form', { orderIds: [await completed(user)] });
      expect(form.statusCode).toBe(200);
      made[user.userId] = { pickup: pickup._id, form: form.json().forms[0]._id };
    }
    for (const user of [alice, bob]) {
      const { pickups } = await consoleCall(`/pickups?userId=${user.userId}`);
      expect(pickups.map((p: { _id: string; owner: { _id: string } }) => [p._id, p.owner._id])).toEqual([[made[user.userId].pickup, user.userId]]);
      expect(pickups[0]).toMatchObject({ status: 'booked', fee: 4.5 });
      const { forms } = await consoleCall(`/scan-forms?userId=${user.userId}`);
      expect(forms.map((f: { _id: string; owner: { _id: string } }) => [f._id, f.owner._id])).toEqual([[made[user.userId].form, user.userId]]);
    }
    // Without the filter, everyone's: both customers' are there.
    const everyone = (await consoleCall('/pickups')).pickups.map((p: { _id: string }) => p._id);
    expect(everyone).toEqual(expect.arrayContaining([made[alice.userId].pickup, made[bob.userId].pickup]));
    const allForms = (await consoleCall('/scan-forms')).forms.map((f: { _id: string }) => f._id);
    expect(allForms).toEqual(expect.arrayContaining([made[alice.userId].form, made[bob.userId].form]));
    // A customer with none has an empty list; a malformed id is refused.
    const nobody = await fundedCustomer(t.app, 0, t.db);
    expect((await consoleCall(`/pickups?userId=${nobody.userId}`)).pickups).toEqual([]);
    expect((await consoleCall(`/scan-forms?userId=${nobody.userId}`)).forms).toEqual([]);
    for (const path of ['/pickups?userId=', '/scan-forms?userId=a%20b']) expect((await adminCall(t.app, admin.headers, 'GET', path)).statusCode).toBe(400);
    // A customer cannot read the console's lists.
    expect((await adminCall(t.app, alice.headers, 'GET', `/pickups?userId=${alice.userId}`)).statusCode).toBe(403);
  });

  describe("a USPS pickup is on USPS's next business day of the shop", () => {
    afterEach(() => vi.useRealTimers());

    it('today (whatever day it is): the next pickup day taken, the day after it refused naming the day', async () => {
      const user = await fundedCustomer(t.app, 20_000, t.db);
      const label = await completed(user);
      const day = nextUspsPickupDay(shopDay());
      const dayAfter = new Date(Date.parse(`${day}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
      const late = await post(user, '/pickup/rates', { orderIds: [label], ...windowOn(dayAfter) });
      expect(late.statusCode).toBe(422);
      expect(late.json().message).toBe(uspsPickupDayRequired(day));
      expect((await t.db.selectFrom('pickups').select('id').where('user_id', '=', user.userId).execute()).length).toBe(0);
      const taken = await post(user, '/pickup/rates', { orderIds: [label], ...windowOn(day) });
      expect(taken.statusCode).toBe(200);
      expect(taken.json().pickup).toMatchObject({ status: 'rated', carrier: 'USPS' });
    });

    it("on a Saturday: Monday's window taken, Sunday's and Tuesday's refused, a window running into Tuesday refused; UPS takes Tuesday", async () => {
      // Saturday 5 December 2026, 15:00 in the shop (UTC): Sunday is no pickup day, so Monday is the next one.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-12-05T15:00:00Z'), shouldAdvanceTime: true });
      const user = await fundedCustomer(t.app, 20_000, t.db);
      const label = await completed(user);
      const rate = (window: { minDatetime: string; maxDatetime: string }, orderIds = [label]) => post(user, '/pickup/rates', { orderIds, ...window });
      for (const wrong of [
        windowOn('2026-12-06'),
        windowOn('2026-12-08'),
        { minDatetime: '2026-12-07T20:00:00.000Z', maxDatetime: '2026-12-08T02:00:00.000Z' },
      ]) {
        const refused = await rate(wrong);
        expect(refused.statusCode).toBe(422);
        expect(refused.json().message).toBe(uspsPickupDayRequired('2026-12-07'));
      }
      expect((await rate(windowOn('2026-12-07'))).json().pickup).toMatchObject({ status: 'rated', minDatetime: '2026-12-07T09:00:00.000Z' });
      const ups = await rate(windowOn('2026-12-08'), [await completed(user, 'ups_standard')]);
      expect(ups.statusCode).toBe(200);
      expect(ups.json().pickup).toMatchObject({ status: 'rated', carrier: 'UPS' });
    });
  });
});
