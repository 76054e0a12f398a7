import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CURRENCY_INVALID,
  DIMENSION_UNIT_INVALID,
  FEDEX_ITEMS_REQUIRED,
  FEDEX_ITEMS_TOO_MANY,
  FEDEX_ORDER_CREATED,
  FEDEX_ORDER_NOT_FOUND,
  PICKUP_DATE_FORMAT,
  PICKUP_DATE_REQUIRED,
  PICKUP_TIME_FORMAT,
  PICKUP_TIME_REQUIRED,
  PICKUP_TIME_TOO_LATE,
  SHIPMENT_PURPOSE_INVALID,
  TIME_ZONE_INVALID,
  TIME_ZONE_REQUIRED,
  WEIGHT_UNIT_INVALID,
  pickupDateOutOfWindowMessage,
} from '@portal/contract';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { INSUFFICIENT_BALANCE, ledgerSumCents } from '../billing/service.ts';
import {
  balanceCents,
  customer,
  dateIn,
  fedexPayload,
  item,
  operator,
  pickupInfo,
  setFedexPrice,
  withPickup,
  type Customer,
} from '../../../test/fedex-fixtures.ts';

const PRICE_CENTS = 2500;

let t: TestApp;
let admin: Customer;
beforeAll(async () => {
  t = await startTestApp();
  admin = await operator(t.app, t.db);
  await setFedexPrice(t.app, admin, PRICE_CENTS / 100);
});
afterAll(() => t.close());

const create = (user: Customer, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/fed/create-order', payload, headers: user.headers });
const list = (user: Customer, query = '') => t.app.inject({ method: 'GET', url: `/api/v1/fed/read${query}`, headers: user.headers });
const docsOf = async (user: Customer, query = '') => (await list(user, query)).json().docs as any[];
const rowsOf = (userId: string) => t.db.selectFrom('fedex_orders').selectAll().where('user_id', '=', userId).execute();
const ledgerOf = (userId: string) => t.db.selectFrom('ledger').selectAll().where('user_id', '=', userId).orderBy('created_at').execute();

/** The text of every page, read back with pdf.js. */
async function pdfText(pdf: Uint8Array): Promise<string> {
  const doc = await getDocument({ data: new Uint8Array(pdf), verbosity: 0 }).promise;
  let text = '';
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    text += content.items.map((i) => ('str' in i ? i.str : '')).join(' ') + '\n';
  }
  await doc.destroy();
  return text;
}

describe('POST /fed/create-order', () => {
  // Signing up costs a password hash; calls that are refused share one account.
  let shared: Customer;
  beforeAll(async () => {
    shared = await customer(t.app, t.db, 100_000);
  });

  it('charges the FedEx price with a fedex_charge ledger row in one go, and lists the order as pending', async () => {
    const user = await customer(t.app, t.db, 10_000);
    const res = await create(user, { ...fedexPayload(), price: 0.01 }); // a client price is ignored
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: FEDEX_ORDER_CREATED });
    expect(await balanceCents(t.db, user.userId)).toBe(10_000 - PRICE_CENTS);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000 - PRICE_CENTS);

    const [order] = await docsOf(user);
    expect(order).toEqual({
      _id: expect.any(String),
      uuid: order._id,
      status: 'pending',
      price: PRICE_CENTS / 100,
      note: null,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      file: null,
      invoice: `/api/v1/fed/invoice/${order._id}`,
      from: {
        name: 'Alice Sender',
        street: '221B Baker Street',
        street2: 'Flat 2',
        city: 'London',
        state: '',
        zip: 'NW1 6XE',
        phone: '+44 20 7946 0958',
        email: 'alice@example.com',
        country: 'GB',
      },
      to: {
        name: 'Bob Receiver',
        street: '350 Fifth Avenue',
        street2: '',
        city: 'New York',
        state: 'NY',
        zip: '10118',
        phone: '212 555 0100',
        email: '',
        country: 'US',
      },
      pickupAddress: null,
      weight: 3,
      weightUnit: 'lbs',
      length: 12,
      width: 10,
      height: 4,
      dimensionUnit: 'inch',
      specialNotes: 'Fragile',
      signature: true,
      pickup: false,
      pickupDate: null,
      pickupTime: null,
      pickupEndTime: null,
      timeZone: null,
      shipmentPurpose: 'Gift',
      currency: 'USD',
      invoiceItems: [
        { units: 2, description: 'Cotton T-shirt', weight: 0.4, value: 12.5, tariff: '6109.10' },
        { units: 1, description: 'Wool scarf', weight: 0.3, value: 30, tariff: '611710' },
      ],
      totalValue: 55,
    });
    const ledger = await ledgerOf(user.userId);
    expect(ledger.at(-1)).toMatchObject({ kind: 'fedex_charge', reference: order._id, amount_cents: -PRICE_CENTS, balance_after_cents: 10_000 - PRICE_CENTS });
  });

  it('charges the price the operator set at the time of the order', async () => {
    const user = await customer(t.app, t.db, 10_000);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/fed/read-price', headers: user.headers })).json()).toEqual({ price: PRICE_CENTS / 100 });
    try {
      await setFedexPrice(t.app, admin, 31.99);
      expect((await create(user, fedexPayload())).statusCode).toBe(200);
    } finally {
      await setFedexPrice(t.app, admin, PRICE_CENTS / 100);
    }
    expect((await create(user, fedexPayload())).statusCode).toBe(200);
    expect((await docsOf(user)).map((o) => o.price)).toEqual([PRICE_CENTS / 100, 31.99]);
    expect(await balanceCents(t.db, user.userId)).toBe(10_000 - 3199 - PRICE_CENTS);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000 - 3199 - PRICE_CENTS);
  });

  it('keeps a pickup with its window (start plus 4 hours), address and time zone', async () => {
    const user = await customer(t.app, t.db, PRICE_CENTS);
    const date = dateIn('Asia/Kolkata', 2);
    const res = await create(
      user,
      withPickup('Asia/Kolkata', { pickupDate: date, pickupTime: '14:15', pickupInfo: pickupInfo({ country: 'in', state: 'MH' }) }),
    );
    expect(res.json()).toEqual({ message: FEDEX_ORDER_CREATED });
    expect(await balanceCents(t.db, user.userId)).toBe(0);
    const [order] = await docsOf(user);
    expect(order).toMatchObject({
      pickup: true,
      pickupDate: date,
      pickupTime: '14:15',
      pickupEndTime: '18:15',
      timeZone: 'Asia/Kolkata',
      pickupAddress: {
        name: 'Warehouse Desk',
        street: '10 Downing Street',
        street2: '',
        city: 'London',
        state: 'MH',
        zip: 'SW1A 2AA',
        phone: '+44 20 7946 0000',
        country: 'IN',
      },
    });
  });

  it('defaults units to lbs and inch, the purpose to Gift and the currency to USD; state, street 2 and email may be left out', async () => {
    const payload = fedexPayload();
    for (const key of [
      'weightUnit',
      'dimensionUnit',
      'shipmentPurpose',
      'currency',
      'fromState',
      'toState',
      'fromStreet2',
      'fromEmail',
      'toEmail',
      'specialNotes',
      'signature',
      'pickup',
    ])
      delete payload[key];
    expect((await create(shared, payload)).statusCode).toBe(200);
    const [order] = await docsOf(shared);
    expect(order).toMatchObject({ weightUnit: 'lbs', dimensionUnit: 'inch', shipmentPurpose: 'Gift', currency: 'USD', signature: false, pickup: false });
    expect(order.from).toMatchObject({ state: '', street2: '', email: '' });
  });

  it('takes phones as Create Order does: (214) 555-0100, 214.555.0100 and +44 20 7946 0958', async () => {
    const res = await create(
      shared,
      withPickup('Europe/London', { fromPhone: '(214) 555-0100', toPhone: '214.555.0100', pickupInfo: pickupInfo({ phone: '+44 20 7946 0958' }) }),
    );
    expect(res.statusCode).toBe(200);
    const [order] = await docsOf(shared);
    expect([order.from.phone, order.to.phone, order.pickupAddress.phone]).toEqual(['(214) 555-0100', '214.555.0100', '+44 20 7946 0958']);
  });

  it('takes kg, cm, every purpose and currency, and lower-case country codes', async () => {
    const res = await create(
      shared,
      fedexPayload({ weightUnit: 'kg', dimensionUnit: 'cm', shipmentPurpose: 'PersonalEffects', currency: 'INR', fromCountry: 'de', toCountry: ' jp ' }),
    );
    expect(res.statusCode).toBe(200);
    const [order] = await docsOf(shared);
    expect(order).toMatchObject({
      weightUnit: 'kg',
      dimensionUnit: 'cm',
      shipmentPurpose: 'PersonalEffects',
      currency: 'INR',
      from: { country: 'DE' },
      to: { country: 'JP' },
    });
  });

  it('ignores the pickup fields when no pickup is chosen', async () => {
    const res = await create(
      shared,
      fedexPayload({ pickup: false, pickupDate: 'someday', pickupTime: '99:99', pickupInfo: { street: 'x'.repeat(80) }, timeZone: 'Mars/Olympus' }),
    );
    expect(res.statusCode).toBe(200);
    const [order] = await docsOf(shared);
    expect(order).toMatchObject({ pickup: false, pickupDate: null, pickupTime: null, pickupAddress: null, timeZone: null });
  });

  it('counts "today" in the customer time zone: UTC offsets and IANA names', async () => {
    // Kiritimati (UTC+14) is always a day or two ahead of Pago Pago (UTC-11).
    const kiritimatiToday = dateIn('Pacific/Kiritimati');
    const pagoToday = dateIn('Pacific/Pago_Pago');
    expect((await create(shared, withPickup('-11:00', { pickupDate: kiritimatiToday }))).statusCode).toBe(200);
    expect((await create(shared, withPickup('Pacific/Kiritimati', { pickupDate: kiritimatiToday }))).statusCode).toBe(200);
    const late = await create(shared, withPickup('+14:00', { pickupDate: pagoToday }));
    expect(late.statusCode).toBe(400);
    expect(late.json().message).toBe(pickupDateOutOfWindowMessage(kiritimatiToday, dateIn('Pacific/Kiritimati', 2)));
  });

  const long = 'x'.repeat(36);
  it.each<[string, Record<string, unknown>, string]>([
    ['sender name missing', { fromName: '' }, 'Sender Name is required'],
    ['receiver city missing', { toCity: undefined }, 'Receiver City is required'],
    ['sender street over 35', { fromStreet: long }, 'Sender Street must be at most 35 characters'],
    ['sender street 2 over 35', { fromStreet2: long }, 'Sender Street 2 must be at most 35 characters'],
    ['receiver street over 35', { toStreet: long }, 'Receiver Street must be at most 35 characters'],
    ['receiver street 2 over 35', { toStreet2: long }, 'Receiver Street 2 must be at most 35 characters'],
    ['sender ZIP missing', { fromZip: ' ' }, 'Sender ZIP is required'],
    ['receiver phone missing', { toPhone: '' }, 'Receiver Phone is required'],
    ['sender phone not a phone', { fromPhone: 'call me' }, 'Sender Phone must be a valid phone number'],
    ['receiver phone one digit short', { toPhone: '(214) 555-010' }, 'Receiver Phone must be a valid phone number'],
    ['sender email not an email', { fromEmail: 'alice@' }, 'Sender Email must be a valid email address'],
    ['receiver email not an email', { toEmail: 'bob at example.com' }, 'Receiver Email must be a valid email address'],
    ['sender country not ISO', { fromCountry: 'UK' }, 'Sender Country must be a 2-letter ISO country code, like US or GB'],
    ['receiver country a name', { toCountry: 'United States' }, 'Receiver Country must be a 2-letter ISO country code, like US or GB'],
    ['receiver country missing', { toCountry: '' }, 'Receiver Country is required'],
    ['weight missing', { weight: undefined }, 'Weight is required'],
    ['weight zero', { weight: 0 }, 'Weight must be greater than 0'],
    ['weight 1e-300', { weight: 1e-300 }, 'Weight must have at most 2 decimal places'],
    ['weight in hex', { weight: '0x2' }, 'Weight must be a number'],
    ['weight of 3 decimals', { weight: '1.234' }, 'Weight must have at most 2 decimal places'],
    ['height Infinity', { height: 'Infinity' }, 'Height must be a number'],
    ['sender name with half a character', { fromName: 'Bob \ud800 Smith' }, 'Sender Name holds characters that cannot be printed'],
    ['special notes with a bidi override', { specialNotes: 'leave at \u202edoor' }, 'Special Notes holds characters that cannot be printed'],
    ['item weight of 3 decimals', { invoiceItems: [item({ weight: 0.125 })] }, 'Item 1 Weight must have at most 2 decimal places'],
    [
      'item description with a lone surrogate',
      { invoiceItems: [item({ description: 'mug \udc00' })] },
      'Item 1 Description holds characters that cannot be printed',
    ],
    ['length not a number', { length: 'long' }, 'Length must be a number'],
    ['weight unit oz', { weightUnit: 'oz' }, WEIGHT_UNIT_INVALID],
    ['dimension unit mm', { dimensionUnit: 'mm' }, DIMENSION_UNIT_INVALID],
    ['signature not a flag', { signature: 'maybe' }, 'Signature must be true or false'],
    ['special notes over 500', { specialNotes: 'n'.repeat(501) }, 'Special Notes must be at most 500 characters'],
    ['no invoice items', { invoiceItems: [] }, FEDEX_ITEMS_REQUIRED],
    ['invoice items missing', { invoiceItems: undefined }, FEDEX_ITEMS_REQUIRED],
    ['eleven invoice items', { invoiceItems: Array.from({ length: 11 }, () => item()) }, FEDEX_ITEMS_TOO_MANY],
    ['item units fractional', { invoiceItems: [item(), item({ units: 1.5 })] }, 'Item 2 Units must be a whole number'],
    ['item units zero', { invoiceItems: [item({ units: 0 })] }, 'Item 1 Units must be at least 1'],
    ['item description missing', { invoiceItems: [item(), item(), item({ description: '' })] }, 'Item 3 Description is required'],
    ['item description over 450', { invoiceItems: [item({ description: 'd'.repeat(451) })] }, 'Item 1 Description must be at most 450 characters'],
    ['item weight negative', { invoiceItems: [item({ weight: -1 })] }, 'Item 1 Weight must be greater than 0'],
    ['item value not a number', { invoiceItems: [item({ value: 'cheap' })] }, 'Item 1 Value must be a number'],
    ['item value with fractions of a cent', { invoiceItems: [item({ value: 1.005 })] }, 'Item 1 Value must have at most 2 decimal places'],
    ['item tariff missing', { invoiceItems: [item({ tariff: undefined })] }, 'Item 1 Tariff code is required'],
    ['item tariff too short', { invoiceItems: [item({ tariff: '6109' })] }, 'Item 1 Tariff code must be an HS code of 6 to 10 digits, like 6109.10'],
    ['purpose unknown', { shipmentPurpose: 'Bribe' }, SHIPMENT_PURPOSE_INVALID],
    ['currency JPY', { currency: 'JPY' }, CURRENCY_INVALID],
  ])('refuses %s with 400 naming the field', async (_, overrides, message) => {
    const before = (await rowsOf(shared.userId)).length;
    const res = await create(shared, fedexPayload(overrides));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ message });
    expect((await rowsOf(shared.userId)).length).toBe(before);
  });

  const pickupCases: [string, () => Record<string, unknown>, () => string][] = [
    ['a pickup without a date', () => withPickup('Europe/London', { pickupDate: '' }), () => PICKUP_DATE_REQUIRED],
    ['a pickup date that is not a date', () => withPickup('Europe/London', { pickupDate: '2026-02-30' }), () => PICKUP_DATE_FORMAT],
    [
      'a pickup yesterday',
      () => withPickup('Europe/London', { pickupDate: dateIn('Europe/London', -1) }),
      () => pickupDateOutOfWindowMessage(dateIn('Europe/London'), dateIn('Europe/London', 2)),
    ],
    [
      'a pickup 3 days ahead',
      () => withPickup('America/New_York', { pickupDate: dateIn('America/New_York', 3) }),
      () => pickupDateOutOfWindowMessage(dateIn('America/New_York'), dateIn('America/New_York', 2)),
    ],
    ['a pickup without a time zone', () => withPickup('Europe/London', { timeZone: undefined }), () => TIME_ZONE_REQUIRED],
    ['a pickup in an unknown time zone', () => withPickup('Europe/London', { timeZone: 'Mars/Olympus' }), () => TIME_ZONE_INVALID],
    ['a pickup in an offset beyond +14:00', () => withPickup('Europe/London', { timeZone: '+15:00' }), () => TIME_ZONE_INVALID],
    ['a pickup without a time', () => withPickup('Europe/London', { pickupTime: undefined }), () => PICKUP_TIME_REQUIRED],
    ['a pickup time of 9:30', () => withPickup('Europe/London', { pickupTime: '9:30' }), () => PICKUP_TIME_FORMAT],
    ['a pickup time of 24:00', () => withPickup('Europe/London', { pickupTime: '24:00' }), () => PICKUP_TIME_FORMAT],
    ['a pickup starting after 20:00', () => withPickup('Europe/London', { pickupTime: '20:01' }), () => PICKUP_TIME_TOO_LATE],
    ['a pickup without an address', () => withPickup('Europe/London', { pickupInfo: undefined }), () => 'Pickup Name is required'],
    [
      'a pickup street over 35',
      () => withPickup('Europe/London', { pickupInfo: pickupInfo({ street: long }) }),
      () => 'Pickup Street must be at most 35 characters',
    ],
    [
      'a pickup street 2 over 35',
      () => withPickup('Europe/London', { pickupInfo: pickupInfo({ street2: long }) }),
      () => 'Pickup Street 2 must be at most 35 characters',
    ],
    [
      'a pickup country not ISO',
      () => withPickup('Europe/London', { pickupInfo: pickupInfo({ country: 'ZZ' }) }),
      () => 'Pickup Country must be a 2-letter ISO country code, like US or GB',
    ],
    ['a pickup phone missing', () => withPickup('Europe/London', { pickupInfo: pickupInfo({ phone: '' }) }), () => 'Pickup Phone is required'],
    [
      'a pickup phone too short',
      () => withPickup('Europe/London', { pickupInfo: pickupInfo({ phone: '12345' }) }),
      () => 'Pickup Phone must be a valid phone number',
    ],
  ];
  it.each(pickupCases)('refuses %s with 400 naming the field', async (_, payload, message) => {
    const res = await create(shared, payload());
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ message: message() });
  });

  it('takes a pickup today, and 2 days ahead, at 20:00 at the latest', async () => {
    expect((await create(shared, withPickup('America/Los_Angeles', { pickupDate: dateIn('America/Los_Angeles') }))).statusCode).toBe(200);
    const res = await create(shared, withPickup('America/Los_Angeles', { pickupDate: dateIn('America/Los_Angeles', 2), pickupTime: '20:00' }));
    expect(res.statusCode).toBe(200);
    expect((await docsOf(shared))[0]).toMatchObject({ pickupTime: '20:00', pickupEndTime: '00:00' });
  });

  it('answers 402 Insufficient balance and writes nothing when the balance is short by a cent', async () => {
    const user = await customer(t.app, t.db, PRICE_CENTS - 1);
    const res = await create(user, fedexPayload());
    expect(res.statusCode).toBe(402);
    expect(res.json()).toEqual({ message: INSUFFICIENT_BALANCE });
    expect(await rowsOf(user.userId)).toEqual([]);
    expect(await balanceCents(t.db, user.userId)).toBe(PRICE_CENTS - 1);
    expect((await ledgerOf(user.userId)).map((row) => row.kind)).toEqual(['adjustment']);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(PRICE_CENTS - 1);
  });

  it('needs a signed-in user', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/fed/create-order', payload: fedexPayload() });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /fed/read', () => {
  let user: Customer;
  let other: Customer;
  beforeAll(async () => {
    user = await customer(t.app, t.db, 30 * PRICE_CENTS);
    other = await customer(t.app, t.db, PRICE_CENTS);
    for (let i = 1; i <= 21; i++) {
      const res = await create(
        user,
        fedexPayload({ toName: i === 7 ? 'Zoë 100% Receiver' : `Receiver ${i}`, toCity: i === 3 ? 'Toronto' : 'New York', toCountry: i === 3 ? 'CA' : 'US' }),
      );
      expect(res.statusCode).toBe(200);
    }
    expect((await create(other, fedexPayload({ toName: 'Receiver Other', toCity: 'Toronto' }))).statusCode).toBe(200);
  });

  it('pages the user own orders newest first, 20 to a page', async () => {
    const first = (await list(user)).json();
    expect(first.totalDocs).toBe(21);
    expect(first.totalPages).toBe(2);
    expect(first.docs).toHaveLength(20);
    expect(first.docs.map((d: any) => d.to.name).slice(0, 3)).toEqual(['Receiver 21', 'Receiver 20', 'Receiver 19']);
    const second = (await list(user, '?page=2')).json();
    expect(second.docs.map((d: any) => d.to.name)).toEqual(['Receiver 1']);
    expect((await list(user, '?page=&limit=&search=')).json().docs).toHaveLength(20);
    expect((await list(user, '?limit=5&page=5')).json()).toMatchObject({ totalPages: 5, totalDocs: 21, docs: [{ to: { name: 'Receiver 1' } }] });
  });

  it('searches id, names and cities, case-insensitive, wildcards taken literally, only the user own orders', async () => {
    expect((await docsOf(user, '?search=toRONTO')).map((d) => d.to.name)).toEqual(['Receiver 3']);
    expect((await docsOf(user, '?search=zoë')).map((d) => d.to.name)).toEqual(['Zoë 100% Receiver']);
    expect((await docsOf(user, '?search=100%25')).map((d) => d.to.name)).toEqual(['Zoë 100% Receiver']);
    expect(await docsOf(user, '?search=_')).toEqual([]);
    expect((await list(user, '?search=alice')).json().totalDocs).toBe(21);
    const [mine] = await docsOf(user);
    expect((await docsOf(user, `?search=${mine._id.slice(4, 13).toUpperCase()}`)).map((d) => d._id)).toEqual([mine._id]);
    expect(await docsOf(user, '?search=Receiver%20Other')).toEqual([]);
    expect((await docsOf(other)).map((d) => d.to.name)).toEqual(['Receiver Other']);
  });

  it('refuses a bad page with 400 and a visitor with 401', async () => {
    expect((await list(user, '?page=0')).json()).toEqual({ message: 'Page must be at least 1' });
    expect((await list(user, '?limit=101')).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/fed/read' })).statusCode).toBe(401);
  });
});

describe('GET /fed/invoice/:id', () => {
  it('gives the owner a commercial invoice PDF with parties, items, totals, purpose code and a signature line', async () => {
    const user = await customer(t.app, t.db, PRICE_CENTS);
    const items = [item(), item({ units: 3, description: 'Ceramic mug', weight: 0.75, value: 8.1, tariff: '6912.00.48' })];
    await create(user, fedexPayload({ invoiceItems: items, shipmentPurpose: 'Commercial', currency: 'EUR' }));
    const [order] = await docsOf(user);
    const res = await t.app.inject({ method: 'GET', url: order.invoice, headers: user.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="commercial-invoice-${order._id.slice(0, 8).toUpperCase()}.pdf"`);
    const text = await pdfText(res.rawPayload);
    for (const expected of [
      'COMMERCIAL INVOICE',
      order._id,
      'Alice Sender',
      '221B Baker Street',
      'United Kingdom (GB)',
      'Bob Receiver',
      'United States (US)',
      'Cotton T-shirt',
      '6109.10',
      '12.50',
      '25.00',
      'Ceramic mug',
      '6912.00.48',
      '8.10',
      '24.30',
      'Total value: 49.30 EUR',
      'Commercial (SOLD)',
      'Signature of shipper / exporter',
    ]) {
      expect(text).toContain(expected);
    }
  });

  it('prints ten long items over as many pages as they need', async () => {
    const user = await customer(t.app, t.db, PRICE_CENTS);
    const items = Array.from({ length: 10 }, (_, i) =>
      item({ description: `Item ${i + 1} ${'handmade ceramic bowl with a glazed rim '.repeat(11)}`.slice(0, 450) }),
    );
    expect((await create(user, fedexPayload({ invoiceItems: items }))).statusCode).toBe(200);
    const [order] = await docsOf(user);
    const res = await t.app.inject({ method: 'GET', url: order.invoice, headers: user.headers });
    const text = await pdfText(res.rawPayload);
    expect(text).toContain('Item 10 handmade');
    expect(text).toContain('Total value: 250.00 USD');
    expect(text).toContain('Signature of shipper / exporter');
  });

  it('answers 404 for another user order and 401 for a visitor', async () => {
    const owner = await customer(t.app, t.db, PRICE_CENTS);
    const stranger = await customer(t.app, t.db, 0);
    await create(owner, fedexPayload());
    const [order] = await docsOf(owner);
    const res = await t.app.inject({ method: 'GET', url: order.invoice, headers: stranger.headers });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ message: FEDEX_ORDER_NOT_FOUND });
    expect((await t.app.inject({ method: 'GET', url: order.invoice })).statusCode).toBe(401);
  });
});
