import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BULK_MAX_ROWS,
  BULK_NOT_READY,
  BULK_NO_LABELS,
  BULK_ORDER_NOT_FOUND,
  CSV_CELL_TOO_LONG,
  CSV_COLUMNS,
  CSV_FILE_TOO_LARGE,
  CSV_MAX_BLANK_LINES,
  CSV_MAX_CELL_CHARS,
  CSV_MAX_COLUMNS,
  CSV_MAX_LISTED_ERRORS,
  CSV_NOT_CSV,
  CSV_NO_ROWS,
  CSV_TOO_MANY_BLANK_LINES,
  CSV_TOO_MANY_COLUMNS,
  CSV_TOO_MANY_ROWS,
  CSV_VALIDATED,
  LABEL_TYPE_REQUIRED,
  ORDERS_CREATED,
  PLEASE_SELECT_CSV_FILE,
  CSV_FILE_EMPTY,
  PRICES_CHANGED,
  SAMPLE_CSV_PATH,
  TEMPLATE_REQUIRED,
  US_STATE_CODES,
} from '@portal/contract';
import pino from 'pino';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import type { FileStore } from '../../providers/storage/file-store.ts';
import { createFileStore } from '../../providers/storage/from-config.ts';
import { buildServices, type Services } from '../../services.ts';
import { MAX_ATTEMPTS } from '../../queue/job-queue.ts';
import { PoolFull } from '../../lib/http-errors.ts';
import { LabelProviderError, type LabelProvider } from '../../providers/labels/label-provider.ts';
import { createSandboxLabelProvider } from '../../providers/labels/sandbox.ts';
import { inlineRenderer } from '../../providers/labels/render-pool.ts';
import { ledgerSumCents } from '../billing/service.ts';
import { balanceOf } from '../../../test/order-fixtures.ts';
import { fundedCustomer } from '../../../test/customers.ts';
import {
  createFromCsv,
  csvText,
  download,
  pdfPageCount,
  readBulkOrders,
  readReport,
  usRow,
  usRows,
  validateCsv,
  zipEntries,
} from '../../../test/bulk-fixtures.ts';

const REFUSED = 'Refuse Me';
/** A label addressed to BUSY meets a full render queue while busyLeft counts down. */
const BUSY = 'Busy Renderer';
let busyLeft = 0;
/** The sandbox, refusing any label addressed to REFUSED: one row of a file fails, the others are made. */
const sandbox = createSandboxLabelProvider({ mode: 'instant', delayMs: 0, renderer: inlineRenderer() });
const refusing: LabelProvider = {
  name: 'sandbox',
  // Free like the sandbox it wraps: a bulk order given up refunds its rows without asking for labels sold upstream.
  freeLabels: sandbox.freeLabels,
  quote: (request) => sandbox.quote(request),
  createLabel: (request) => {
    if (request.to.name === BUSY && busyLeft-- > 0) return Promise.reject(new PoolFull('label renderer', 1));
    return request.to.name === REFUSED ? Promise.reject(new LabelProviderError('address not deliverable')) : sandbox.createLabel(request);
  },
  findLabel: (request) => sandbox.findLabel(request),
  checkLabel: (request, ref) => sandbox.checkLabel(request, ref),
};

let t: TestApp;
/** A bulk service on the test app's database and files, as a worker process builds it. */
const runners: Services[] = [];
const jobRunner = async (wrapFiles: (files: FileStore) => FileStore = (f) => f) => {
  const config = { ...t.config, ORDER_POLL_INTERVAL_MS: 50, LABEL_RENDER_THREADS: 0 };
  const services = await buildServices(config, pino({ level: 'silent' }), { db: t.db, labels: refusing, files: wrapFiles(await createFileStore(config)) });
  runners.push(services);
  return services.bulk;
};
let priority: string;
let uspsv9: string;
beforeAll(async () => {
  // Jobs are not run here: fewer than 4 rows are made at once, and a queued order stays 'processing'.
  t = await startTestApp({ QUEUE_RUN_WORKERS: 'false' }, { labels: refusing });
  const types = await t.db.selectFrom('label_types').select(['id', 'uid']).execute();
  priority = types.find((x) => x.uid === 'priority')!.id;
  uspsv9 = types.find((x) => x.uid === 'uspsv9')!.id;
});
afterAll(async () => {
  await Promise.all(runners.map((r) => r.close()));
  await t.close();
});

type User = Awaited<ReturnType<typeof fundedCustomer>>;
const PRIORITY_2LB = 6.75;
const V9_2LB = 7.25;

/** Nothing of a refused upload is left: no bulk order, no order, no ledger row beyond the funding, no stored file. */
async function expectNothingWritten(user: User, fundedCents: number) {
  expect(await t.db.selectFrom('bulk_orders').select('id').where('user_id', '=', user.userId).execute()).toEqual([]);
  expect(await t.db.selectFrom('orders').select('id').where('user_id', '=', user.userId).execute()).toEqual([]);
  expect(await t.db.selectFrom('ledger').select('kind').where('user_id', '=', user.userId).execute()).toEqual([{ kind: 'adjustment' }]);
  expect(await ledgerSumCents(t.db, user.userId)).toBe(fundedCents);
  // Every stored bulk file belongs to a bulk order that exists (a refused upload leaves none behind).
  const known = new Set((await t.db.selectFrom('bulk_orders').select('id').execute()).map((b) => b.id));
  for (const dir of ['bulk', 'bulk-input']) {
    const full = path.join(t.config.dataDir, 'files', dir);
    const names = fs.existsSync(full) ? fs.readdirSync(full).map((n) => n.replace(/\.csv$/, '')) : [];
    expect(names.filter((n) => !known.has(n))).toEqual([]);
  }
}

describe('POST /order/validatecsv', () => {
  let user: User;
  beforeAll(async () => {
    user = await fundedCustomer(t.app, 0, t.db);
  });

  it('prices a valid file with the single order prices', async () => {
    const res = await validateCsv(t.app, user.headers, priority, csvText(usRows(3)));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: CSV_VALIDATED, totalPrice: 3 * PRIORITY_2LB, totalOrders: 3 });
    const v9 = await validateCsv(t.app, user.headers, 'uspsv9', csvText([usRow(1, { Weight: '6' }), usRow(2, { Length: '15', Width: '15', Height: '15' })]));
    expect(v9.json()).toMatchObject({ totalPrice: 11.5 + V9_2LB, totalOrders: 2 });
  });

  it('reads a BOM, semicolons, quoted separators and quotes, empty lines, LF line ends and header names in any case and order', async () => {
    const columns = ['Weight', 'ToName', 'ToStreet', 'ToCity', 'ToState', 'ToZip', 'FromName', 'FromStreet', 'FromCity', 'FromState', 'FromZip', 'Reference'];
    const header = [
      'weight',
      'TONAME',
      'To Street',
      'ToCity',
      'tostate',
      'to_zip',
      'FromName',
      'FromStreet',
      'FromCity',
      'FromState',
      'FromZip',
      'Reference',
    ].join(';');
    const rows = [usRow(1, { ToName: 'Doe; Jane', ToStreet: '12 "Main" Street', Reference: 'A; "1"' }), usRow(2, { ToState: 'California' })];
    const body = csvText(rows, { separator: ';', columns }).split('\r\n').slice(1).join('\r\n');
    const text = `\ufeff${header}\r\n\r\n;;;\r\n${body}`;
    const res = await validateCsv(t.app, user.headers, priority, text);
    expect(res.json()).toMatchObject({ totalOrders: 2, totalPrice: 2 * PRIORITY_2LB });
    const lf = await validateCsv(t.app, user.headers, priority, csvText(rows, { eol: '\n' }));
    expect(lf.json()).toMatchObject({ totalOrders: 2 });
  });

  it('reads a Windows-1252 file, smart quotes, dashes and € included, at the total of the same file in UTF-8', async () => {
    const rows = [usRow(1, { ToName: 'Jos\u00e9 Pe\u00f1a' }), usRow(2, { ToCompany: 'O’Brien Shop – 5', FromCompany: '“Best” € Store' })];
    // As Excel saves it: ’ is 0x92, – 0x96, “ ” 0x93 0x94 and € 0x80 in Windows-1252.
    const win1252 = Buffer.from(
      csvText(rows).replace(/[’–“”€]/g, (c) => String.fromCharCode({ '’': 0x92, '–': 0x96, '“': 0x93, '”': 0x94, '€': 0x80 }[c]!)),
      'latin1',
    );
    expect(win1252.includes(0x92)).toBe(true);
    const res = await validateCsv(t.app, user.headers, priority, win1252);
    expect(res.json(), res.body).toMatchObject({ message: CSV_VALIDATED });
    // Every character prints as typed: no notes.
    expect(res.json()).toEqual({ message: CSV_VALIDATED, totalOrders: 2, totalPrice: 2 * PRIORITY_2LB });
    expect((await validateCsv(t.app, user.headers, priority, csvText(rows))).json()).toEqual(res.json());
  });

  it('takes any script, and names each row that prints otherwise than typed', async () => {
    const rows = [usRow(1), usRow(2, { ToName: '李小龙', ToCity: 'Springfield 🎉' }), usRow(3, { FromName: 'Nguyễn Văn Đức', ToName: 'Zoë Núñez' })];
    const res = await validateCsv(t.app, user.headers, priority, csvText(rows));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      message: CSV_VALIDATED,
      totalOrders: 3,
      totalPrice: 3 * PRIORITY_2LB,
      printNotes: [
        { row: 2, printedAs: { ToName: 'Li Xiao Long', ToCity: 'Springfield' } },
        { row: 3, printedAs: { FromName: 'Nguyen Van Duc' } },
      ],
    });
  });

  it('takes weights written plainly (2, 2.5, 2.50) and names every other notation', async () => {
    const good = await validateCsv(
      t.app,
      user.headers,
      priority,
      csvText([usRow(1, { Weight: '2' }), usRow(2, { Weight: '2.5' }), usRow(3, { Weight: '2.50' })]),
    );
    expect(good.statusCode).toBe(200);
    const weights = ['1e-300', '0x2', '1.234', 'Infinity', '-1', '0'];
    const bad = await validateCsv(t.app, user.headers, priority, csvText(weights.map((Weight, i) => usRow(i + 1, { Weight }))));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([
      { row: 1, column: 'Weight', message: 'Weight must be a number', value: '1e-300' },
      { row: 2, column: 'Weight', message: 'Weight must be a number', value: '0x2' },
      { row: 3, column: 'Weight', message: 'Weight must have at most 2 decimal places', value: '1.234' },
      { row: 4, column: 'Weight', message: 'Weight must be a number', value: 'Infinity' },
      { row: 5, column: 'Weight', message: 'Weight must be greater than 0', value: '-1' },
      { row: 6, column: 'Weight', message: 'Weight must be greater than 0', value: '0' },
    ]);
  });

  it('names every bad row and column with the single order rules', async () => {
    const rows = [
      usRow(1),
      usRow(2, { ToZip: '9021', FromName: '', ToCity: ' ' }),
      usRow(3),
      usRow(4, { Weight: 'heavy' }),
      usRow(5, { ToState: 'ON' }),
      usRow(6, { Weight: '71' }),
      usRow(7, { ToStreet: 'x'.repeat(36) }),
    ];
    const res = await validateCsv(t.app, user.headers, priority, csvText(rows));
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.message).toBe('5 rows have errors: fix the file and validate it again');
    // Every bad cell of a row with its value: the rules of the type (ZIP of the country...) beside the fields' own checks.
    expect(body.errors).toEqual([
      { row: 2, column: 'FromName', message: 'From Name is required', value: '' },
      { row: 2, column: 'ToCity', message: 'To City is required', value: '' },
      { row: 2, column: 'ToZip', message: 'To ZIP must be a US ZIP code like 12345 or 12345-6789', value: '9021' },
      { row: 4, column: 'Weight', message: 'Weight must be a number', value: 'heavy' },
      { row: 5, column: 'ToState', message: 'To State must be a US state, DC or PR', value: 'ON' },
      { row: 6, column: 'Weight', message: 'Weight must be at most 70 lb for USPS Priority Mail', value: '71' },
      { row: 7, column: 'ToStreet', message: 'To Street must be at most 35 characters', value: 'x'.repeat(36) },
    ]);
    expect(body).not.toHaveProperty('moreErrors');
    expect(US_STATE_CODES).toContain('CA');
  });

  it('names every bad cell of a row with its value, and takes full state names', async () => {
    const rows = [
      usRow(1, { ToStreet: 's'.repeat(55), ToState: 'Illinoiz', ToZip: '6060' }),
      usRow(2, { FromState: 'new york', ToState: 'Illinois', ToZip: '60601' }),
    ];
    const res = await validateCsv(t.app, user.headers, priority, csvText(rows));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { row: 1, column: 'ToStreet', message: 'To Street must be at most 35 characters', value: 's'.repeat(55) },
      { row: 1, column: 'ToState', message: 'To State must be a US state, DC or PR', value: 'Illinoiz' },
      { row: 1, column: 'ToZip', message: 'To ZIP must be a US ZIP code like 12345 or 12345-6789', value: '6060' },
    ]);
    expect((await validateCsv(t.app, user.headers, priority, csvText([rows[1]]))).json()).toMatchObject({ totalOrders: 1 });
  });

  it('lists the first 500 problems and counts the rest', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => usRow(i + 1, { ToZip: '1', FromZip: '2' }));
    const res = await validateCsv(t.app, user.headers, priority, csvText(rows));
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.message).toBe('300 rows have errors: fix the file and validate it again');
    expect(body.errors).toHaveLength(CSV_MAX_LISTED_ERRORS);
    expect(body.moreErrors).toBe(600 - CSV_MAX_LISTED_ERRORS);
    expect(body.errors[0]).toEqual({ row: 1, column: 'FromZip', message: 'From ZIP must be a US ZIP code like 12345 or 12345-6789', value: '2' });
    expect(body.errors.at(-1)).toMatchObject({ row: 250, column: 'ToZip' });
  });

  it('applies the rules of the chosen type: UPS wants Canadian addresses, v9 wants 15 x 15 x 15', async () => {
    const ups = await validateCsv(t.app, user.headers, 'ups_standard', csvText([usRow(1)]));
    expect(ups.statusCode).toBe(400);
    expect(ups.json().errors[0]).toEqual({ row: 1, column: 'FromState', message: 'From State must be a Canadian province or territory', value: 'NY' });
    const v9 = await validateCsv(t.app, user.headers, uspsv9, csvText([usRow(1, { Length: '10' })]));
    expect(v9.json().errors).toEqual([{ row: 1, column: 'Length', message: 'Length, Width and Height must be 15 x 15 x 15 inches for USPS v9', value: '10' }]);
  });

  it('counts rows as in the file: blank lines keep their number, a quoted line break does not start a row', async () => {
    // The line break is read inside its cell, which the label cannot print (row 1): the next record is still row 2.
    const text =
      csvText([usRow(1, { Reference: 'a\nb' }), usRow(2, { ToZip: 'bad' })]).replace(/\r\n$/, '\r\n\r\n') +
      csvText([usRow(3, { ToZip: 'bad' })])
        .split('\r\n')
        .slice(1)
        .join('\r\n');
    const res = await validateCsv(t.app, user.headers, priority, text);
    expect(res.json().errors.map((e: { row: number; column: string }) => [e.row, e.column])).toEqual([
      [1, 'Reference'],
      [2, 'ToZip'],
      [4, 'ToZip'],
    ]);
  });

  it('refuses a header that is missing columns, names unknown ones or repeats one (row 0)', async () => {
    const missing = await validateCsv(
      t.app,
      user.headers,
      priority,
      csvText([usRow(1)], { columns: ['FromName', 'FromStreet', 'FromCity', 'FromState', 'FromZip', 'ToName', 'ToStreet', 'ToCity', 'ToState', 'Weight'] }),
    );
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({
      message: 'CSV header: Column ToZip is missing',
      errors: [{ row: 0, column: 'ToZip', message: 'Column ToZip is missing' }],
    });
    const unknown = await validateCsv(
      t.app,
      user.headers,
      priority,
      csvText([usRow(1)], {
        columns: [
          'Colour',
          'FromName',
          'FromName',
          'FromStreet',
          'FromCity',
          'FromState',
          'FromZip',
          'ToName',
          'ToStreet',
          'ToCity',
          'ToState',
          'ToZip',
          'Weight',
        ],
      }),
    );
    expect(unknown.json().errors.map((e: { column: string }) => e.column)).toEqual(['Colour', 'FromName']);
  });

  it('refuses more than 5,000 rows, more than 5 MB, no rows, a file that is not CSV and a missing file or type', async () => {
    const many = await validateCsv(t.app, user.headers, priority, csvText(usRows(BULK_MAX_ROWS + 1)));
    expect(many.statusCode).toBe(400);
    expect(many.json().message).toBe(CSV_TOO_MANY_ROWS(BULK_MAX_ROWS));

    const big = csvText([usRow(1, { Reference: 'x'.repeat(5 * 1024 * 1024) })]);
    const large = await validateCsv(t.app, user.headers, priority, big);
    expect(large.statusCode).toBe(400);
    expect(large.json().message).toBe(CSV_FILE_TOO_LARGE);

    const empty = await validateCsv(t.app, user.headers, priority, csvText([]));
    expect(empty.json().message).toBe(CSV_NO_ROWS);

    const notCsv = await validateCsv(t.app, user.headers, priority, '{"name": "not a csv file", "rows": [1, 2, 3]}\n');
    expect(notCsv.statusCode).toBe(400);
    expect(notCsv.json().message).toBe(CSV_NOT_CSV);
    const binary = await validateCsv(t.app, user.headers, priority, Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x08, 0x00]));
    expect(binary.json().message).toBe(CSV_NOT_CSV);

    expect((await validateCsv(t.app, user.headers, priority)).json()).toEqual({ message: PLEASE_SELECT_CSV_FILE });
    expect((await validateCsv(t.app, user.headers, priority, '')).json()).toEqual({ message: CSV_FILE_EMPTY });
    expect((await validateCsv(t.app, user.headers, '', csvText(usRows(1)))).json()).toEqual({ message: LABEL_TYPE_REQUIRED });
    const json = await t.app.inject({ method: 'POST', url: '/api/v1/order/validatecsv', headers: user.headers, payload: { labeltype: priority } });
    expect(json.statusCode).toBe(400);
  });

  it('stops reading a file at its limit of blank lines, cells a row and characters a cell, naming the limit', async () => {
    // A header, 2,097,152 blank lines and one row: every line was kept before the blank ones were skipped.
    const blank = `${CSV_COLUMNS.join(',')}\n${'\n'.repeat(2_097_152)}${csvText([usRow(1)]).split('\r\n')[1]}\n`;
    const blanks = await validateCsv(t.app, user.headers, priority, blank);
    expect(blanks.statusCode).toBe(400);
    expect(blanks.json().message).toBe(CSV_TOO_MANY_BLANK_LINES(CSV_MAX_BLANK_LINES));

    const wide = await validateCsv(t.app, user.headers, priority, `${csvText(usRows(2))}${'x,'.repeat(CSV_MAX_COLUMNS)}x\r\n`);
    expect(wide.statusCode).toBe(400);
    expect(wide.json()).toMatchObject({ message: `Row 3: ${CSV_TOO_MANY_COLUMNS(CSV_MAX_COLUMNS)}`, errors: [{ row: 3, column: null }] });

    const long = await validateCsv(t.app, user.headers, priority, csvText([usRow(1), usRow(2, { Reference: 'r'.repeat(CSV_MAX_CELL_CHARS + 1) })]));
    expect(long.statusCode).toBe(400);
    expect(long.json().message).toBe(`Row 2: ${CSV_CELL_TOO_LONG(CSV_MAX_CELL_CHARS)}`);
    // At the limit the cell is read, and judged by the row check.
    const atLimit = await validateCsv(t.app, user.headers, priority, csvText([usRow(1, { Reference: 'r'.repeat(CSV_MAX_CELL_CHARS) })]));
    expect(atLimit.json().errors).toEqual([
      { row: 1, column: 'Reference', message: 'Reference must be at most 35 characters', value: 'r'.repeat(CSV_MAX_CELL_CHARS) },
    ]);
  });

  it('accepts the sample file behind Download Sample CSV for the USPS types (and FedEx Ground)', async () => {
    const sample = fs.readFileSync(path.resolve(import.meta.dirname, '../../../../web/public', SAMPLE_CSV_PATH.slice(1)));
    for (const uid of ['priority', 'uspsv9', 'ground_oz', 'fedex_ground']) {
      const res = await validateCsv(t.app, user.headers, uid, sample);
      expect([uid, res.statusCode, res.json().totalOrders]).toEqual([uid, 200, 3]);
    }
  });

  it('asks for a sign-in', async () => {
    const res = await validateCsv(t.app, {}, priority, csvText(usRows(1)));
    expect(res.statusCode).toBe(401);
  });
});

describe('POST /order/createOrderFromCSV', () => {
  it('makes fewer than 4 labels at once: one debit, one order per row in the order history, the three files', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const rows = [usRow(1), usRow(2, { ToCompany: '=HYPERLINK("http://evil")', Reference: '+1 555' }), usRow(3)];
    const res = await createFromCsv(t.app, user.headers, { type: priority, total_price: 3 * PRIORITY_2LB, design: 'pitney' }, csvText(rows));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: ORDERS_CREATED });

    const [bulk] = await readBulkOrders(t.app, user.headers);
    expect(bulk).toMatchObject({
      status: 'completed',
      progress: 100,
      totalOrders: 3,
      failedOrders: 0,
      total: 20.25,
      design: 'pitney',
      labelType: { uid: 'priority' },
    });
    expect(bulk.orders).toHaveLength(3);
    expect(bulk.zip).toBe(`/api/v1/order/bulk-download/${bulk._id}`);
    expect(await balanceOf(t.app, user.headers)).toBe(100 - 20.25);
    const ledger = await t.db
      .selectFrom('ledger')
      .select(['kind', 'amount_cents', 'reference'])
      .where('user_id', '=', user.userId)
      .where('kind', '!=', 'adjustment')
      .execute();
    expect(ledger).toEqual([{ kind: 'bulk_charge', amount_cents: -2025, reference: bulk._id }]);

    const history = (await t.app.inject({ method: 'GET', url: '/api/v1/order/read?limit=10&sort=asc', headers: user.headers })).json();
    expect(history.total).toBe(3);
    expect(history.orders.map((o: { _id: string }) => o._id)).toEqual(bulk.orders);
    expect(history.orders.map((o: { toName: string }) => o.toName)).toEqual(['Receiver 1', 'Receiver 2', 'Receiver 3']);
    expect(history.orders[0]).toMatchObject({ status: 'completed', price: PRIORITY_2LB, design: 'pitney' });

    const csv = await download(t.app, user.headers, bulk.csv!);
    expect(csv.headers['content-disposition']).toBe('attachment; filename="label.csv"');
    const report = await readReport(csv.rawPayload);
    expect(report.header.slice(-4)).toEqual(['Tracking', 'Price', 'Status', 'Message']);
    expect(report.records.map((r) => r.cells.slice(-4, -1))).toEqual(history.orders.map((o: { tracking: string }) => [o.tracking, '6.75', 'completed']));
    const company = report.header.indexOf('ToCompany');
    expect(report.records[1].cells[company]).toBe(`'=HYPERLINK("http://evil")`);
    expect(report.records[1].cells[report.header.indexOf('Reference')]).toBe(`'+1 555`);

    const pdf = await download(t.app, user.headers, bulk.pdf!);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe('attachment; filename="label.pdf"');
    expect(await pdfPageCount(pdf.rawPayload)).toBe(3);
    const zip = await download(t.app, user.headers, bulk.zip!);
    expect(zip.headers['content-disposition']).toBe('attachment; filename="label.zip"');
    expect(Object.keys(zipEntries(zip.rawPayload)).sort()).toEqual(
      [...history.orders.map((o: { tracking: string }) => `${o.tracking}.pdf`), 'label.csv'].sort(),
    );

    // The rows' labels are stored together in one file, and each downloads on its own: the ZIP's entry, byte for byte.
    const keys = await t.db.selectFrom('orders').select('pdf_key').where('bulk_order_id', '=', bulk._id).execute();
    expect(new Set(keys.map((k) => k.pdf_key!.split('#')[0])).size).toBe(1);
    for (const order of history.orders as { pdf: string; tracking: string }[]) {
      const own = await download(t.app, user.headers, order.pdf);
      expect(own.statusCode).toBe(200);
      expect(Buffer.from(own.rawPayload).equals(Buffer.from(zipEntries(zip.rawPayload)[`${order.tracking}.pdf`]))).toBe(true);
    }
  });

  it('ends failed, not completed, when every label fails, each row refunded', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const rows = [usRow(1, { ToName: REFUSED }), usRow(2, { ToName: REFUSED })];
    const res = await createFromCsv(t.app, user.headers, { type: priority, total_price: 13.5, design: 'normal' }, csvText(rows));
    expect(res.json()).toEqual({ message: ORDERS_CREATED });
    const [bulk] = await readBulkOrders(t.app, user.headers);
    expect(bulk).toMatchObject({ status: 'failed', totalOrders: 2, failedOrders: 2, total: 0, pdf: null });
    expect(await balanceOf(t.app, user.headers)).toBe(100);
  });

  it('refunds a row whose label fails, with its own ledger row, and completes the rest', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const rows = [usRow(1), usRow(2, { ToName: REFUSED }), usRow(3)];
    const res = await createFromCsv(t.app, user.headers, { type: priority, total_price: 20.25, design: 'normal' }, csvText(rows));
    expect(res.json()).toEqual({ message: ORDERS_CREATED });
    const [bulk] = await readBulkOrders(t.app, user.headers);
    expect(bulk).toMatchObject({ status: 'completed', totalOrders: 3, failedOrders: 1, total: 13.5 });
    expect(bulk.orders).toHaveLength(2);
    const ledger = await t.db
      .selectFrom('ledger')
      .select(['kind', 'amount_cents', 'reference'])
      .where('user_id', '=', user.userId)
      .where('kind', '!=', 'adjustment')
      .orderBy('created_at')
      .execute();
    expect(ledger).toEqual([
      { kind: 'bulk_charge', amount_cents: -2025, reference: bulk._id },
      { kind: 'bulk_refund', amount_cents: 675, reference: `${bulk._id}:2` },
    ]);
    expect(await balanceOf(t.app, user.headers)).toBe(100 - 13.5);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000 - 1350);

    const report = await readReport((await download(t.app, user.headers, bulk.csv!)).rawPayload);
    expect(report.records.map((r) => r.cells.slice(-2))).toEqual([
      ['completed', ''],
      ['failed', 'Refunded: address not deliverable'],
      ['completed', ''],
    ]);
    expect(await pdfPageCount((await download(t.app, user.headers, bulk.pdf!)).rawPayload)).toBe(2);
    expect(Object.keys(zipEntries((await download(t.app, user.headers, bulk.zip!)).rawPayload))).toHaveLength(3);
    const failed = await t.db
      .selectFrom('orders')
      .select(['status', 'note'])
      .where('bulk_order_id', '=', bulk._id)
      .where('bulk_row', '=', 2)
      .executeTakeFirstOrThrow();
    expect(failed).toEqual({ status: 'cancelled', note: 'address not deliverable' });
  });

  it('refuses a total that differs from the server total (409), a bad row, a missing template or an empty balance, writing nothing', async () => {
    const user = await fundedCustomer(t.app, 1000, t.db);
    const changed = await createFromCsv(t.app, user.headers, { type: priority, total_price: 6.74, design: 'normal' }, csvText(usRows(1)));
    expect(changed.statusCode).toBe(409);
    expect(changed.json()).toEqual({ message: PRICES_CHANGED });
    const missing = await createFromCsv(t.app, user.headers, { type: priority, total_price: '', design: 'normal' }, csvText(usRows(1)));
    expect(missing.statusCode).toBe(400);
    const bad = await createFromCsv(t.app, user.headers, { type: priority, total_price: 6.75, design: 'normal' }, csvText([usRow(1, { ToZip: '' })]));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([{ row: 1, column: 'ToZip', message: 'To ZIP is required', value: '' }]);
    const noTemplate = await createFromCsv(t.app, user.headers, { type: priority, total_price: 6.75 }, csvText(usRows(1)));
    expect(noTemplate.json()).toEqual({ message: TEMPLATE_REQUIRED });
    const poor = await createFromCsv(t.app, user.headers, { type: priority, total_price: 2 * PRIORITY_2LB, design: 'normal' }, csvText(usRows(2)));
    expect(poor.statusCode).toBe(402);
    expect(poor.json()).toEqual({ message: 'Insufficient balance' });
    await expectNothingWritten(user, 1000);
  });

  it('never overdraws: parallel payments on a balance that covers two of them', async () => {
    const user = await fundedCustomer(t.app, 2 * 2 * 675, t.db);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        createFromCsv(t.app, user.headers, { type: priority, total_price: 13.5, design: 'normal' }, csvText(usRows(2, i * 2 + 1))),
      ),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 200, 402, 402, 402]);
    expect(await balanceOf(t.app, user.headers)).toBe(0);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(0);
    expect(await t.db.selectFrom('bulk_orders').select('id').where('user_id', '=', user.userId).execute()).toHaveLength(2);
    expect(await t.db.selectFrom('orders').select('id').where('user_id', '=', user.userId).execute()).toHaveLength(4);
  });

  it('queues 4 or more rows: processing, n / total, and 409 on every download until it completes; 404 for another user', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const res = await createFromCsv(t.app, user.headers, { type: uspsv9, total_price: 4 * V9_2LB }, csvText(usRows(4)));
    expect(res.json()).toEqual({ message: ORDERS_CREATED });
    const [bulk] = await readBulkOrders(t.app, user.headers);
    expect(bulk).toMatchObject({ status: 'processing', progress: 0, orders: [], totalOrders: 4, total: 29, zip: null, pdf: null, csv: null, design: null });
    expect(await balanceOf(t.app, user.headers)).toBe(71);
    const job = await t.db.selectFrom('jobs').select(['id', 'name', 'state', 'payload']).execute();
    expect(job).toContainEqual({ id: `bulk-${bulk._id}`, name: 'bulk-order', state: 'waiting', payload: JSON.stringify({ bulkOrderId: bulk._id }) });
    for (const kind of ['bulk-download', 'bulk-download-csv', 'bulk-download-pdf']) {
      const early = await download(t.app, user.headers, `/api/v1/order/${kind}/${bulk._id}`);
      expect(early.statusCode).toBe(409);
      expect(early.json()).toEqual({ message: BULK_NOT_READY });
    }
    const other = await fundedCustomer(t.app, 0, t.db);
    expect(await readBulkOrders(t.app, other.headers)).toEqual([]);
    const foreign = await download(t.app, other.headers, `/api/v1/order/bulk-download/${bulk._id}`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ message: BULK_ORDER_NOT_FOUND });
    expect((await download(t.app, user.headers, '/api/v1/order/bulk-download-pdf/nope')).statusCode).toBe(404);

    // The job's handler, run here by hand: progress through the spec's stages, then the files are there.
    const seen: number[] = [];
    await (await jobRunner()).runJob(bulk._id, { id: `bulk-${bulk._id}`, attempt: 1, updateProgress: async (p) => void seen.push(p) });
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen[0]).toBe(0);
    expect(seen.slice(-6)).toEqual([80, 85, 90, 95, 98, 100]);
    const [done] = await readBulkOrders(t.app, user.headers);
    expect(done).toMatchObject({ status: 'completed', progress: 100, totalOrders: 4, failedOrders: 0, total: 29 });
    expect(done.orders).toHaveLength(4);
    for (const path of [done.zip!, done.csv!, done.pdf!]) expect((await download(t.app, user.headers, path)).statusCode).toBe(200);
    expect((await download(t.app, other.headers, done.pdf!)).statusCode).toBe(404);
    // The queue's counts reach the service layer (for the reseller API).
    expect(Object.keys(await (await jobRunner()).queueCounts()).sort()).toEqual(['active', 'completed', 'delayed', 'failed', 'total', 'waiting']);
  });

  it('leaves a row whose label meets a full render queue waiting, neither cancelled nor refunded, and its job makes it later', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    busyLeft = 1;
    const rows = [usRow(1), usRow(2, { ToName: BUSY })];
    await createFromCsv(t.app, user.headers, { type: priority, total_price: 13.5, design: 'normal' }, csvText(rows));
    const [bulk] = await readBulkOrders(t.app, user.headers);
    expect(bulk).toMatchObject({ status: 'processing', failedOrders: 0 });
    const statuses = await t.db.selectFrom('orders').select('status').where('bulk_order_id', '=', bulk._id).orderBy('bulk_row').execute();
    expect(statuses.map((o) => o.status)).not.toContain('cancelled');
    expect(await balanceOf(t.app, user.headers)).toBe(100 - 13.5);
    // Its job (queued when the request's run failed) makes both.
    const runner = await jobRunner();
    await runner.runJob(bulk._id, { id: `bulk-${bulk._id}`, attempt: 1, updateProgress: async () => {} });
    expect((await readBulkOrders(t.app, user.headers))[0]).toMatchObject({ status: 'completed', totalOrders: 2, failedOrders: 0, total: 13.5 });
    expect(await balanceOf(t.app, user.headers)).toBe(100 - 13.5);
  });

  it('queues again a bulk order whose process died before its job ran (a small one made at once, a lost enqueue)', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    await createFromCsv(t.app, user.headers, { type: uspsv9, total_price: 4 * V9_2LB }, csvText(usRows(4)));
    const [bulk] = await readBulkOrders(t.app, user.headers);
    await t.db.deleteFrom('jobs').where('id', '=', `bulk-${bulk._id}`).execute(); // as if the enqueue was lost
    const runner = await jobRunner();
    expect(await runner.resumeStalled()).toBe(0); // not stalled yet
    const later = Date.now() + 3 * 60_000;
    const queued = await runner.resumeStalled(later);
    expect(queued).toBeGreaterThanOrEqual(1);
    expect(await t.db.selectFrom('jobs').select(['name', 'state']).where('id', '=', `bulk-${bulk._id}`).execute()).toEqual([
      { name: 'bulk-order', state: 'waiting' },
    ]);
    await runner.resumeStalled(later); // queued once
    expect(await t.db.selectFrom('jobs').select('id').where('id', '=', `bulk-${bulk._id}`).execute()).toHaveLength(1);
  });

  it('on the last attempt of a job that keeps failing, refunds every row not made and ends failed with a report', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    await createFromCsv(t.app, user.headers, { type: uspsv9, total_price: 4 * V9_2LB }, csvText(usRows(4)));
    const [bulk] = await readBulkOrders(t.app, user.headers);
    // Label files cannot be stored: every attempt fails.
    const runner = await jobRunner((files) => ({ ...files, appendToPack: () => Promise.reject(new Error('disk full')) }));
    const job = (attempt: number) => ({ id: `bulk-${bulk._id}`, attempt, updateProgress: async () => {} });
    await expect(runner.runJob(bulk._id, job(1))).rejects.toThrow('disk full');
    expect((await readBulkOrders(t.app, user.headers))[0].status).toBe('processing');
    await runner.runJob(bulk._id, job(MAX_ATTEMPTS));
    const [done] = await readBulkOrders(t.app, user.headers);
    expect(done).toMatchObject({ status: 'failed', orders: [], totalOrders: 4, failedOrders: 4, total: 0, pdf: null });
    expect(await balanceOf(t.app, user.headers)).toBe(100);
    const refunds = await t.db
      .selectFrom('ledger')
      .select(['reference', 'amount_cents'])
      .where('user_id', '=', user.userId)
      .where('kind', '=', 'bulk_refund')
      .orderBy('reference')
      .execute();
    expect(refunds).toEqual([1, 2, 3, 4].map((row) => ({ reference: `${bulk._id}:${row}`, amount_cents: 725 })));
    const report = await readReport((await download(t.app, user.headers, done.csv!)).rawPayload);
    expect(report.records.map((r) => r.cells.at(-2))).toEqual(['failed', 'failed', 'failed', 'failed']);
    expect(Object.keys(zipEntries((await download(t.app, user.headers, done.zip!)).rawPayload))).toEqual(['label.csv']);
    expect((await download(t.app, user.headers, `/api/v1/order/bulk-download-pdf/${bulk._id}`)).json()).toEqual({ message: BULK_NO_LABELS });
  });
});
