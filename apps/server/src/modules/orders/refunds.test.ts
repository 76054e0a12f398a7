import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WAIT, uniqueId } from '../../../test/basics.ts';
import {
  LABEL_REFUND_PENDING_NO_DOWNLOAD,
  LABEL_REFUNDED_NO_DOWNLOAD,
  REFUND_ALREADY_REQUESTED,
  REFUND_REQUESTED,
  refundScanned,
  refundWindowPassed,
} from '@portal/contract';
import { dropRedisPrefix, startTestApp, type TestApp } from '../../../test/harness.ts';
import { adminCall, auditRowsFor, signUpAdmin } from '../../../test/admin-fixtures.ts';
import { balanceOf, orderPayload } from '../../../test/order-fixtures.ts';
import { fundedCustomer } from '../../../test/customers.ts';
import { startReceiver } from '../../../test/webhook-receiver.ts';
import '../../../test/reseller-fixtures.ts';
import { ledgerSumCents } from '../billing/service.ts';
import { inlineRenderer } from '../../providers/labels/render-pool.ts';
import { SANDBOX_SCANNED, createSandboxLabelProvider } from '../../providers/labels/sandbox.ts';
import type { LabelProvider } from '../../providers/labels/label-provider.ts';
import { createFromCsv, csvText, download, pdfPageCount, usRows, validateCsv, waitForCompletion, zipEntries } from '../../../test/bulk-fixtures.ts';

type User = Awaited<ReturnType<typeof fundedCustomer>>;
const engines = ['embedded', ...(process.env.TEST_REDIS_URL ? ['bullmq'] : [])] as const;
const REFUND_DELAY_MS = 300;

describe.each(engines)('label refunds on the sandbox, on the %s queue', (engine) => {
  let t: TestApp;
  const prefix = uniqueId('test-refunds');
  const sandbox = createSandboxLabelProvider({ mode: 'instant', delayMs: 0, refundDelayMs: REFUND_DELAY_MS, renderer: inlineRenderer() });
  /** Refunds asked of the sandbox, and one that "dies" right after the sandbox answered (before our write). */
  let refundAsks = 0;
  let dieAfterAnswer = false;
  const labels: LabelProvider = {
    ...sandbox,
    async requestRefund(request) {
      refundAsks++;
      const answer = await sandbox.requestRefund!(request);
      if (dieAfterAnswer) throw new Error('the process died after the upstream answered');
      return answer;
    },
  };

  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp(
      {
        ORDER_POLL_INTERVAL_MS: '100',
        REFUND_WINDOW_DAYS_USPS: '28',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        ...(engine === 'bullmq' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix } : {}),
      },
      { labels },
    );
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    if (engine === 'bullmq') await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  });

  const post = (user: User, url: string, payload?: unknown) =>
    t.app.inject({ method: 'POST', url: `/api/v1${url}`, headers: user.headers, payload: payload as any });
  async function completedOrder(user: User, type = 'priority') {
    const res = await post(user, '/order/create', orderPayload(type));
    expect(res.statusCode).toBe(200);
    return t.db.selectFrom('orders').selectAll().where('user_id', '=', user.userId).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
  }
  /** Polls until the order's refund leaves requested. */
  const refundSettled = (orderId: string) =>
    vi.waitFor(async () => {
      const order = await t.db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
      if (order.refund_status === 'requested') throw new Error('refund still requested');
      return order;
    }, WAIT);
  const refundRows = (orderId: string) => t.db.selectFrom('ledger').selectAll().where('kind', '=', 'label_refund').where('reference', '=', orderId).execute();

  it('refunds a label from Order Details: requested, approved on the queue after the delay, credited once, named on the statement, no longer downloadable', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    await t.app.inject({ method: 'PUT', url: '/api/v1/account/webhook', headers: user.headers, payload: { url: receiver.url } });
    const order = await completedOrder(user);
    const paid = await balanceOf(t.app, user.headers);
    const res = await post(user, `/order/refund/${order.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ orderId: order.id, ok: true, message: REFUND_REQUESTED, refundStatus: 'requested' });
    const download = () => t.app.inject({ method: 'GET', url: `/api/v1/order/download/${order.id}`, headers: user.headers });
    expect((await download()).json().message).toBe(LABEL_REFUND_PENDING_NO_DOWNLOAD);
    const settled = await refundSettled(order.id);
    expect(settled).toMatchObject({ status: 'completed', refund_status: 'refunded' });
    expect(await refundRows(order.id)).toHaveLength(1);
    expect(await balanceOf(t.app, user.headers)).toBe(Math.round((paid + Number(order.price_cents) / 100) * 100) / 100);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(5_000);
    const statement = (await t.app.inject({ method: 'GET', url: '/api/v1/account/statement', headers: user.headers })).json();
    expect(statement.entries[0]).toMatchObject({ kind: 'label_refund', reference: order.id, amount: Number(order.price_cents) / 100 });
    expect(statement.entries[0].note).toContain(order.id.slice(0, 8).toUpperCase());
    expect((await download()).json().message).toBe(LABEL_REFUNDED_NO_DOWNLOAD);
    const details = (await t.app.inject({ method: 'GET', url: `/api/v1/order/details/${order.id}`, headers: user.headers })).json();
    expect(details.order).toMatchObject({ status: 'completed', refundStatus: 'refunded', pdf: null });
    expect(details.ledger.map((l: any) => l.kind)).toEqual(['order_charge', 'label_refund']);
    // The reseller webhook hears it through the durable events.
    const event = await vi.waitFor(async () => {
      const found = receiver.received.map((r) => JSON.parse(r.body)).find((e) => e.type === 'order.refunded');
      expect(found).toBeDefined();
      return found;
    }, WAIT);
    expect(event).toMatchObject({ id: `order.refunded-${order.id}`, data: { order: { id: order.id, refundStatus: 'refunded', downloadUrl: null } } });
  });

  it("a bulk row's refunded label leaves the bulk order's merged PDF and ZIP; the other rows' labels stay", async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const file = csvText(usRows(3));
    const validated = await validateCsv(t.app, user.headers, 'priority', file);
    await createFromCsv(t.app, user.headers, { type: 'priority', total_price: validated.json().totalPrice, design: 'evs' }, file);
    const { order: bulk } = await waitForCompletion(t.app, user.headers);
    const rows = await t.db.selectFrom('orders').select(['id', 'tracking']).where('bulk_order_id', '=', bulk._id).orderBy('bulk_row').execute();
    expect(await pdfPageCount((await download(t.app, user.headers, bulk.pdf!)).rawPayload)).toBe(3);
    expect((await post(user, `/order/refund/${rows[1].id}`)).statusCode).toBe(200);
    // Asked is enough: a label whose refund is pending is not handed out either.
    expect(await pdfPageCount((await download(t.app, user.headers, bulk.pdf!)).rawPayload)).toBe(2);
    await refundSettled(rows[1].id);
    expect(await pdfPageCount((await download(t.app, user.headers, bulk.pdf!)).rawPayload)).toBe(2);
    const entries = Object.keys(zipEntries((await download(t.app, user.headers, bulk.zip!)).rawPayload)).sort();
    expect(entries).toEqual([`${rows[0].tracking}.pdf`, `${rows[2].tracking}.pdf`, 'label.csv'].sort());
  });

  it('credits a concurrent double refund once: one request wins, the others are told it was asked already', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const order = await completedOrder(user);
    const asksBefore = refundAsks;
    const answers = await Promise.all([
      post(user, `/order/refund/${order.id}`),
      post(user, `/order/refund/${order.id}`),
      post(user, '/order/refund', { ids: [order.id] }),
      post(user, `/order/refund/${order.id}`),
      post(user, '/order/refund', { ids: [order.id, order.id] }),
    ]);
    const oks = answers.flatMap((a) => (a.statusCode === 200 ? ('results' in a.json() ? a.json().results : [a.json()]) : [])).filter((r: any) => r.ok);
    expect(oks).toHaveLength(1);
    for (const answer of answers.filter((a) => a.statusCode !== 200)) expect(answer).toMatchObject({ statusCode: 409 });
    expect(answers.filter((a) => a.statusCode !== 200).every((a) => a.json().message === REFUND_ALREADY_REQUESTED)).toBe(true);
    await refundSettled(order.id);
    expect(refundAsks - asksBefore).toBe(1);
    expect(await refundRows(order.id)).toHaveLength(1);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(5_000);
    expect(await balanceOf(t.app, user.headers)).toBe(50);
  });

  it('refuses a refund outside the window with the reason: USPS after 28 days, UPS once scanned', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const usps = await completedOrder(user);
    await t.db
      .updateTable('orders')
      .set({ created_at: new Date(Date.now() - 29 * 86_400_000).toISOString() })
      .where('id', '=', usps.id)
      .execute();
    const late = await post(user, `/order/refund/${usps.id}`);
    expect(late.statusCode).toBe(422);
    expect(late.json().message).toBe(refundWindowPassed(28));
    const ups = await completedOrder(user, 'ups_standard');
    // UPS: no day limit while unscanned; pre_transit is not a scan.
    await t.db
      .updateTable('orders')
      .set({ created_at: new Date(Date.now() - 60 * 86_400_000).toISOString(), tracking_status: 'in_transit' })
      .where('id', '=', ups.id)
      .execute();
    const scanned = await post(user, `/order/refund/${ups.id}`);
    expect(scanned.statusCode).toBe(422);
    expect(scanned.json().message).toBe(refundScanned('UPS'));
    const many = (await post(user, '/order/refund', { ids: [usps.id, ups.id, 'no-such-order'] })).json();
    expect(many.results).toEqual([
      { orderId: usps.id, ok: false, message: refundWindowPassed(28), refundStatus: null },
      { orderId: ups.id, ok: false, message: refundScanned('UPS'), refundStatus: null },
      { orderId: 'no-such-order', ok: false, message: 'Order not found', refundStatus: null },
    ]);
    await t.db.updateTable('orders').set({ tracking_status: 'pre_transit' }).where('id', '=', ups.id).execute();
    expect((await post(user, `/order/refund/${ups.id}`)).json()).toMatchObject({ ok: true, refundStatus: 'requested' });
    expect((await refundSettled(ups.id)).refund_status).toBe('refunded');
    expect(await refundRows(usps.id)).toHaveLength(0);
  });

  it("rejects the refund of a label the sandbox marked scanned, with the reason; an operator's approval then credits it once, audited", async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    await t.app.inject({ method: 'PUT', url: '/api/v1/account/webhook', headers: user.headers, payload: { url: receiver.url } });
    const order = await completedOrder(user);
    expect((await post(user, `/order/refund/${order.id}`)).json()).toMatchObject({ refundStatus: 'requested' });
    sandbox.markScanned(order.id);
    const settled = await refundSettled(order.id);
    expect(settled).toMatchObject({ refund_status: 'rejected', refund_note: SANDBOX_SCANNED });
    expect(await refundRows(order.id)).toHaveLength(0);
    const listed = (await t.app.inject({ method: 'GET', url: `/api/v1/order/details/${order.id}`, headers: user.headers })).json();
    expect(listed.order).toMatchObject({ refundStatus: 'rejected', refundNote: SANDBOX_SCANNED });
    expect(listed.order.pdf).not.toBeNull(); // a rejected refund gives the label back
    await vi.waitFor(
      async () =>
        expect(receiver.received.map((r) => JSON.parse(r.body)).find((e) => e.id === `order.refund_rejected-${order.id}`)).toMatchObject({
          data: { order: { refundStatus: 'rejected', refundNote: SANDBOX_SCANNED } },
        }),
      WAIT,
    );

    const admin = await signUpAdmin(t);
    const queue = (await adminCall(t.app, admin.headers, 'GET', '/refunds?state=rejected')).json();
    expect(queue.refunds.map((r: any) => r._id)).toContain(order.id);
    const approvals = await Promise.all([
      adminCall(t.app, admin.headers, 'POST', `/orders/${order.id}/refund/approve`),
      adminCall(t.app, admin.headers, 'POST', `/orders/${order.id}/refund/approve`),
    ]);
    expect(approvals.map((a) => a.statusCode).sort()).toEqual([200, 409]);
    expect(await refundRows(order.id)).toHaveLength(1);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(5_000);
    const audit = await auditRowsFor(t, order.id).then((rows) => rows.filter((r) => r.action === 'order.refund_approve'));
    expect(audit).toHaveLength(1);
    const overview = (await adminCall(t.app, admin.headers, 'GET', '/overview')).json();
    expect(overview.refunds.refunded).toBeGreaterThanOrEqual(1);
  });

  it('an operator rejects a requested refund by hand with the reason, audited; nothing is credited', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const order = await completedOrder(user);
    await post(user, `/order/refund/${order.id}`);
    const admin = await signUpAdmin(t);
    const res = await adminCall(t.app, admin.headers, 'POST', `/orders/${order.id}/refund/reject`, { reason: 'Label already used' });
    // The sweep may have approved it first (the sandbox delay is short): then the reject is refused.
    if (res.statusCode === 200) {
      expect((await refundSettled(order.id)).refund_note).toBe('Label already used');
      expect(await refundRows(order.id)).toHaveLength(0);
      expect(await auditRowsFor(t, order.id).then((rows) => rows.filter((r) => r.action === 'order.refund_reject'))).toHaveLength(1);
    } else {
      expect(res.statusCode).toBe(409);
      expect(await refundRows(order.id)).toHaveLength(1);
    }
  });

  it('a process that dies after the sandbox answered and before our write: the sweep asks what became of it and credits once, without asking again', async () => {
    const user = await fundedCustomer(t.app, 5_000, t.db);
    const order = await completedOrder(user);
    const asksBefore = refundAsks;
    dieAfterAnswer = true;
    try {
      expect((await post(user, `/order/refund/${order.id}`)).json()).toMatchObject({ refundStatus: 'requested' });
    } finally {
      dieAfterAnswer = false;
    }
    expect((await refundSettled(order.id)).refund_status).toBe('refunded');
    expect(refundAsks - asksBefore).toBe(1);
    expect(await refundRows(order.id)).toHaveLength(1);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(5_000);
  });

  it("refuses another customer's order, an unfinished one, and a second request", async () => {
    const owner = await fundedCustomer(t.app, 5_000, t.db);
    const other = await fundedCustomer(t.app, 0, t.db);
    const order = await completedOrder(owner);
    expect((await post(other, `/order/refund/${order.id}`)).statusCode).toBe(404);
    expect((await post(owner, '/order/refund', { ids: [] })).statusCode).toBe(400);
    await post(owner, `/order/refund/${order.id}`);
    const again = await post(owner, `/order/refund/${order.id}`);
    expect(again.statusCode).toBe(409);
  });
});
