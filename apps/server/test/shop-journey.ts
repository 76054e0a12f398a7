// A customer's way through a running shop, over HTTP as the browser goes: the built server's checks
// (test/production-build.test.ts and `npm run smoke`). Each step throws on an answer it does not expect.
import { AMAZON_CSV_PATH } from '@portal/contract';
import { ordinarySlipPages, packingSlipPdf } from './slip-fixtures.ts';
import { csvText, usRows } from './bulk-fixtures.ts';
import { call, waitUntil } from './processes.ts';
import { fundedCustomer } from './customers.ts';
import { orderParties, slipSender } from './sample-addresses.ts';

/** Settings of a shop the journey runs against: a quick captcha, a rate limit it does not reach, mail kept in the outbox. */
export const JOURNEY_ENV = { ALTCHA_MAX_NUMBER: '1000', RATE_LIMIT_MAX: '1000', SMTP_URL: '' };

const BULK_ROWS = 20;
/** A single priority label (order-fixtures.ts has more, but loads the whole app with its harness). */
const ORDER = {
  labelType: 'priority',
  design: 'normal',
  Weight: 2,
  ...orderParties(),
};
const SLIPS = 3;

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

/** A multipart form as the browser's FormData sends it, the file (`field`) last; the answer's text. */
async function postForm(
  url: string,
  pathName: string,
  token: string,
  fields: Record<string, string>,
  file: { field: string; data: string | Uint8Array; name: string; type: string },
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append(file.field, new Blob([file.data as BlobPart], { type: file.type }), file.name);
  const response = await fetch(`${url}/api/v1${pathName}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = await response.text();
  check(response.ok, `${pathName}: ${response.status} ${body}`);
  return body;
}

async function download(url: string, pathName: string, token: string): Promise<Buffer> {
  const response = await fetch(`${url}${pathName}`, { headers: { authorization: `Bearer ${token}` } });
  check(response.ok, `${pathName}: ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

/** The health answers, and the web app's page and script. */
export async function checkPages(url: string): Promise<void> {
  check((await fetch(`${url}/healthz`)).ok, '/healthz failed');
  const ready = await fetch(`${url}/readyz`);
  check(ready.ok, `/readyz: ${ready.status} ${await ready.text()}`);
  const page = await fetch(`${url}/`);
  const html = await page.text();
  check(
    page.ok && (page.headers.get('content-type') ?? '').startsWith('text/html') && html.includes('<script type="module"'),
    `/ is not the web app: ${page.status} ${html.slice(0, 200)}`,
  );
  const script = html.match(/<script type="module"[^>]* src="([^"]+)"/)?.[1];
  check(script !== undefined && (await fetch(`${url}${script}`)).ok, `the web app's script ${script} is not served`);
}

/** The password of the journey's customers (their tgId is GET /auth/access's). */
export const JOURNEY_PASSWORD = 'smoke password 1';

/** A new customer (JOURNEY_PASSWORD), signed in, with a $1,000 sandbox deposit paid; their token. */
export const journeyCustomer = async (url: string): Promise<string> => (await fundedCustomer(url, 100_000, 'deposit', { password: JOURNEY_PASSWORD })).token;

/** A single label bought and downloaded. */
export async function orderLabel(url: string, token: string): Promise<void> {
  await call(url, '/order/create', ORDER, token);
  const [order] = (await call(url, '/order/read?page=1&limit=1', undefined, token)).orders;
  check((await download(url, `/api/v1/order/download/${order._id}`, token)).subarray(0, 5).toString() === '%PDF-', 'the label is not a PDF');
}

/** A bulk order of BULK_ROWS rows, made by whichever process runs the jobs, and its zip file downloaded. */
export async function bulkOrder(url: string, token: string): Promise<void> {
  const csv = { field: 'csv', data: csvText(usRows(BULK_ROWS)), name: 'orders.csv', type: 'text/csv' };
  const { totalPrice } = JSON.parse(await postForm(url, '/order/validatecsv', token, { labeltype: 'uspsv9' }, csv));
  await postForm(url, '/order/createOrderFromCSV', token, { type: 'uspsv9', total_price: String(totalPrice), design: '' }, csv);
  let bulk: { _id: string; status: string } | undefined;
  await waitUntil(
    async () => {
      [bulk] = (await call(url, '/order/read-bulk-orders', undefined, token)).orders;
      return bulk?.status === 'completed';
    },
    120_000,
    () => `the bulk order made: ${JSON.stringify(bulk)}`,
  );
  check((await download(url, `/api/v1/order/bulk-download/${bulk!._id}`, token)).subarray(0, 2).toString() === 'PK', 'the bulk download is not a zip file');
}

/** A packing-slip PDF of SLIPS slips turned into a CSV file of as many rows (on the slip reader's thread). */
export async function readPackingSlips(url: string, token: string): Promise<void> {
  const pdf = { field: 'pdf', data: await packingSlipPdf(ordinarySlipPages(SLIPS)), name: 'slips.pdf', type: 'application/pdf' };
  const from = { ...slipSender(), weight: '2' };
  const rows = (await postForm(url, AMAZON_CSV_PATH, token, from, pdf)).trim().split(/\r?\n/);
  check(rows.length === SLIPS + 1, `the packing slips made ${rows.length - 1} rows, not ${SLIPS}`);
}

/** Every step in turn; `step` hears each one's name as it starts. */
export async function shopJourney(url: string, step: (name: string) => void = () => {}): Promise<void> {
  step('health and the web app');
  await checkPages(url);
  step('sign up and deposit');
  const token = await journeyCustomer(url);
  step('order');
  await orderLabel(url, token);
  step('bulk order');
  await bulkOrder(url, token);
  step('packing slips');
  await readPackingSlips(url, token);
}
