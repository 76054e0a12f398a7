import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { WAIT } from './basics.ts';
import { refundScanned } from '@portal/contract';
import { engines, type TestApp } from './harness.ts';
import { ledgerSumCents } from '../src/modules/billing/service.ts';
import { orderPayload } from './order-fixtures.ts';
import { fundedCustomer } from './customers.ts';
import type { FakeEasyPost } from './fake-easypost.ts';
import { RATES_UNDER_PRICES, startEasyPostApp } from './easypost-fixtures.ts';

type User = Awaited<ReturnType<typeof fundedCustomer>>;

describe.each(engines)('label refunds through EasyPost (the official client against a fake), on the %s queue', (engine) => {
  let t: TestApp;
  let fake: FakeEasyPost;
  let close = async () => {};
  let webhookUrl = '';

  beforeAll(async () => {
    ({ t, fake, close } = await startEasyPostApp(engine, 'easypost-refunds', (fake) => ({
      EASYPOST_TIMEOUT_MS: '500',
      EASYPOST_WEBHOOK_SECRET: fake.webhookSecret,
      ORDER_POLL_INTERVAL_MS: '100',
      REFUND_POLL_INTERVAL_MS: '100',
    })));
    fake.rates = { ...RATES_UNDER_PRICES }; // these tests are about buying, not about cost
    webhookUrl = `${await t.app.listen({ port: 0, host: '127.0.0.1' })}/api/v1/labels/webhook/easypost`;
  });
  afterAll(() => close());
  afterEach(() => {
    fake.refundDecision = 'approve';
  });

  async function completedOrder(user: User, type = 'priority') {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload(type), headers: user.headers });
    expect(res.statusCode).toBe(200);
    const order = await t.db.selectFrom('orders').selectAll().where('user_id', '=', user.userId).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    expect(order).toMatchObject({ status: 'completed', provider: 'easypost' });
    return order;
  }
  const refund = (user: User, id: string) => t.app.inject({ method: 'POST', url: `/api/v1/order/refund/${id}`, headers: user.headers });
  const orderNow = (id: string) => t.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const refundSettled = (id: string) =>
    vi.waitFor(async () => {
      const order = await orderNow(id);
      if (order.refund_status === 'requested') throw new Error('refund still requested');
      return order;
    }, WAIT);
  const refundRows = (id: string) => t.db.selectFrom('ledger').selectAll().where('kind', '=', 'label_refund').where('reference', '=', id).execute();

  it('submits POST shipments/:id/refund once and learns refunded by polling on the queue; credited once', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const order = await completedOrder(user);
    const before = fake.refunds;
    expect((await refund(user, order.id)).json()).toMatchObject({ ok: true, refundStatus: 'requested' });
    expect(fake.shipments.get(order.upstream_ref!).refund_status).not.toBeNull();
    expect(await refundSettled(order.id)).toMatchObject({ refund_status: 'refunded', refund_upstream: 'refunded' });
    expect(fake.refunds - before).toBe(1);
    expect(await refundRows(order.id)).toHaveLength(1);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(5_000);
  });

  it('a replayed refund event credits once: the same event three times, and the poll besides', async () => {
    fake.refundDecision = 'hold';
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const order = await completedOrder(user);
    expect((await refund(user, order.id)).json()).toMatchObject({ refundStatus: 'requested' });
    const event = fake.settleRefund(order.upstream_ref!, 'refunded');
    const answers = await Promise.all([fake.deliver(webhookUrl, event), fake.deliver(webhookUrl, event)]);
    const again = await fake.deliver(webhookUrl, event);
    for (const answer of [...answers, again]) expect(answer.status).toBe(200);
    expect(JSON.parse(again.body).message).toBe('Already received');
    expect(await refundSettled(order.id)).toMatchObject({ refund_status: 'refunded' });
    expect(await refundRows(order.id)).toHaveLength(1);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(5_000);
    // A forged event is refused before anything is read.
    expect((await fake.deliver(webhookUrl, event, { secret: 'wrong' })).status).toBe(401);
  });

  it('a rejected refund (event or poll) credits nothing and keeps the label downloadable', async () => {
    fake.refundDecision = 'hold';
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const order = await completedOrder(user);
    await refund(user, order.id);
    await fake.deliver(webhookUrl, fake.settleRefund(order.upstream_ref!, 'rejected'));
    expect(await refundSettled(order.id)).toMatchObject({ refund_status: 'rejected', refund_note: 'the carrier rejected the refund' });
    expect(await refundRows(order.id)).toHaveLength(0);
    const download = await t.app.inject({ method: 'GET', url: `/api/v1/order/download/${order.id}`, headers: user.headers });
    expect(download.statusCode).toBe(200);

    fake.refundDecision = 'reject';
    const polled = await completedOrder(user);
    await refund(user, polled.id);
    expect(await refundSettled(polled.id)).toMatchObject({ refund_status: 'rejected' });
    expect(await refundRows(polled.id)).toHaveLength(0);
  });

  it('refuses a UPS label once the tracker says it was scanned (tracking_status beyond pre_transit)', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const order = await completedOrder(user, 'ups_standard');
    expect((await fake.deliver(webhookUrl, fake.trackerEvent(order.upstream_ref!, 'in_transit'))).status).toBe(200);
    const res = await refund(user, order.id);
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toBe(refundScanned('UPS'));
    expect(fake.shipments.get(order.upstream_ref!).refund_status).toBeNull();
  });
});
