// Automatic voids of unused labels: the scheduled job asks the refund of exactly the labels old enough, unscanned, on
// no SCAN form or pickup, never asked, of accounts that did not turn it off; through the customer's refund path (one
// credit each, EasyPost asked once per label); and the dashboard's "saved this month".
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AUTO_VOID_OFF, type AutoVoidSaved } from '@portal/contract';
import { WAIT } from './basics.ts';
import { engines, type TestApp } from './harness.ts';
import { ledgerSumCents } from '../src/modules/billing/service.ts';
import { orderPayload } from './order-fixtures.ts';
import { fundedCustomer } from './customers.ts';
import type { FakeEasyPost } from './fake-easypost.ts';
import { RATES_UNDER_PRICES, startEasyPostApp } from './easypost-fixtures.ts';
import type { OrdersTable } from '../src/db/schema.ts';

type User = Awaited<ReturnType<typeof fundedCustomer>>;
const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();

describe.each(engines)('automatic voids of unused labels (EasyPost fake), on the %s queue', (engine) => {
  let t: TestApp;
  let fake: FakeEasyPost;
  let close = async () => {};

  beforeAll(async () => {
    ({ t, fake, close } = await startEasyPostApp(engine, 'auto-void', () => ({
      EASYPOST_TIMEOUT_MS: '500',
      ORDER_POLL_INTERVAL_MS: '100',
      REFUND_POLL_INTERVAL_MS: '100',
      REFUND_WINDOW_DAYS_USPS: '28',
      AUTO_VOID_DAYS_USPS: '25',
      AUTO_VOID_DAYS_UPS_FEDEX: '80',
      AUTO_VOID_INTERVAL_MS: '100',
    })));
    fake.rates = { ...RATES_UNDER_PRICES };
  });
  afterAll(() => close());

  async function completed(user: User, type = 'priority') {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload(type), headers: user.headers });
    expect(res.statusCode).toBe(200);
    return t.db.selectFrom('orders').selectAll().where('id', '=', res.json().orderId).executeTakeFirstOrThrow();
  }
  const orderNow = (id: string) => t.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const refundRows = (ids: string[]) => t.db.selectFrom('ledger').selectAll().where('kind', '=', 'label_refund').where('reference', 'in', ids).execute();

  it('asks the refund of exactly the unused labels old enough, once each, and the dashboard says what it saved', async () => {
    const user = await fundedCustomer(t.app, 20_000, t.db);
    const optedOut = await fundedCustomer(t.app, 5_000, t.db);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/account/auto-void', payload: { autoVoid: false }, headers: optedOut.headers })).json()).toEqual({
      message: AUTO_VOID_OFF,
    });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: optedOut.headers })).json().autoVoid).toBe(false);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: user.headers })).json().autoVoid).toBe(true);

    // Each label bought now, then set as the case needs, all in one transaction (a run sees all of them or none).
    type Case = { days: number; set?: Partial<OrdersTable>; type?: string; owner?: User };
    const due: Record<string, Case> = {
      usps26: { days: 26 },
      uspsPreTransit: { days: 27, set: { tracking_status: 'pre_transit' } },
      fedex85: { days: 85, type: 'fedex_ground' },
    };
    // Older than the due ones, so a run that wrongly took one of these would take it before the due ones.
    const kept: Record<string, Case> = {
      uspsTooNew: { days: 24 },
      uspsPastWindow: { days: 29 },
      fedexTooNew: { days: 79, type: 'fedex_ground' },
      fedexPastWindow: { days: 91, type: 'fedex_ground' },
      scanned: { days: 27.5, set: { tracking_status: 'in_transit' } },
      onScanForm: { days: 27.5, set: { scan_form_id: 'form-of-the-test' } },
      onPickup: { days: 27.5, set: { pickup_id: 'pickup-of-the-test' } },
      rejectedBefore: { days: 27.5, set: { refund_status: 'rejected', refund_note: 'the carrier rejected the refund' } },
      optedOut: { days: 27.5, owner: optedOut },
    };
    const ids: Record<string, string> = {};
    const prices: Record<string, number> = {};
    for (const [name, c] of Object.entries({ ...due, ...kept })) {
      const order = await completed(c.owner ?? user, c.type);
      ids[name] = order.id;
      prices[name] = Number(order.price_cents);
    }
    const balanceBefore = await ledgerSumCents(t.db, user.userId);
    const refundsBefore = fake.refunds;
    await t.db.transaction().execute(async (trx) => {
      for (const [name, c] of Object.entries({ ...due, ...kept }))
        await trx
          .updateTable('orders')
          .set({ created_at: daysAgo(c.days), ...c.set })
          .where('id', '=', ids[name])
          .execute();
    });

    // The due labels are refunded (EasyPost approves), each asked once upstream and credited once.
    const dueIds = Object.keys(due).map((name) => ids[name]);
    await vi.waitFor(async () => {
      const rows = await Promise.all(dueIds.map(orderNow));
      if (rows.some((row) => row.refund_status !== 'refunded')) throw new Error('not refunded yet');
    }, WAIT);
    for (const id of dueIds) expect(await orderNow(id)).toMatchObject({ refund_status: 'refunded', refund_auto: 1 });
    expect(fake.refunds - refundsBefore).toBe(dueIds.length);
    expect(await refundRows(dueIds)).toHaveLength(dueIds.length);
    const dueCents = Object.keys(due).reduce((sum, name) => sum + prices[name], 0);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(balanceBefore + dueCents);

    // The others were in the same runs and were left as they were.
    for (const name of Object.keys(kept)) {
      const row = await orderNow(ids[name]);
      expect({ name, refund: row.refund_status, auto: row.refund_auto }).toEqual({ name, refund: kept[name].set?.refund_status ?? null, auto: 0 });
    }

    const saved = (await t.app.inject({ method: 'GET', url: '/api/v1/order/auto-voids', headers: user.headers })).json() as AutoVoidSaved;
    expect(saved).toMatchObject({ saved: dueCents / 100, count: dueIds.length });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/order/auto-voids', headers: optedOut.headers })).json()).toMatchObject({ saved: 0, count: 0 });
  });

  it("a customer's request and the automatic void of one label make one refund; a rejection is not asked again", async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const label = await completed(user);
    const rejected = await completed(user);
    const refundsBefore = fake.refunds;
    fake.refundDecision = 'reject';
    try {
      await t.db
        .updateTable('orders')
        .set({ created_at: daysAgo(26) })
        .where('id', '=', rejected.id)
        .execute();
      await vi.waitFor(async () => {
        if ((await orderNow(rejected.id)).refund_status !== 'rejected') throw new Error('not decided yet');
      }, WAIT);
    } finally {
      fake.refundDecision = 'approve';
    }
    // Made due while the customer asks for it: whichever comes first, the other finds it asked.
    await t.db
      .updateTable('orders')
      .set({ created_at: daysAgo(26) })
      .where('id', '=', label.id)
      .execute();
    const asked = await t.app.inject({ method: 'POST', url: `/api/v1/order/refund/${label.id}`, headers: user.headers });
    expect([200, 409]).toContain(asked.statusCode);
    await vi.waitFor(async () => {
      if ((await orderNow(label.id)).refund_status !== 'refunded') throw new Error('not refunded yet');
    }, WAIT);
    expect(await refundRows([label.id])).toHaveLength(1);
    expect(fake.shipments.get(label.upstream_ref!).refund_status).toBe('refunded');
    // Two labels asked upstream once each (the rejected one was not asked again by later runs, which the refund above waited through).
    expect(fake.refunds - refundsBefore).toBe(2);
    expect(await orderNow(rejected.id)).toMatchObject({ refund_status: 'rejected', refund_auto: 1 });
  });

  it('an account turned back on is voided again; the setting takes only a boolean', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/account/auto-void', payload: { autoVoid: 'no' }, headers: user.headers })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/account/auto-void', payload: {}, headers: user.headers })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/account/auto-void', payload: { autoVoid: true } })).statusCode).toBe(401);
    await t.app.inject({ method: 'POST', url: '/api/v1/account/auto-void', payload: { autoVoid: false }, headers: user.headers });
    await t.app.inject({ method: 'POST', url: '/api/v1/account/auto-void', payload: { autoVoid: true }, headers: user.headers });
    const label = await completed(user);
    await t.db
      .updateTable('orders')
      .set({ created_at: daysAgo(26) })
      .where('id', '=', label.id)
      .execute();
    await vi.waitFor(async () => {
      if ((await orderNow(label.id)).refund_status !== 'refunded') throw new Error('not refunded yet');
    }, WAIT);
  });
});
