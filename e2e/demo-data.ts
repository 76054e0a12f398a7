import fs from 'node:fs';
import path from 'node:path';
import { insertOrders } from '../apps/server/src/modules/orders/repository.ts';
import { changeBalance } from '../apps/server/src/modules/billing/ledger.ts';
import { COMPANY_RECIPIENT, RECIPIENT, SENDER, orderParties, type Party } from '../apps/server/test/sample-addresses.ts';
import { api, createAccount, fundAccount, withServerDb, type RunningServer } from './harness.ts';

type LabelTypeRow = { _id: string; uid: string; name: string };
type ListedOrder = { _id: string; OrderId: string; status: string; price: number; tracking: string | null; labelType: { uid: string; name: string } };

export const DEMO_BALANCE_CENTS = 223_200;
export const FAILURE_NOTE = 'Address not deliverable: the ZIP code does not match the city';

/** The demo's sender: the sample sender with a company and a second street line; its first saved address too. */
export const DEMO_SENDER = { ...SENDER, company: 'Acme Supplies', street2: 'Suite 4' };
type BookParty = Party & { company: string; street2: string };
const MARIA: BookParty = COMPANY_RECIPIENT;
const LIAM: BookParty = {
  name: 'Liam Chen',
  company: '',
  street: '12 Harbor Way',
  street2: '',
  city: 'Seattle',
  state: 'WA',
  zip: '98101',
  country: 'United States',
};
const RECEIVER: BookParty = { ...RECIPIENT, company: '', street2: '' };
const addresses = [{ ...DEMO_SENDER, name: 'Acme Warehouse' }, MARIA, LIAM];
const packages = [
  { name: 'Small box', weight: 2, weightUnit: 'lb', length: 10, width: 8, height: 4 },
  { name: 'Padded mailer', weight: 12, weightUnit: 'oz' },
];

/** An order's sender and receiver fields from DEMO_SENDER to `to`, companies and second street lines included. */
const parties = (to: BookParty) => ({
  ...orderParties(DEMO_SENDER, to),
  FromCompany: DEMO_SENDER.company,
  FromStreet2: DEMO_SENDER.street2,
  ToCompany: to.company,
  ToStreet2: to.street2,
});

export const listOrders = async (server: RunningServer, token: string, query = 'limit=100') =>
  (await api<{ orders: ListedOrder[] }>(server.url, `/order/read?${query}`, undefined, token)).orders;

/** A multipart call (the CSV order calls), answered as JSON. */
async function postForm<T>(server: RunningServer, pathName: string, token: string, fields: Record<string, string>, csv: string): Promise<T> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('csv', new Blob([csv], { type: 'text/csv' }), 'orders.csv');
  const response = await fetch(`${server.url}/api/v1${pathName}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const data = await response.json();
  if (!response.ok) throw new Error(`${pathName}: ${response.status} ${JSON.stringify(data)}`);
  return data as T;
}

/** A CSV order of the sample file's rows, validated and paid through the real calls. */
export async function placeCsvOrder(server: RunningServer, token: string, types: LabelTypeRow[]) {
  const csv = fs.readFileSync(path.resolve(import.meta.dirname, '../apps/web/public/sample-orders.csv'), 'utf8');
  const priority = types.find((t) => t.uid === 'priority')!;
  const { totalPrice } = await postForm<{ totalPrice: number }>(server, '/order/validatecsv', token, { labeltype: priority._id }, csv);
  await postForm(server, '/order/createOrderFromCSV', token, { type: priority._id, total_price: String(totalPrice), design: 'normal' }, csv);
}

/**
 * The provider's refusal of a placed order, as the order service records it: cancelled with the
 * provider's message and refunded by an order_refund ledger row.
 */
export async function cancelAsRefused(server: RunningServer, order: ListedOrder) {
  await withServerDb(server, (db) =>
    db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('orders')
        .set({ status: 'cancelled', note: FAILURE_NOTE, pdf_key: null, tracking: null })
        .where('id', '=', order._id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await changeBalance(trx, { userId: row.user_id, amountCents: Number(row.price_cents), kind: 'order_refund', reference: row.id, note: FAILURE_NOTE });
    }),
  );
}

/** `count` more copies of a single order (new ids, a second apart, older than it), written at once as old history. */
export async function copyOrders(server: RunningServer, orderId: string, count: number) {
  await withServerDb(server, async (db) => {
    const original = await db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
    const start = Date.parse(original.created_at) - count * 1000;
    const copies = Array.from({ length: count }, (_, i) => ({
      ...original,
      id: crypto.randomUUID(),
      bulk_order_id: null,
      bulk_row: null,
      // Each copy is a label of its own, with a tracking page of its own.
      tracking_token: crypto.randomUUID().replaceAll('-', ''),
      created_at: new Date(start + i * 1000).toISOString(),
    }));
    await db.transaction().execute((trx) => insertOrders(trx, copies));
  });
}

/**
 * A shop with a customer who has history: $2,232.00 left after buying; single orders of three
 * types (one refused and refunded), a CSV order of the sample file, three saved addresses, two saved packages, a
 * deposit invoice.
 */
export async function seedDemoCustomer(server: RunningServer) {
  const account = await createAccount(server.url);
  const { token } = account;
  const types = (await api<{ labelTypes: LabelTypeRow[] }>(server.url, '/labeltype/read', undefined, token)).labelTypes;
  const typeId = (uid: string) => types.find((t) => t.uid === uid)!._id;
  await fundAccount(server, token, 500_000);
  const orders = [
    { labelType: typeId('priority'), design: 'normal', Weight: 2, ...parties(RECEIVER) },
    { labelType: typeId('uspsv9'), Weight: 6, ...parties(MARIA) },
    { labelType: typeId('fedex_ground'), Weight: 3, ...parties(LIAM), ToPhone: '+1 206 555 0144' },
    { labelType: typeId('priority'), design: 'pitney', Weight: 1, ...parties(LIAM) },
  ];
  for (const order of orders) await api(server.url, '/order/create', order, token);
  await placeCsvOrder(server, token, types);
  for (const address of addresses) await api(server.url, '/address/create', address, token);
  for (const saved of packages) await api(server.url, '/packages', saved, token);
  await api(server.url, '/invoices/create-invoice', { amount: 250, type: 'crypto' }, token);
  const [refused] = await listOrders(server, token, 'limit=1&sort=asc');
  await cancelAsRefused(server, refused!);
  // What is left is set to the demo balance, through an adjustment row like an operator's.
  const { balance } = await api<{ balance: number }>(server.url, '/auth/access', undefined, token);
  await fundAccount(server, token, DEMO_BALANCE_CENTS - Math.round(balance * 100));
  return { ...account, types, refused: refused! };
}
