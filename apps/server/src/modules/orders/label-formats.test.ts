import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { SAMPLE_MARK } from '../../providers/labels/label-provider.ts';
import { dropRedisPrefix, startTestApp, type TestApp } from '../../../test/harness.ts';
import { orderPayload } from '../../../test/order-fixtures.ts';
import { fundedCustomer } from '../../../test/customers.ts';
import { createFromCsv, csvText, usRows, waitForCompletion, zipEntries } from '../../../test/bulk-fixtures.ts';
import { callApi, resellerUser } from '../../../test/reseller-fixtures.ts';
import { decodeCode128, printZpl, zplCommands } from '../../../test/zpl-check.ts';
import { uniqueId } from '../../../test/basics.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

type User = Awaited<ReturnType<typeof fundedCustomer>>;
const get = (user: User, url: string, on = t) => on.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: user.headers });
const setFormat = (user: User, labelFormat: unknown, on = t) =>
  on.app.inject({ method: 'POST', url: '/api/v1/account/label-format', payload: { labelFormat }, headers: user.headers });

async function placeOrders(user: User, names: string[]): Promise<{ id: string; tracking: string }[]> {
  for (const ToName of names) {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', payload: orderPayload('priority', { ToName }), headers: user.headers });
    expect(res.statusCode).toBe(200);
  }
  const orders: { _id: string; tracking: string; status: string }[] = (await get(user, '/order/read?limit=100&sort=asc')).json().orders;
  expect(orders.map((o) => o.status)).toEqual(names.map(() => 'completed'));
  return orders.map((o) => ({ id: o._id, tracking: o.tracking }));
}

/** Each page's size and the label Form XObjects it draws, with its text (pdf.js). */
async function letterPages(pdf: Uint8Array) {
  const doc = await PDFDocument.load(pdf);
  const reader = await getDocument({ data: new Uint8Array(pdf), verbosity: 0 }).promise;
  const pages = [];
  for (const [i, page] of doc.getPages().entries()) {
    const xobjects = page.node.Resources()?.lookupMaybe(PDFName.of('XObject'), PDFDict);
    const content = await (await reader.getPage(i + 1)).getTextContent();
    pages.push({
      size: [page.getWidth(), page.getHeight()],
      labels: xobjects ? xobjects.keys().length : 0,
      text: content.items.map((item) => ('str' in item ? item.str : '')).join(' '),
    });
  }
  await reader.destroy();
  return pages;
}

describe('label formats', () => {
  it('downloads a label as the 4x6 PDF by default, and as ZPL once the account chose it; a bad format is refused', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    expect((await get(user, '/auth/access')).json().labelFormat).toBe('pdf');
    const [order] = await placeOrders(user, ['Ana Núñez']);

    const pdf = await get(user, `/order/download/${order.id}`);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe(`attachment; filename="${order.tracking}.pdf"`);
    const page = (await PDFDocument.load(pdf.rawPayload)).getPages();
    expect(page.map((p) => [p.getWidth(), p.getHeight()])).toEqual([[288, 432]]);

    const refused = await setFormat(user, 'png');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toContain('Label format must be one of pdf, pdf-letter, zpl');
    expect((await setFormat(user, 'zpl')).json()).toEqual({ message: 'Label format saved' });
    expect((await get(user, '/auth/access')).json().labelFormat).toBe('zpl');

    const zpl = await get(user, `/order/download/${order.id}`);
    expect(zpl.statusCode).toBe(200);
    expect(zpl.headers['content-type']).toContain('application/zpl');
    expect(zpl.headers['content-disposition']).toBe(`attachment; filename="${order.tracking}.zpl"`);
    const { labels } = zplCommands(zpl.body);
    expect(labels).toHaveLength(1);
    expect(labels[0]).toEqual(expect.arrayContaining(['PW812', 'LL1218']));
    expect(zpl.body).toContain(SAMPLE_MARK);
    expect(zpl.body).toContain('Ana Núñez');
    expect(decodeCode128((await printZpl(zpl.body))[0])).toContain(order.tracking.slice(2));

    // ?format= overrides the account's choice for one download.
    expect((await get(user, `/order/download/${order.id}?format=pdf`)).headers['content-type']).toBe('application/pdf');
    expect((await get(user, `/order/download/${order.id}?format=gif`)).statusCode).toBe(400);
  });

  it('downloads selected orders as one file: Letter pages of exactly two labels with the SAMPLE mark, or ZPL; only the owner’s completed orders', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const orders = await placeOrders(user, ['First One', 'Second Two', 'Third Three']);
    const ids = orders.map((o) => o.id);
    const selected = (payload: unknown, who = user) =>
      t.app.inject({ method: 'POST', url: '/api/v1/order/download-selected', payload: payload as object, headers: who.headers });

    const letter = await selected({ ids, format: 'pdf-letter' });
    expect(letter.statusCode).toBe(200);
    expect(letter.headers['content-disposition']).toBe('attachment; filename="labels.pdf"');
    const pages = await letterPages(letter.rawPayload);
    expect(pages.map((p) => [p.size, p.labels])).toEqual([
      [[612, 792], 2],
      [[612, 792], 1],
    ]);
    const compact = pages.map((p) => p.text.replace(/\s+/g, ''));
    expect(compact[0]).toContain(orders[0].tracking);
    expect(compact[0]).toContain(orders[1].tracking);
    expect(compact[1]).toContain(orders[2].tracking);
    expect(pages[0].text).toContain(SAMPLE_MARK);

    const pdf = await selected({ ids, format: 'pdf' });
    expect((await PDFDocument.load(pdf.rawPayload)).getPageCount()).toBe(3);

    await setFormat(user, 'zpl');
    const zpl = await selected({ ids });
    expect(zpl.headers['content-disposition']).toBe('attachment; filename="labels.zpl"');
    expect(zplCommands(zpl.body).labels).toHaveLength(3);
    const printed = await printZpl(zpl.body);
    expect(printed.map(decodeCode128).map((text) => text.slice(-20))).toEqual(orders.map((o) => o.tracking.slice(2)));

    const other = await fundedCustomer(t.app, 0, t.db);
    expect((await selected({ ids }, other)).statusCode).toBe(404);
    expect((await selected({ ids: [] })).statusCode).toBe(400);
  });
});

const engines = ['embedded', ...(process.env.TEST_REDIS_URL ? ['bullmq'] : [])] as const;

describe.each(engines)('bulk order files in the chosen format, on the %s queue', (engine) => {
  let b: TestApp;
  const prefix = uniqueId('test-formats');
  beforeAll(async () => {
    b = engine === 'bullmq' ? await startTestApp({ REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix }) : t;
  });
  afterAll(async () => {
    if (engine !== 'bullmq') return;
    await b?.close();
    await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  });

  it('makes the bulk merged file and the ZIP in the chosen format, on the web and the reseller API', async () => {
    const user = await resellerUser(b.app, b.db, 50_000);
    const types = await b.db.selectFrom('label_types').select(['id', 'uid']).execute();
    const priority = types.find((x) => x.uid === 'priority')!.id;
    // 43 rows: Letter pages are laid out 20 labels at a time, so the file joins three such parts, the last one odd.
    const rowCount = 43;
    const res = await createFromCsv(b.app, user.headers, { type: priority, total_price: rowCount * 6.75, design: 'normal' }, csvText(usRows(rowCount)));
    expect(res.statusCode).toBe(200);
    const { order: bulk } = await waitForCompletion(b.app, user.headers);

    const merged = await get(user, `/order/bulk-download-pdf/${bulk._id}?format=zpl`, b);
    expect(merged.headers['content-disposition']).toBe('attachment; filename="label.zpl"');
    expect(zplCommands(merged.body).labels).toHaveLength(rowCount);

    const letter = await get(user, `/order/bulk-download-pdf/${bulk._id}?format=pdf-letter`, b);
    const pages = await letterPages(letter.rawPayload);
    expect(pages.map((p) => p.labels)).toEqual([...Array(21).fill(2), 1]);
    expect(pages.every((p) => p.text.includes(SAMPLE_MARK))).toBe(true);

    await setFormat(user, 'zpl', b);
    const zip = zipEntries(new Uint8Array((await get(user, `/order/bulk-download/${bulk._id}`, b)).rawPayload));
    const names = Object.keys(zip);
    expect(names.filter((n) => n.endsWith('.zpl'))).toHaveLength(rowCount);
    expect(names.at(-1)).toBe('label.csv');
    // The 4x6 PDF as written when the order ran, asked for by name.
    const asPdf = zipEntries(new Uint8Array((await get(user, `/order/bulk-download/${bulk._id}?format=pdf`, b)).rawPayload));
    expect(Object.keys(asPdf).filter((n) => n.endsWith('.pdf'))).toHaveLength(rowCount);

    // The reseller API: format= on both downloads, the account's choice without it.
    const apiZip = await callApi(b.app, user.apiKey, 'GET', `/order/download-bulk-order/${bulk._id}?format=pdf-letter`);
    expect(apiZip.statusCode).toBe(200);
    const letterEntries = zipEntries(new Uint8Array(apiZip.rawPayload));
    const first = Object.keys(letterEntries).find((n) => n.endsWith('.pdf'))!;
    expect((await letterPages(letterEntries[first])).map((p) => [p.size, p.labels])).toEqual([[[612, 792], 1]]);
    const rows: { _id: string; tracking: string }[] = (await get(user, '/order/read?limit=10', b)).json().orders;
    const one = await callApi(b.app, user.apiKey, 'GET', `/order/download/${rows[0]._id}`);
    expect(one.headers['content-disposition']).toBe(`attachment; filename="${rows[0].tracking}.zpl"`);
    const onePdf = await callApi(b.app, user.apiKey, 'GET', `/order/download/${rows[0]._id}?format=pdf`);
    expect(onePdf.headers['content-type']).toBe('application/pdf');
    expect((await callApi(b.app, user.apiKey, 'GET', `/order/download/${rows[0]._id}?format=eps`)).statusCode).toBe(400);
  });
});
