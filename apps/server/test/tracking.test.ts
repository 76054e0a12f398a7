import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WAIT, uniqueId } from './basics.ts';
import { dropRedisPrefix, startTestApp, type TestApp } from './harness.ts';
import { callApi, labelFields, resellerUser } from './reseller-fixtures.ts';
import { startReceiver } from './webhook-receiver.ts';
import { startFakeTelegram, type FakeTelegram } from './fake-telegram.ts';
import { engines, linkChat, telegramEnv } from './telegram-fixtures.ts';
import { botTexts } from '../src/modules/telegram/texts.ts';
import { easyPostSignature, type FakeEasyPost } from './fake-easypost.ts';
import { RATES_UNDER_PRICES, startEasyPostApp } from './easypost-fixtures.ts';
import { orderPayload } from './order-fixtures.ts';

const SHOP = 'https://shop.example.com';
type User = Awaited<ReturnType<typeof resellerUser>>;

describe.each(engines)('tracking statuses of sandbox labels, on the %s queue', (engine) => {
  let t: TestApp;
  let tg: FakeTelegram;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const prefix = uniqueId('test-tracking');

  beforeAll(async () => {
    tg = await startFakeTelegram();
    receiver = await startReceiver();
    t = await startTestApp(
      telegramEnv(tg, {
        PUBLIC_URL: SHOP,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        // A step every 300 ms: a label is delivered a little over a second after it is made.
        LABEL_SANDBOX_TRACKING_STEP_MS: '300',
        // A refund is approved as it is asked.
        LABEL_SANDBOX_REFUND_DELAY_MS: '0',
        ...(engine === 'bullmq' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix } : {}),
      }),
    );
  });
  afterAll(async () => {
    await t?.close();
    await tg?.close();
    await receiver?.close();
    if (engine === 'bullmq') await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  });

  const setWebhook = (user: User) => t.app.inject({ method: 'PUT', url: '/api/v1/account/webhook', headers: user.headers, payload: { url: receiver.url } });
  const eventsOf = (orderId: string) =>
    receiver.received
      .map((r) => JSON.parse(r.body) as { id: string; type: string; data: { order?: { id: string; trackingStatus: string | null } } })
      .filter((e) => e.data.order?.id === orderId);
  const history = async (user: User) =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/order/read?page=1&limit=10', headers: user.headers })).json().orders as {
      _id: string;
      trackingStatus: string | null;
    }[];

  it('a sandbox label walks pre_transit -> in_transit -> out_for_delivery -> delivered: shown in the history and details, a webhook each, Telegram on delivery', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    expect((await setWebhook(user)).statusCode).toBe(200);
    const chat = await linkChat(t.app, tg, user);
    const placed = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields() });
    expect(placed.statusCode).toBe(200);
    const order = placed.json().order as { id: string; orderId: string; tracking: string; trackingStatus: string | null };
    expect(order.trackingStatus).toBeNull();

    await vi.waitFor(async () => expect((await history(user))[0]).toMatchObject({ _id: order.id, trackingStatus: 'delivered' }), WAIT);
    const details = (await t.app.inject({ method: 'GET', url: `/api/v1/order/details/${order.id}`, headers: user.headers })).json();
    expect(details.order.trackingStatus).toBe('delivered');

    // One order.tracking event a status, each told as of its status, and order.completed; in any order (webhook
    // deliveries are jobs of their own, which BullMQ may run side by side).
    await vi.waitFor(async () => expect(eventsOf(order.id)).toHaveLength(5), WAIT);
    const byId = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]));
    expect(
      eventsOf(order.id)
        .map((e) => [e.id, e.type, e.data.order?.trackingStatus])
        .sort(byId),
    ).toEqual(
      [
        [`order.completed-${order.id}`, 'order.completed', null],
        [`order.tracking-${order.id}-pre_transit`, 'order.tracking', 'pre_transit'],
        [`order.tracking-${order.id}-in_transit`, 'order.tracking', 'in_transit'],
        [`order.tracking-${order.id}-out_for_delivery`, 'order.tracking', 'out_for_delivery'],
        [`order.tracking-${order.id}-delivered`, 'order.tracking', 'delivered'],
      ].sort(byId),
    );
    const headers = receiver.received.find((r) => JSON.parse(r.body).id === `order.tracking-${order.id}-delivered`)!.headers;
    expect(headers['x-portal-event']).toBe('order.tracking');

    // Telegram: linked, completed, delivered, each once and nothing for the steps between; the completed and delivered
    // messages in any order (their jobs may run side by side on BullMQ).
    const messages = await tg.sentTo(chat, 3);
    const delivered = [`Order ${order.orderId} delivered`, `USPS Priority Mail to John Receiver`, `Tracking: ${order.tracking}`, `Dashboard: ${SHOP}/`].join(
      '\n',
    );
    const timesSent = (isIt: (text: string) => boolean) => messages.filter(isIt).length;
    expect(messages).toHaveLength(3);
    expect(timesSent((m) => m === botTexts.linked(user.tgId))).toBe(1);
    expect(timesSent((m) => m.startsWith(`Order ${order.orderId} completed\n`))).toBe(1);
    expect(timesSent((m) => m === delivered)).toBe(1);
  });

  it('a user who turned the delivered message off gets no Telegram message, and the webhook still gets every status', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    await setWebhook(user);
    const chat = await linkChat(t.app, tg, user);
    const topics = {
      orderCompleted: true,
      orderDelivered: false,
      orderCancelled: true,
      labelRefunds: true,
      bulkCompleted: true,
      fedexOrders: true,
      pickups: true,
      deposits: true,
    };
    expect((await t.app.inject({ method: 'PUT', url: '/api/v1/account/telegram', headers: user.headers, payload: { topics } })).statusCode).toBe(200);
    const order = (await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields() })).json().order as { id: string };
    await vi.waitFor(async () => expect(eventsOf(order.id).map((e) => e.data.order?.trackingStatus)).toContain('delivered'), WAIT);
    // The events were dispatched (no outbox row left) and made no message beyond the link's and the completion's.
    await vi.waitFor(async () => expect(await t.db.selectFrom('shop_events').select('id').where('user_id', '=', user.userId).execute()).toEqual([]), WAIT);
    expect(await t.db.selectFrom('telegram_messages').select('event_id').where('user_id', '=', user.userId).execute()).toEqual([
      { event_id: `order.completed:${order.id}` },
    ]);
    expect(await tg.sentTo(chat, 2)).toHaveLength(2);
  });

  it('a refunded label stops where it was: it never walks on while another label made beside it is delivered', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    const place = async () => (await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { payload: labelFields() })).json().order as { id: string };
    const voided = await place();
    const refund = await t.app.inject({ method: 'POST', url: `/api/v1/order/refund/${voided.id}`, headers: user.headers });
    expect(refund.statusCode).toBe(200);
    expect(refund.json().refundStatus).toBe('refunded');
    const statusOf = async (id: string) =>
      (await t.db.selectFrom('orders').select('tracking_status').where('id', '=', id).executeTakeFirstOrThrow()).tracking_status;
    const stoppedAt = await statusOf(voided.id);
    // Scanned labels are refused a refund: it stopped before the carrier had it.
    expect([null, 'pre_transit']).toContain(stoppedAt);
    const shipped = await place();
    await vi.waitFor(async () => expect(await statusOf(shipped.id)).toBe('delivered'), WAIT);
    expect(await statusOf(voided.id)).toBe(stoppedAt);
  });
});

describe.each(engines)('tracking never moves backwards (EasyPost tracker events), on the %s queue', (engine) => {
  let t: TestApp;
  let fake: FakeEasyPost;
  let close = async () => {};
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    ({ t, fake, close } = await startEasyPostApp(engine, 'tracking-order', (fake) => ({
      EASYPOST_WEBHOOK_SECRET: fake.webhookSecret,
      WEBHOOK_ALLOW_PRIVATE: 'true',
    })));
    fake.rates = { ...RATES_UNDER_PRICES }; // these tests are about buying, not about cost
  });
  afterAll(async () => {
    await close();
    await receiver?.close();
  });

  /** Posts a tracker.updated of the Shipment as EasyPost does (a new event each time). */
  async function track(shipmentId: string, status: string) {
    const payload = JSON.stringify(fake.trackerEvent(shipmentId, status));
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/labels/webhook/easypost',
      headers: { 'content-type': 'application/json', 'x-hmac-signature': easyPostSignature(payload, fake.webhookSecret) },
      payload,
    });
    expect(res.statusCode).toBe(200);
  }

  it('a late status of a lower step is kept in the history only: the order keeps its status, no event is told, and a scanned label stays unrefundable', async () => {
    const user = await resellerUser(t.app, t.db, 10_000);
    await t.app.inject({ method: 'PUT', url: '/api/v1/account/webhook', headers: user.headers, payload: { url: receiver.url } });
    const placed = async () => {
      expect((await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority'), headers: user.headers })).statusCode).toBe(
        200,
      );
      return t.db.selectFrom('orders').selectAll().where('user_id', '=', user.userId).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    };
    const order = await placed();
    const statusOf = async (id: string) =>
      (await t.db.selectFrom('orders').select('tracking_status').where('id', '=', id).executeTakeFirstOrThrow()).tracking_status;
    const trackingEvents = (id: string) =>
      receiver.received
        .map((r) => JSON.parse(r.body) as { id: string; type: string; data: { order?: { id: string } } })
        .filter((e) => e.type === 'order.tracking' && e.data.order?.id === id);

    await track(order.upstream_ref!, 'in_transit');
    expect(await statusOf(order.id)).toBe('in_transit');
    // A pre_transit arriving late would make the label look unscanned, and refundable.
    await track(order.upstream_ref!, 'pre_transit');
    expect(await statusOf(order.id)).toBe('in_transit');
    const refund = await t.app.inject({ method: 'POST', url: `/api/v1/order/refund/${order.id}`, headers: user.headers });
    expect(refund.statusCode).toBe(422);

    await track(order.upstream_ref!, 'delivered');
    await track(order.upstream_ref!, 'in_transit');
    await track(order.upstream_ref!, 'out_for_delivery');
    expect(await statusOf(order.id)).toBe('delivered');

    // Returned to the sender is an end too.
    const returned = await placed();
    await track(returned.upstream_ref!, 'return_to_sender');
    await track(returned.upstream_ref!, 'out_for_delivery');
    expect(await statusOf(returned.id)).toBe('return_to_sender');

    const history = await t.db.selectFrom('tracking_events').select('status').where('order_id', '=', order.id).execute();
    expect(history.map((h) => h.status).sort()).toEqual(['delivered', 'in_transit', 'in_transit', 'out_for_delivery', 'pre_transit'].sort());
    // Told once for each step it took, never for the late ones.
    await vi.waitFor(async () => expect(trackingEvents(order.id)).toHaveLength(2), WAIT);
    await vi.waitFor(async () => expect(trackingEvents(returned.id)).toHaveLength(1), WAIT);
    await new Promise((r) => setTimeout(r, 300));
    expect(
      trackingEvents(order.id)
        .map((e) => e.id)
        .sort(),
    ).toEqual([`order.tracking-${order.id}-delivered`, `order.tracking-${order.id}-in_transit`]);
  });
});
