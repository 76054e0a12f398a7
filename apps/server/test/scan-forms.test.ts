import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PDFDocument } from 'pdf-lib';
import { SAMPLE_MARK } from '../src/providers/labels/label-provider.ts';
import { SCAN_FORM_REFUSALS, refundOnScanForm, scanFormName, type ScanFormDetail, type ScanFormResult } from '@portal/contract';
import { WAIT } from './basics.ts';
import { engines, startTestApp, type TestApp } from './harness.ts';
import { orderPayload } from './order-fixtures.ts';
import { fundedCustomer } from './customers.ts';
import { bulkRow, callApi, resellerUser } from './reseller-fixtures.ts';
import { startReceiver, verifySignature } from './webhook-receiver.ts';
import type { FakeEasyPost } from './fake-easypost.ts';
import { RATES_UNDER_PRICES, startEasyPostApp } from './easypost-fixtures.ts';
import { SHIPPO_RATES_UNDER_PRICES, startUpstreamsApp, type UpstreamsApp } from './upstream-fixtures.ts';

type User = Awaited<ReturnType<typeof fundedCustomer>>;

/** Helpers over one running shop: completed labels, a form request, a form followed until it is decided. */
function formsOf(get: () => TestApp) {
  const completed = async (user: User, overrides: Record<string, unknown> = {}) => {
    const t = get();
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority', overrides), headers: user.headers });
    expect(res.statusCode).toBe(200);
    const id = res.json().orderId as string;
    return vi.waitFor(async () => {
      const order = await t.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      if (order.status !== 'completed') throw new Error(`order ${order.status}`);
      return order;
    }, WAIT);
  };
  const ask = (user: User, payload: Record<string, unknown>) => get().app.inject({ method: 'POST', url: '/api/v1/scan-form', payload, headers: user.headers });
  const decided = (user: User, id: string) =>
    vi.waitFor(async () => {
      const form = (await get().app.inject({ method: 'GET', url: `/api/v1/scan-form/${id}`, headers: user.headers })).json() as ScanFormDetail;
      if (form.status === 'creating') throw new Error('still creating');
      return form;
    }, WAIT);
  const orderRow = (id: string) => get().db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return { completed, ask, decided, orderRow };
}

describe.each(engines)('SCAN forms through EasyPost (the official client against a strict fake), on the %s queue', (engine) => {
  let t: TestApp;
  let fake: FakeEasyPost;
  let close = async () => {};
  const { completed, ask, decided, orderRow } = formsOf(() => t);

  beforeAll(async () => {
    ({ t, fake, close } = await startEasyPostApp(engine, 'scan-forms', () => ({
      EASYPOST_TIMEOUT_MS: '500',
      ORDER_POLL_INTERVAL_MS: '100',
      REFUND_POLL_INTERVAL_MS: '100',
    })));
    fake.rates = { ...RATES_UNDER_PRICES };
  });
  afterAll(() => close());

  it('groups the labels by from address, makes one form a group, says why the others cannot go on one, and stores each PDF', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const other = await fundedCustomer(t.app, 5_000, t.db);
    const [a, b] = [await completed(user), await completed(user)];
    const elsewhere = await completed(user, { FromStreet: '99 Other Street' });
    const refunded = await completed(user);
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/order/refund/${refunded.id}`, headers: user.headers })).statusCode).toBe(200);
    const stranger = await completed(other);
    const formsBefore = fake.scanForms.size;

    const res = await ask(user, { orderIds: [a.id, b.id, elsewhere.id, refunded.id, stranger.id] });
    expect(res.statusCode).toBe(200);
    const result = res.json() as ScanFormResult;
    expect(result.message).toBe('2 SCAN forms asked for 3 labels');
    expect(result.refused).toEqual(
      expect.arrayContaining([
        { orderId: refunded.id, reason: SCAN_FORM_REFUSALS.refunded },
        { orderId: stranger.id, reason: SCAN_FORM_REFUSALS.notFound },
      ]),
    );
    expect(result.refused).toHaveLength(2);
    const forms = await Promise.all(result.forms.map((f) => decided(user, f._id)));
    expect(forms.map((f) => f.status)).toEqual(['created', 'created']);
    expect(forms.map((f) => f.labelCount).sort()).toEqual([1, 2]);
    const pair = forms.find((f) => f.labelCount === 2)!;
    expect(pair.labels.map((l) => l.tracking).sort()).toEqual([a.tracking, b.tracking].sort());
    expect(pair).toMatchObject({ carrier: 'USPS', from: { street: a.from_street }, pdf: `/api/v1/scan-form/${pair._id}/pdf` });
    // One form upstream a group, each with its labels' Shipments.
    expect(fake.scanForms.size - formsBefore).toBe(2);
    const upstream = [...fake.scanForms.values()].find((f) => f.tracking_codes.includes(a.tracking));
    expect(upstream.tracking_codes.sort()).toEqual([a.tracking, b.tracking].sort());

    const pdf = await t.app.inject({ method: 'GET', url: pair.pdf!, headers: user.headers });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toContain(`${scanFormName(pair._id)}.pdf`);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

    // The labels say which form they are on; the list shows the forms.
    const history = (await t.app.inject({ method: 'GET', url: '/api/v1/order/read?limit=10', headers: user.headers })).json();
    expect(history.orders.find((o: { _id: string }) => o._id === a.id).scanFormId).toBe(pair._id);
    const list = (await t.app.inject({ method: 'GET', url: '/api/v1/scan-form/read', headers: user.headers })).json();
    expect(list.forms.map((f: { _id: string }) => f._id).sort()).toEqual(forms.map((f) => f._id).sort());

    // Another customer sees none of it.
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/scan-form/${pair._id}`, headers: other.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: pair.pdf!, headers: other.headers })).statusCode).toBe(404);
  });

  it('a label on a form is no longer refunded through the shop, nor put on a second form; a refunded or past label goes on none', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const label = await completed(user);
    const [form] = (await ask(user, { orderIds: [label.id] })).json().forms;
    await decided(user, form._id);
    const refund = await t.app.inject({ method: 'POST', url: `/api/v1/order/refund/${label.id}`, headers: user.headers });
    expect(refund.statusCode).toBe(422);
    expect(refund.json().message).toBe(refundOnScanForm(form._id));
    expect((await orderRow(label.id)).refund_status).toBeNull();
    const again = await ask(user, { orderIds: [label.id] });
    expect(again.statusCode).toBe(422);
    expect(again.json().message).toContain(SCAN_FORM_REFUSALS.onForm(form._id));

    // A label whose ship date has passed (bought yesterday for yesterday) is refused with its date; one shipping later is taken.
    const past = await completed(user);
    await t.db.updateTable('orders').set({ ship_date: '2020-01-02' }).where('id', '=', past.id).execute();
    const refused = await ask(user, { orderIds: [past.id] });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().message).toContain(SCAN_FORM_REFUSALS.shipDatePassed('2020-01-02'));
  });

  it('a form the upstream makes in the background is asked about again until created; today lists only labels on no form', async () => {
    fake.scanFormStatus = 'creating';
    try {
      const user = await fundedCustomer(t.app, 10_000, t.db);
      const [a, b] = [await completed(user), await completed(user, { FromStreet: '7 Side Street' })];
      const today = (await t.app.inject({ method: 'GET', url: '/api/v1/scan-form/today', headers: user.headers })).json();
      expect(today.groups).toHaveLength(2);
      expect(today.groups.flatMap((g: { labels: { _id: string }[] }) => g.labels.map((l) => l._id)).sort()).toEqual([a.id, b.id].sort());
      const [form] = (await ask(user, { orderIds: [a.id] })).json().forms;
      expect(form.status).toBe('creating');
      expect(await decided(user, form._id)).toMatchObject({ status: 'created' });
      const after = (await t.app.inject({ method: 'GET', url: '/api/v1/scan-form/today', headers: user.headers })).json();
      expect(after.groups.flatMap((g: { labels: { _id: string }[] }) => g.labels.map((l) => l._id))).toEqual([b.id]);
    } finally {
      fake.scanFormStatus = 'created';
    }
  });

  it('a lost answer or an upstream 500 makes one form: the upstream is asked what became of the ask before asking again', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    for (const kind of ['lose', '500'] as const) {
      const label = await completed(user);
      const before = fake.scanForms.size;
      fake.faults.push({ kind, on: 'form', count: 1 });
      const [form] = (await ask(user, { orderIds: [label.id] })).json().forms;
      expect(await decided(user, form._id)).toMatchObject({ status: 'created', labelCount: 1 });
      expect(fake.scanForms.size - before).toBe(1);
      expect((await orderRow(label.id)).scan_form_id).toBe(form._id);
    }
  });

  it('a form the upstream refuses fails with its reason and lets its labels go, to be refunded or put on another form', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const label = await completed(user);
    // Refunded upstream behind the shop's back: the strict fake refuses the form.
    fake.shipments.get(label.upstream_ref!).refund_status = 'submitted';
    const [form] = (await ask(user, { orderIds: [label.id] })).json().forms;
    const failed = await decided(user, form._id);
    expect(failed.status).toBe('failed');
    expect(failed.message).toMatch(/^the carrier refused the SCAN form: .*was refunded/);
    expect(failed.pdf).toBeNull();
    expect((await orderRow(label.id)).scan_form_id).toBeNull();
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/scan-form/${form._id}/pdf`, headers: user.headers })).statusCode).toBe(409);
  });

  it("a bulk order id that is not the customer's is not found; a body naming neither or both is a 400", async () => {
    const user = await fundedCustomer(t.app, 1_000, t.db);
    expect((await ask(user, { bulkOrderId: 'no-such-bulk-order' })).statusCode).toBe(404);
    expect((await ask(user, {})).statusCode).toBe(400);
    expect((await ask(user, { orderIds: ['x'], bulkOrderId: 'y' })).statusCode).toBe(400);
    expect((await ask(user, { orderIds: Array.from({ length: 1001 }, (_, i) => `id-${i}`) })).statusCode).toBe(400);
  });
});

describe.each(engines)('SCAN forms through Shippo manifests, beside EasyPost, on the %s queue', (engine) => {
  let up: UpstreamsApp;
  const { completed, ask, decided, orderRow } = formsOf(() => up.t);
  beforeAll(async () => {
    up = await startUpstreamsApp(engine, 'scan-forms-shippo', {
      EASYPOST_TIMEOUT_MS: '500',
      SHIPPO_TIMEOUT_MS: '500',
      ORDER_POLL_INTERVAL_MS: '100',
      REFUND_POLL_INTERVAL_MS: '100',
    });
  });
  afterAll(() => up.close());

  it("makes one form an upstream: Shippo's labels on a manifest (its PDF stored), EasyPost's on a ScanForm; a lost manifest answer makes no second", async () => {
    const { t, shippo, easypost } = up;
    const user = await fundedCustomer(t.app, 10_000, t.db);
    // Shippo rates under EasyPost, so these two are bought there; then EasyPost is the cheaper for the third.
    const [a, b] = [await completed(user), await completed(user)];
    shippo.rates = { ...shippo.rates, usps_priority: '99.00' };
    const atEasyPost = await completed(user);
    shippo.rates = { ...SHIPPO_RATES_UNDER_PRICES };
    expect([a.provider, b.provider, atEasyPost.provider]).toEqual(['shippo', 'shippo', 'easypost']);

    shippo.faults.push({ kind: 'lose', call: 'manifest', count: 1 });
    const result = (await ask(user, { orderIds: [a.id, b.id, atEasyPost.id] })).json() as ScanFormResult;
    expect(result.forms).toHaveLength(2);
    const forms = await Promise.all(result.forms.map((f) => decided(user, f._id)));
    expect(forms.map((f) => f.status)).toEqual(['created', 'created']);
    const atShippo = forms.find((f) => f.labelCount === 2)!;
    expect(atShippo.labels.map((l) => l.tracking).sort()).toEqual([a.tracking, b.tracking].sort());

    // One manifest, though its first answer was lost: the transactions of both labels, under their carrier account.
    expect(shippo.manifests.size).toBe(1);
    const [manifest] = shippo.manifests.values();
    const txnOf = (orderId: string) => [...shippo.transactions.values()].find((txn) => txn.metadata === orderId).object_id;
    expect(manifest).toMatchObject({ carrier_account: 'fake_usps_account', status: 'SUCCESS' });
    expect([...manifest.transactions].sort()).toEqual([txnOf(a.id), txnOf(b.id)].sort());
    expect([...easypost.scanForms.values()].some((f) => f.tracking_codes.includes(atEasyPost.tracking))).toBe(true);

    const pdf = await t.app.inject({ method: 'GET', url: atShippo.pdf!, headers: user.headers });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload).toEqual(shippo.manifestPdf);
    expect((await orderRow(a.id)).scan_form_id).toBe(atShippo._id);
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/order/refund/${a.id}`, headers: user.headers })).statusCode).toBe(422);
  });

  it('a manifest Shippo refuses fails with its words and lets the label go', async () => {
    const { t, shippo } = up;
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const label = await completed(user);
    expect(label.provider).toBe('shippo');
    shippo.manifestQueued = { afterLooks: 1, then: 'ERROR', errors: ['USPS: SCAN form service unavailable'] };
    try {
      const [form] = (await ask(user, { orderIds: [label.id] })).json().forms;
      expect(await decided(user, form._id)).toMatchObject({
        status: 'failed',
        message: 'the carrier refused the SCAN form: USPS: SCAN form service unavailable',
      });
      expect((await orderRow(label.id)).scan_form_id).toBeNull();
    } finally {
      shippo.manifestQueued = null;
    }
  });
});

describe('SCAN forms on the sandbox', () => {
  let t: TestApp;
  const { completed, ask, decided } = formsOf(() => t);
  beforeAll(async () => {
    t = await startTestApp({ LABEL_SANDBOX_TRACKING_STEP_MS: '0', WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  afterAll(() => t?.close());

  it('makes a SAMPLE form PDF listing the tracking numbers, through the same path', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const labels = [await completed(user), await completed(user)];
    const res = await ask(user, { orderIds: labels.map((l) => l.id) });
    expect(res.statusCode).toBe(200);
    const form = await decided(user, res.json().forms[0]._id);
    expect(form).toMatchObject({ status: 'created', labelCount: 2 });
    const pdf = await t.app.inject({ method: 'GET', url: form.pdf!, headers: user.headers });
    expect(pdf.statusCode).toBe(200);
    const doc = await PDFDocument.load(pdf.rawPayload);
    expect(doc.getTitle()).toBe(`${SAMPLE_MARK} SCAN form ${scanFormName(form._id)}`);
    // The refund of a formed label is refused as upstream.
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/order/refund/${labels[0].id}`, headers: user.headers })).statusCode).toBe(422);
  });

  it("the reseller API makes a bulk order's form and follows it; the scan_form.created webhook tells it once, signed", async () => {
    const receiver = await startReceiver();
    try {
      const user = await resellerUser(t.app, t.db, 50_000);
      const { secret } = (await t.app.inject({ method: 'PUT', url: '/api/v1/account/webhook', headers: user.headers, payload: { url: receiver.url } })).json();
      const bulk = (
        await callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', {
          payload: { labelType: 'priority', design: 'normal', data: [1, 2, 3].map((i) => bulkRow(i, { FromName: 'One Sender' })) },
        })
      ).json();
      await vi.waitFor(async () => {
        const rows = await t.db.selectFrom('orders').select('status').where('bulk_order_id', '=', bulk.bulkorder_id).execute();
        expect(rows.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
      }, WAIT);
      const made = await callApi(t.app, user.apiKey, 'POST', '/scan-form', { payload: { bulk_order_id: bulk.bulkorder_id } });
      expect(made.statusCode).toBe(200);
      const [form] = made.json().forms;
      expect(form).toMatchObject({ label_count: 3, bulk_order_id: bulk.bulkorder_id, carrier: 'USPS' });
      expect(made.json().refused).toEqual([]);
      const read = await vi.waitFor(async () => {
        const answer = (await callApi(t.app, user.apiKey, 'GET', `/scan-form/${form.id}`)).json();
        expect(answer.form.status).toBe('created');
        return answer.form;
      }, WAIT);
      expect(read.tracking_codes).toHaveLength(3);
      const pdf = await callApi(t.app, user.apiKey, 'GET', `/scan-form/${form.id}/pdf`);
      expect(pdf.statusCode).toBe(200);
      expect(pdf.headers['content-type']).toBe('application/pdf');
      // Another key reads nothing of it; the same bulk order again has no label left for a form.
      const other = await resellerUser(t.app, t.db, 0);
      expect((await callApi(t.app, other.apiKey, 'GET', `/scan-form/${form.id}`)).statusCode).toBe(404);
      expect((await callApi(t.app, user.apiKey, 'POST', '/scan-form', { payload: { bulk_order_id: bulk.bulkorder_id } })).statusCode).toBe(422);

      await vi.waitFor(() => expect(receiver.received.map((r) => JSON.parse(r.body).type)).toContain('scan_form.created'), WAIT);
      const delivery = receiver.received.find((r) => JSON.parse(r.body).type === 'scan_form.created')!;
      expect(verifySignature(delivery.headers['x-portal-signature'], delivery.body, secret)).toBe(true);
      expect(JSON.parse(delivery.body)).toMatchObject({
        id: `scan_form.created-${form.id}`,
        data: { scanForm: { id: form.id, status: 'created', label_count: 3 } },
      });
      expect(receiver.received.filter((r) => JSON.parse(r.body).type === 'scan_form.created')).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
