import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PICKUP_NOT_CANCELLABLE, PICKUP_REFUSALS, PICKUP_WINDOW_INVALID, type PickupAnswer } from '@portal/contract';
import { WAIT } from './basics.ts';
import { engines, startTestApp, type TestApp } from './harness.ts';
import { orderPayload } from './order-fixtures.ts';
import { fundedCustomer } from './customers.ts';
import { callApi, resellerUser } from './reseller-fixtures.ts';
import { startReceiver, verifySignature } from './webhook-receiver.ts';
import { ledgerSumCents } from '../src/modules/billing/service.ts';
import type { FakeEasyPost } from './fake-easypost.ts';
import { RATES_UNDER_PRICES, startEasyPostApp } from './easypost-fixtures.ts';

type User = Awaited<ReturnType<typeof fundedCustomer>>;
const HOUR = 3_600_000;
/** A window tomorrow (well within a day and a week). */
const window = () => ({ minDatetime: new Date(Date.now() + 20 * HOUR).toISOString(), maxDatetime: new Date(Date.now() + 24 * HOUR).toISOString() });

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

  it('rates, books and cancels through the same path, a UPS fee charged and refunded once', async () => {
    const user = await fundedCustomer(t.app, 20_000, t.db);
    const pickup = await rated(user, [await completed(user, 'ups_standard')]);
    expect(pickup.rates).toEqual([{ service: 'Sandbox pickup', fee: 4.5 }]);
    expect((await post(user, '/pickup', { pickupId: pickup._id, service: 'Sandbox pickup' })).json().pickup).toMatchObject({
      status: 'booked',
      confirmation: expect.stringMatching(/^SANDBOX-/),
    });
    expect((await post(user, `/pickup/${pickup._id}/cancel`)).json().pickup.status).toBe('cancelled');
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
});
