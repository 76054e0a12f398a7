import type { FastifyInstance } from 'fastify';
import { fundUser, signUp } from './harness.ts';
import type { Db } from '../src/db/database.ts';

/** The calendar date (yyyy-mm-dd) in a time zone plus whole days, computed apart from the code under test. */
export function dateIn(timeZone: string, daysAhead = 0): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
  const [y, m, d] = today.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + daysAhead)).toISOString().slice(0, 10);
}

export const item = (overrides: Record<string, unknown> = {}) => ({
  units: 2,
  description: 'Cotton T-shirt',
  weight: 0.4,
  value: 12.5,
  tariff: '6109.10',
  ...overrides,
});

export const pickupInfo = (overrides: Record<string, unknown> = {}) => ({
  name: 'Warehouse Desk',
  street: '10 Downing Street',
  street2: '',
  city: 'London',
  state: '',
  zip: 'SW1A 2AA',
  phone: '+44 20 7946 0000',
  country: 'GB',
  ...overrides,
});

/** A valid FedEx order payload from London to New York, without a pickup. */
export function fedexPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    fromName: 'Alice Sender',
    fromStreet: '221B Baker Street',
    fromStreet2: 'Flat 2',
    fromCity: 'London',
    fromState: '',
    fromZip: 'NW1 6XE',
    fromPhone: '+44 20 7946 0958',
    fromEmail: 'alice@example.com',
    fromCountry: 'GB',
    toName: 'Bob Receiver',
    toStreet: '350 Fifth Avenue',
    toStreet2: '',
    toCity: 'New York',
    toState: 'NY',
    toZip: '10118',
    toPhone: '212 555 0100',
    toEmail: '',
    toCountry: 'US',
    weight: 3,
    length: 12,
    width: 10,
    height: 4,
    weightUnit: 'lbs',
    dimensionUnit: 'inch',
    specialNotes: 'Fragile',
    signature: true,
    pickup: false,
    invoiceItems: [item(), item({ units: 1, description: 'Wool scarf', weight: 0.3, value: 30, tariff: '611710' })],
    shipmentPurpose: 'Gift',
    currency: 'USD',
    ...overrides,
  };
}

/** A payload asking for a pickup, today in the zone (an IANA name) unless the overrides give the date. */
export const withPickup = (timeZone = 'Europe/London', overrides: Record<string, unknown> = {}) =>
  fedexPayload({
    pickup: true,
    pickupDate: 'pickupDate' in overrides ? undefined : dateIn(timeZone),
    pickupTime: '09:30',
    timeZone,
    pickupInfo: pickupInfo(),
    ...overrides,
  });

export type Customer = { tgId: string; headers: { authorization: string }; userId: string };

/** A signed-in customer funded with `cents` through the ledger. */
export async function customer(app: FastifyInstance, db: Db, cents: number): Promise<Customer> {
  const { tgId, headers } = await signUp(app);
  const { id } = await db.selectFrom('users').select('id').where('tg_id', '=', tgId).executeTakeFirstOrThrow();
  if (cents > 0) await fundUser(db, id, cents);
  return { tgId, headers, userId: id };
}

export const balanceCents = async (db: Db, userId: string) =>
  Number((await db.selectFrom('users').select('balance_cents').where('id', '=', userId).executeTakeFirstOrThrow()).balance_cents);

/** A minimal one-page PDF, as a carrier's label would be. */
export async function labelPdf(): Promise<Buffer> {
  const { PDFDocument } = await import('pdf-lib');
  const doc = await PDFDocument.create();
  doc.addPage([288, 432]).drawText('FedEx label', { x: 20, y: 400 });
  return Buffer.from(await doc.save());
}

/** A multipart/form-data body with text fields and files. */
export function multipartBody(fields: Record<string, string>, files: { field: string; name: string; type: string; data: Buffer }[]) {
  const boundary = `----fedex${Date.now().toString(16)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const file of files) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`),
      file.data,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A signed-in operator: the role set the way `npm run admin -- grant` sets it. */
export async function operator(app: FastifyInstance, db: Db): Promise<Customer> {
  const user = await customer(app, db, 0);
  await db.updateTable('users').set({ role: 'admin' }).where('id', '=', user.userId).execute();
  return user;
}

/** Sets the FedEx price (dollars) through the console, as an operator does. */
export async function setFedexPrice(app: FastifyInstance, admin: Customer, price: number): Promise<void> {
  const res = await app.inject({ method: 'PUT', url: '/api/v1/admin/fedex-price', payload: { price }, headers: admin.headers });
  if (res.statusCode !== 200) throw new Error(`setting the FedEx price failed: ${res.body}`);
}
