import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CSV_COLUMNS, RECIPIENT_UNSUBSCRIBED, TRACKING_LINK_INVALID, TRACKING_PAGE_NOT_FOUND } from '@portal/contract';
import { WAIT } from './basics.ts';
import { engines } from './harness.ts';
import { fundedCustomer } from './customers.ts';
import { easyPostSignature } from './fake-easypost.ts';
import { RATES_UNDER_PRICES, startEasyPostApp, type EasyPostApp } from './easypost-fixtures.ts';
import { orderPayload } from './order-fixtures.ts';
import { callApi, resellerUser } from './reseller-fixtures.ts';
import { createFromCsv, csvText, usRow, usRows, validateCsv, waitForCompletion } from './bulk-fixtures.ts';

const SHOP = 'https://shop.example.com';
type User = Awaited<ReturnType<typeof fundedCustomer>>;
/** A mail body as written: nodemailer sends long lines quoted-printable (soft breaks, =XX bytes). */
const unquoted = (text: string) => text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

describe.each(engines)("the recipient's tracking page and status mails, on the %s queue", (engine) => {
  let a: EasyPostApp;

  beforeAll(async () => {
    a = await startEasyPostApp(engine, 'recipient', (fake) => ({
      PUBLIC_URL: SHOP,
      EASYPOST_WEBHOOK_SECRET: fake.webhookSecret,
      ORDER_POLL_INTERVAL_MS: '100',
      REFUND_POLL_INTERVAL_MS: '100',
    }));
    a.fake.rates = { ...RATES_UNDER_PRICES };
  });
  afterAll(() => a?.close());

  /** Posts a tracker.updated as EasyPost does; answers its body, to post again (a replay). */
  async function track(shipmentId: string, status: string, payload = JSON.stringify(a.fake.trackerEvent(shipmentId, status))): Promise<string> {
    const res = await a.t.app.inject({
      method: 'POST',
      url: '/api/v1/labels/webhook/easypost',
      headers: { 'content-type': 'application/json', 'x-hmac-signature': easyPostSignature(payload, a.fake.webhookSecret) },
      payload,
    });
    expect(res.statusCode).toBe(200);
    return payload;
  }
  async function placed(user: User, overrides: Record<string, unknown> = {}) {
    const res = await a.t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority', overrides), headers: user.headers });
    expect(res.statusCode).toBe(200);
    const row = await a.t.db.selectFrom('orders').selectAll().where('id', '=', res.json().orderId).executeTakeFirstOrThrow();
    expect(row.status).toBe('completed');
    return row;
  }
  const details = async (user: User, id: string) =>
    (await a.t.app.inject({ method: 'GET', url: `/api/v1/order/details/${id}`, headers: user.headers })).json().order as {
      trackingUrl: string | null;
      trackingPage: string | null;
      toEmail: string | null;
    };
  const tokenOf = (url: string) => new URL(url).pathname.split('/').at(-1)!;
  const page = (token: string) => a.t.app.inject({ method: 'GET', url: `/api/v1/track/${token}` });
  const turnMails = (user: User, on: unknown) =>
    a.t.app.inject({ method: 'POST', url: '/api/v1/account/recipient-emails', headers: user.headers, payload: { on } });
  const mailsTo = (to: string) => a.t.inbox.messages.filter((m) => m.to === to);
  const mailRows = (orderId: string) =>
    a.t.db.selectFrom('recipient_mails').select(['status', 'state']).where('order_id', '=', orderId).orderBy('status').execute();

  it('the page answers anyone the carrier, the status history and the two cities, and nothing private', async () => {
    const user = await fundedCustomer(a.t.app, 5_000, a.t.db);
    const order = await placed(user, { ToEmail: 'Reader@Example.com' });
    const shown = await details(user, order.id);
    expect(shown.toEmail).toBe('reader@example.com');
    expect(shown.trackingUrl).toMatch(new RegExp(`^${SHOP}/t/[A-Za-z0-9_-]{22}$`));
    expect(shown.trackingPage).toBe(new URL(shown.trackingUrl!).pathname);
    // Read again (or listed), the same link: one token a label.
    const listed = (await a.t.app.inject({ method: 'GET', url: '/api/v1/order/read', headers: user.headers })).json().orders[0];
    expect(listed.trackingPage).toBe(shown.trackingPage);
    const token = tokenOf(shown.trackingUrl!);

    await track(order.upstream_ref!, 'in_transit');
    await track(order.upstream_ref!, 'out_for_delivery');
    const res = await page(token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const body = res.json();
    expect(body).toMatchObject({
      carrier: 'USPS',
      service: order.label_type_name,
      trackingNumber: order.tracking,
      status: 'out_for_delivery',
      voided: false,
      from: { city: order.from_city, state: order.from_state },
      to: { city: order.to_city, state: order.to_state },
      estimatedDelivery: null,
    });
    expect(body.history.map((h: { status: string }) => h.status)).toEqual(['in_transit', 'out_for_delivery']);
    for (const step of body.history) expect(Date.parse(step.at)).toBeGreaterThan(0);
    // No name, street, ZIP, phone, price, email or order id anywhere in the answer.
    const text = res.body.toLowerCase();
    for (const secret of [
      order.from_name,
      order.to_name,
      order.to_company,
      order.from_street,
      order.to_street,
      order.from_zip,
      order.to_zip,
      order.to_phone,
      'reader@example.com',
      order.id,
      order.id.slice(0, 8),
      String(order.price_cents / 100),
    ].filter(Boolean))
      expect(text).not.toContain(secret.toLowerCase());
    expect(Object.keys(body).sort()).toEqual(
      ['carrier', 'estimatedDelivery', 'from', 'history', 'service', 'shipDate', 'status', 'to', 'trackingNumber', 'voided'].sort(),
    );
  });

  it('a label bought under a quote shows the day it is expected, until it is delivered', async () => {
    const user = await fundedCustomer(a.t.app, 5_000, a.t.db);
    const { FromZip, ToZip } = orderPayload('priority');
    const quote = (await a.t.app.inject({ method: 'POST', url: '/api/v1/order/rates', payload: { Weight: 2, FromZip, ToZip }, headers: user.headers })).json();
    const expected = (quote.rates as { labelType: { uid: string }; deliveryDate: string | null }[]).find((r) => r.labelType.uid === 'priority')!.deliveryDate;
    expect(expected).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const order = await placed(user, { quoteId: quote.quoteId });
    const token = tokenOf((await details(user, order.id)).trackingUrl!);
    expect((await page(token)).json().estimatedDelivery).toBe(expected);
    await track(order.upstream_ref!, 'delivered');
    expect((await page(token)).json()).toMatchObject({ status: 'delivered', estimatedDelivery: null });
  });

  it('the reseller API gives the link on its order view', async () => {
    const user = await resellerUser(a.t.app, a.t.db, 5_000);
    const res = await callApi(a.t.app, user.apiKey, 'POST', '/order/create-order', { payload: orderPayload('priority') });
    expect(res.statusCode).toBe(200);
    const created = res.json().order as { id: string; trackingUrl: string };
    expect(created.trackingUrl).toMatch(new RegExp(`^${SHOP}/t/[A-Za-z0-9_-]{22}$`));
    const read = (await callApi(a.t.app, user.apiKey, 'GET', '/order/read-orders')).json().orders[0];
    expect(read).toMatchObject({ id: created.id, trackingUrl: created.trackingUrl });
    expect((await page(tokenOf(created.trackingUrl))).statusCode).toBe(200);
  });

  it('a wrong token is the same 404 as any other; a malformed or too long one is 400 before any lookup', async () => {
    const unknown = await Promise.all(['AAAAAAAAAAAAAAAAAAAAAA', 'zzzzzzzzzzzzzzzzzzzzz_', '0123456789-abcdefghijk'].map(page));
    for (const res of unknown) expect([res.statusCode, res.body]).toEqual([404, unknown[0].body]);
    expect(unknown[0].json().message).toBe(TRACKING_PAGE_NOT_FOUND);
    for (const bad of ['short', 'A'.repeat(23), 'A'.repeat(64), '%2E%2E%2F%2E%2E%2Fadmin%2Fusers%2Fxx', 'AAAAAAAAAAAAAAAAAAAA!A']) {
      const res = await page(bad);
      expect([bad, res.statusCode, res.json().message]).toEqual([bad, 400, TRACKING_LINK_INVALID]);
    }
  });

  it("a refunded label's page says it was voided", async () => {
    const user = await fundedCustomer(a.t.app, 5_000, a.t.db);
    const order = await placed(user);
    const token = tokenOf((await details(user, order.id)).trackingUrl!);
    expect((await page(token)).json()).toMatchObject({ voided: false, status: null, history: [] });
    expect((await a.t.app.inject({ method: 'POST', url: `/api/v1/order/refund/${order.id}`, headers: user.headers })).statusCode).toBe(200);
    await vi.waitFor(async () => expect((await page(token)).json()).toMatchObject({ voided: true }), WAIT);
  });

  it('ToEmail is checked on create: an address of at most 254 characters, or nothing', async () => {
    const user = await fundedCustomer(a.t.app, 5_000, a.t.db);
    for (const [ToEmail, message] of [
      ['not an email', 'To Email must be a valid email address'],
      [`${'a'.repeat(250)}@example.com`, 'To Email must be at most 254 characters'],
      [42, 'To Email must be text'],
    ] as const) {
      const res = await a.t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority', { ToEmail }), headers: user.headers });
      expect([ToEmail, res.statusCode, res.json().message]).toEqual([ToEmail, 400, message]);
    }
    // Empty is none.
    expect((await placed(user, { ToEmail: '' })).to_email).toBeNull();
    const original = await placed(user, { ToEmail: ' someone@example.com ' });
    expect(original.to_email).toBe('someone@example.com');
    // A duplicate goes to the same recipient.
    const copy = await a.t.app.inject({ method: 'POST', url: `/api/v1/order/duplicate/${original.id}`, headers: user.headers });
    expect(copy.statusCode).toBe(200);
    const copied = await a.t.db.selectFrom('orders').select('to_email').where('id', '=', copy.json().orderId).executeTakeFirstOrThrow();
    expect(copied.to_email).toBe('someone@example.com');
  });

  it('ToEmail in CSV is checked like a single order and kept on its row; a file without the column still works', async () => {
    const user = await fundedCustomer(a.t.app, 5_000, a.t.db);
    const priority = (await a.t.db.selectFrom('label_types').select('id').where('uid', '=', 'priority').executeTakeFirstOrThrow()).id;
    const bad = await validateCsv(a.t.app, user.headers, priority, csvText([usRow(1, { ToEmail: 'nope' }), usRow(2)]));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([{ row: 1, column: 'ToEmail', message: 'To Email must be a valid email address', value: 'nope' }]);
    const without = await validateCsv(a.t.app, user.headers, priority, csvText(usRows(2), { columns: CSV_COLUMNS.filter((c) => c !== 'ToEmail') }));
    expect(without.statusCode).toBe(200);
    const rows = [usRow(1, { ToEmail: 'Csv.Reader@Example.com' }), usRow(2)];
    const { totalPrice } = (await validateCsv(a.t.app, user.headers, priority, csvText(rows))).json();
    expect((await createFromCsv(a.t.app, user.headers, { type: priority, total_price: totalPrice, design: 'normal' }, csvText(rows))).statusCode).toBe(200);
    expect((await waitForCompletion(a.t.app, user.headers)).order.status).toBe('completed');
    const stored = await a.t.db.selectFrom('orders').select(['bulk_row', 'to_email']).where('user_id', '=', user.userId).orderBy('bulk_row').execute();
    expect(stored).toEqual([
      { bulk_row: 1, to_email: 'csv.reader@example.com' },
      { bulk_row: 2, to_email: null },
    ]);
  });

  it('the recipient gets one mail per status with real SMTP, replays send nothing twice, and unsubscribing stops the rest', async () => {
    const user = await fundedCustomer(a.t.app, 5_000, a.t.db);
    expect((await turnMails(user, 'yes')).statusCode).toBe(400);
    expect((await turnMails(user, true)).statusCode).toBe(200);
    expect((await a.t.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: user.headers })).json().recipientEmails).toBe(true);
    const to = `recipient-${engine}@example.com`;
    const order = await placed(user, { ToEmail: to });
    const token = tokenOf((await details(user, order.id)).trackingUrl!);

    const inTransit = await track(order.upstream_ref!, 'in_transit');
    await vi.waitFor(() => expect(mailsTo(to)).toHaveLength(1), WAIT);
    const mail = mailsTo(to)[0];
    const text = unquoted(mail.text);
    expect(mail.subject).toBe('Your parcel is on its way');
    expect(text).toContain(`Follow it: ${SHOP}/t/${token}\n`);
    expect(text).toContain(`No more mails from this sender: ${SHOP}/api/v1/track/${token}/unsubscribe`);
    // A mail client's own unsubscribe: the same link, one click posting to it.
    const headerLines = mail.headers.split(/\r?\n/);
    expect(headerLines).toContain(`List-Unsubscribe: <${SHOP}/api/v1/track/${token}/unsubscribe>`);
    expect(headerLines).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(text).toContain(`tracking number ${order.tracking}`);
    expect(text).not.toContain(order.to_name);
    // The same event again, and a new event of the same status: nothing new to tell.
    await track(order.upstream_ref!, 'in_transit', inTransit);
    await track(order.upstream_ref!, 'in_transit');
    await track(order.upstream_ref!, 'out_for_delivery');
    await vi.waitFor(
      async () =>
        expect(await mailRows(order.id)).toEqual([
          { status: 'in_transit', state: 'sent' },
          { status: 'out_for_delivery', state: 'sent' },
        ]),
      WAIT,
    );
    expect(mailsTo(to).map((m) => m.subject)).toEqual(['Your parcel is on its way', 'Your parcel is out for delivery']);

    // The link in the mail: opening it only asks; the button stops the mails.
    const unsubscribeUrl = `/api/v1/track/${token}/unsubscribe`;
    const asked = await a.t.app.inject({ method: 'GET', url: unsubscribeUrl });
    expect([asked.statusCode, asked.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    expect(asked.body).toContain('<form method="post">');
    // Posted as a mail client's one click posts it (RFC 8058); the page's button posts the same form.
    const stopped = await a.t.app.inject({
      method: 'POST',
      url: unsubscribeUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(stopped.statusCode).toBe(200);
    expect(stopped.body).toContain(RECIPIENT_UNSUBSCRIBED.replace(/'/g, '&#39;'));
    await track(order.upstream_ref!, 'delivered');
    // Another label of the same customer to the same address: no mail either (the address stopped this sender).
    const next = await placed(user, { ToEmail: to });
    await track(next.upstream_ref!, 'in_transit');
    // A label to someone else still mails: the wait for it is the wait for the queue to have done the rest.
    const other = await placed(user, { ToEmail: `other-${engine}@example.com` });
    await track(other.upstream_ref!, 'in_transit');
    await vi.waitFor(() => expect(mailsTo(`other-${engine}@example.com`)).toHaveLength(1), WAIT);
    await vi.waitFor(async () => expect(await a.t.db.selectFrom('shop_events').select('id').where('user_id', '=', user.userId).execute()).toEqual([]), WAIT);
    expect(mailsTo(to)).toHaveLength(2);
    expect(await mailRows(next.id)).toEqual([]);
    // An unknown token's unsubscribe is a page saying not found.
    const unknown = await a.t.app.inject({ method: 'POST', url: '/api/v1/track/AAAAAAAAAAAAAAAAAAAAAA/unsubscribe' });
    expect([unknown.statusCode, unknown.body.includes(TRACKING_PAGE_NOT_FOUND)]).toEqual([404, true]);
  });

  it('no mail when the customer has not turned them on, or the order has no ToEmail', async () => {
    const off = await fundedCustomer(a.t.app, 5_000, a.t.db);
    const on = await fundedCustomer(a.t.app, 5_000, a.t.db);
    await turnMails(on, true);
    const unmailed = await placed(off, { ToEmail: `off-${engine}@example.com` });
    const noAddress = await placed(on);
    const mailed = await placed(on, { ToEmail: `on-${engine}@example.com` });
    for (const order of [unmailed, noAddress, mailed]) await track(order.upstream_ref!, 'delivered');
    await vi.waitFor(() => expect(mailsTo(`on-${engine}@example.com`).map((m) => m.subject)).toEqual(['Your parcel was delivered']), WAIT);
    await vi.waitFor(
      async () => expect(await a.t.db.selectFrom('shop_events').select('id').where('user_id', 'in', [off.userId, on.userId]).execute()).toEqual([]),
      WAIT,
    );
    expect(mailsTo(`off-${engine}@example.com`)).toEqual([]);
    expect(await mailRows(unmailed.id)).toEqual([]);
    expect(await mailRows(noAddress.id)).toEqual([]);
    // Turned off again: the next label's statuses mail nobody.
    await turnMails(on, false);
    const later = await placed(on, { ToEmail: `on-${engine}@example.com` });
    await track(later.upstream_ref!, 'in_transit');
    await vi.waitFor(async () => expect(await a.t.db.selectFrom('shop_events').select('id').where('user_id', '=', on.userId).execute()).toEqual([]), WAIT);
    expect(await mailRows(later.id)).toEqual([]);
  });
});
