import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WAIT } from './basics.ts';
import { engines, type TestApp } from './harness.ts';
import { callApi, labelFields, resellerUser } from './reseller-fixtures.ts';
import type { FakeEasyPost } from './fake-easypost.ts';
import { RATES_UNDER_PRICES, startEasyPostApp } from './easypost-fixtures.ts';

describe.each(engines)('a single order waits LABEL_WAIT_MS for its label, then answers Processing, on the %s queue', (engine) => {
  let t: TestApp;
  let fake: FakeEasyPost;
  let close = async () => {};

  beforeAll(async () => {
    ({ t, fake, close } = await startEasyPostApp(engine, 'easypost-wait', () => ({
      EASYPOST_TIMEOUT_MS: '5000',
      LABEL_WAIT_MS: '1000',
      ORDER_POLL_INTERVAL_MS: '100',
    })));
    fake.rates = { ...RATES_UNDER_PRICES }; // these tests are about buying, not about cost
  });
  afterAll(() => close());

  const create = (user: Awaited<ReturnType<typeof resellerUser>>) => callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields() });

  it('a label ready within the wait is in the answer', async () => {
    fake.latencyMs = 50;
    const user = await resellerUser(t.app, t.db, 5_000);
    // The first order loads the official client (a busy machine may take longer than the wait): not measured.
    const first = (await create(user)).json().order as { id: string };
    await vi.waitFor(
      async () => expect((await t.db.selectFrom('orders').select('status').where('id', '=', first.id).executeTakeFirstOrThrow()).status).toBe('completed'),
      WAIT,
    );
    const before = fake.purchases;
    const res = await create(user);
    expect(res.statusCode).toBe(200);
    expect(res.json().order).toMatchObject({ status: 'completed', downloadUrl: expect.any(String) });
    expect(fake.purchases - before).toBe(1);
  });

  it('a slow upstream (three calls of 600 ms): answered Processing after the wait, completed in the background, bought once', async () => {
    fake.latencyMs = 600;
    const user = await resellerUser(t.app, t.db, 5_000);
    const before = fake.purchases;
    const res = await create(user);
    expect(res.statusCode).toBe(200);
    const order = res.json().order as { id: string; status: string; downloadUrl: string | null };
    expect(order).toMatchObject({ status: 'processing', downloadUrl: null });
    // The web's history shows it Processing, and polls until it completes.
    const listed = async () => (await t.app.inject({ method: 'GET', url: '/api/v1/order/read?page=1&limit=1', headers: user.headers })).json().orders[0];
    await vi.waitFor(async () => expect(await listed()).toMatchObject({ _id: order.id, status: 'completed', pdf: `/api/v1/order/download/${order.id}` }), WAIT);
    expect(fake.purchases - before).toBe(1);
    const row = await t.db.selectFrom('orders').selectAll().where('id', '=', order.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ upstream_cost_cents: Math.round(Number(RATES_UNDER_PRICES.Priority) * 100), claims: 1 });
    const ledger = await t.db.selectFrom('ledger').select('kind').where('reference', '=', order.id).execute();
    expect(ledger).toEqual([{ kind: 'order_charge' }]);
  });
});
