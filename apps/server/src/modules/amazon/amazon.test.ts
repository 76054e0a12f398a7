import PDFKit from 'pdfkit';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AMAZON_CSV_PATH,
  AMAZON_DAMAGED,
  AMAZON_ENCRYPTED,
  AMAZON_FOUND_HEADER,
  AMAZON_MAX_BYTES,
  AMAZON_NOT_PDF,
  AMAZON_NO_SLIPS,
  AMAZON_NO_TEXT,
  AMAZON_PDF_REQUIRED,
  AMAZON_SKIPPED_HEADER,
  AMAZON_TOO_COMPLEX,
  AMAZON_TOO_LARGE,
  AMAZON_TOO_MANY_PAGES,
  AMAZON_UNREADABLE,
  CSV_COLUMNS,
  CSV_VALIDATED,
} from '@portal/contract';
import { signUp, startTestApp, type TestApp } from '../../../test/harness.ts';
import { parseCsv } from '../../lib/csv.ts';
import { validateCsv } from '../../../test/bulk-fixtures.ts';
import { deflatedPagePdf, ordinarySlipPages, packingSlipPdf, rawPdf, slipNumber, type Slip, type SlipAddress } from '../../../test/slip-fixtures.ts';
import { COMPANY_RECIPIENT, RECIPIENT, SENDER, slipSender } from '../../../test/sample-addresses.ts';

let t: TestApp;
let headers: { authorization: string };
beforeAll(async () => {
  t = await startTestApp();
  headers = (await signUp(t.app)).headers;
});
afterAll(() => t.close());

const FROM = { ...slipSender(), fromStreet2: 'Suite 4', weight: '2' };

/** POSTs the form as a browser's FormData does, the PDF last. */
async function generate(app: FastifyInstance, fields: Record<string, string>, pdf?: Uint8Array, auth: Record<string, string> = headers) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (pdf) form.append('pdf', new Blob([pdf as BlobPart], { type: 'application/pdf' }), 'slips.pdf');
  const request = new Request('http://test.local/', { method: 'POST', body: form });
  const payload = Buffer.from(await request.arrayBuffer());
  return app.inject({ method: 'POST', url: `/api/v1${AMAZON_CSV_PATH}`, headers: { ...auth, 'content-type': request.headers.get('content-type')! }, payload });
}

/** The CSV row a slip should make with the FROM form: To* as the slip prints them (state as its code). */
function expectedRow(slip: Slip, state = slip.shipTo.state): string[] {
  const a: SlipAddress = slip.shipTo;
  const cells: Record<(typeof CSV_COLUMNS)[number], string> = {
    FromName: FROM.fromName,
    FromCompany: '',
    FromStreet: FROM.fromStreet1,
    FromStreet2: FROM.fromStreet2,
    FromCity: FROM.fromCity,
    FromState: FROM.fromState,
    FromZip: FROM.fromZip,
    FromPhone: '',
    ToName: a.name,
    ToCompany: a.company ?? '',
    ToStreet: a.street,
    ToStreet2: a.street2 ?? '',
    ToCity: a.city,
    ToState: state,
    ToZip: a.zip,
    ToPhone: '',
    ToEmail: '',
    Insurance: '',
    Return: '',
    Weight: '2',
    Length: '',
    Width: '',
    Height: '',
    Reference: slip.orderId,
    Service: '',
    Reference2: '',
    ShipDate: '',
  };
  return CSV_COLUMNS.map((c) => cells[c]);
}

const csvRows = async (body: string) => {
  const table = await parseCsv(body);
  expect(table.header).toEqual([...CSV_COLUMNS]);
  return table.records.map((r) => r.cells);
};

const slip = (orderId: string, shipTo: SlipAddress, items?: number): Slip => ({ orderId, shipTo, items });
const variants = {
  plain: slip('112-0000001-0000001', RECIPIENT),
  companyStreet2Zip4: slip('112-0000002-0000002', { ...COMPANY_RECIPIENT, zip: '78701-4321' }),
  companyOnly: slip('112-0000003-0000003', {
    name: 'Ann Lee',
    company: 'Acme Supplies LLC',
    street: '1 Market Street',
    city: 'San Francisco',
    state: 'CA',
    zip: '94105',
    country: 'United States',
  }),
  street2Only: slip('112-0000004-0000004', {
    name: 'Robert Smith',
    street: '1600 Lake Shore Drive',
    street2: 'Unit 5',
    city: 'Chicago',
    state: 'IL',
    zip: '60601',
  }),
  fullState: slip('112-0000005-0000005', { name: 'Pat Doe', street: '22 Elm Drive', city: 'Columbus', state: 'Ohio', zip: '43004', country: 'United States' }),
  accents: slip('112-0000006-0000006', {
    name: 'José Muñoz Pérez',
    street: '12 Avenida Añil',
    city: 'San José',
    state: 'CA',
    zip: '95112',
    country: 'United States',
  }),
  twoPages: slip('112-0000007-0000007', { name: 'Long Order', street: '9 Harbor Way', city: 'Seattle', state: 'WA', zip: '98101' }, 70),
};

describe('POST /api/v1/amazon/generate-csv', () => {
  it('reads every slip variant into its own row, cell by cell, as amazon.csv', async () => {
    const { plain, companyStreet2Zip4, companyOnly, street2Only, fullState, accents, twoPages } = variants;
    const pdf = await packingSlipPdf([plain, companyStreet2Zip4, companyOnly, street2Only, fullState, accents, twoPages, plain].map((s) => ({ slips: [s] })));
    const res = await generate(t.app, FROM, pdf);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="amazon.csv"');
    expect(res.headers[AMAZON_FOUND_HEADER]).toBe('8');
    expect(res.headers[AMAZON_SKIPPED_HEADER]).toBe('');
    expect(await csvRows(res.body)).toEqual([
      expectedRow(plain),
      expectedRow(companyStreet2Zip4),
      expectedRow(companyOnly),
      expectedRow(street2Only),
      expectedRow(fullState, 'OH'),
      expectedRow(accents),
      expectedRow(twoPages),
      expectedRow(plain),
    ]);
  });

  it('reads two slips printed on one page', async () => {
    const pdf = await packingSlipPdf([{ slips: [variants.plain, variants.street2Only] }, { slips: [variants.accents] }]);
    const res = await generate(t.app, FROM, pdf);
    expect(res.statusCode, res.body).toBe(200);
    expect(await csvRows(res.body)).toEqual([expectedRow(variants.plain), expectedRow(variants.street2Only), expectedRow(variants.accents)]);
  });

  it('makes 300 rows of a 300-page PDF, and the file passes Validate CSV for Priority at the sum of the single prices', async () => {
    const res = await generate(t.app, FROM, await packingSlipPdf(ordinarySlipPages(300)));
    expect(res.statusCode, res.body).toBe(200);
    const rows = await csvRows(res.body);
    expect(rows).toHaveLength(300);
    expect(rows[0]).toEqual(expectedRow(slipNumber(1)));
    expect(rows[299]).toEqual(expectedRow(slipNumber(300)));

    const validated = await validateCsv(t.app, headers, 'priority', res.body);
    expect(validated.statusCode, validated.body).toBe(200);
    const price = await t.app.inject({ method: 'POST', url: '/api/v1/order/price', headers, payload: { labelType: 'priority', weight: 2 } });
    expect(validated.json()).toEqual({ message: CSV_VALIDATED, totalOrders: 300, totalPrice: Math.round(price.json().price * 300 * 100) / 100 });
  }, 60_000);

  it('names the pages it could not read, and leaves them out only when asked to', async () => {
    const canada = slip('112-0000008-0000008', {
      name: 'Remy Tremblay',
      street: '10 Rue Sainte',
      city: 'Montreal',
      state: 'QC',
      zip: 'H2X 1Y4',
      country: 'Canada',
    });
    const pdf = await packingSlipPdf([{ slips: [variants.plain] }, { scan: true }, { slips: [canada] }, { slips: [variants.accents] }]);
    const refused = await generate(t.app, FROM, pdf);
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toEqual({
      message: AMAZON_UNREADABLE([2, 3]),
      pages: [
        { page: 2, reason: 'the page has no text (a scan)' },
        { page: 3, reason: 'it ships to Canada, outside the United States' },
      ],
    });

    const skipped = await generate(t.app, { ...FROM, skipUnreadable: 'true' }, pdf);
    expect(skipped.statusCode, skipped.body).toBe(200);
    expect(skipped.headers[AMAZON_FOUND_HEADER]).toBe('2');
    expect(skipped.headers[AMAZON_SKIPPED_HEADER]).toBe('2,3');
    expect(await csvRows(skipped.body)).toEqual([expectedRow(variants.plain), expectedRow(variants.accents)]);
  });

  it('refuses a slip from outside the United States and one without an order id, naming why', async () => {
    const abroad = slip('112-0000009-0000009', {
      name: 'Remy Tremblay',
      street: '10 Rue Sainte',
      city: 'Paris',
      state: 'Texas',
      zip: '75001',
      country: 'France',
    });
    const noId = slip('no order id', variants.plain.shipTo);
    const res = await generate(t.app, FROM, await packingSlipPdf([{ slips: [abroad] }, { slips: [noId] }]));
    expect(res.statusCode).toBe(422);
    expect(res.json().pages).toEqual([
      { page: 1, reason: 'it ships to France, outside the United States' },
      { page: 2, reason: 'the slip has no Order ID' },
    ]);
  });

  it('gives each bad file its own 4xx message and no file', async () => {
    const cases: [string, Uint8Array | undefined, number, string][] = [
      ['no file', undefined, 400, AMAZON_PDF_REQUIRED],
      ['not a PDF', Buffer.from('FromName,ToName\nA,B\n'), 400, AMAZON_NOT_PDF],
      ['damaged', Buffer.from('%PDF-1.7\n1 0 obj <<< broken >> endobj\nnothing else'), 400, AMAZON_DAMAGED],
      ['encrypted', await encryptedPdf(), 400, AMAZON_ENCRYPTED],
      ['a scan', await packingSlipPdf([{ scan: true }, { scan: true }]), 400, AMAZON_NO_TEXT],
      ['no Ship To', await textPdf('Invoice 42\nThank you for your order'), 400, AMAZON_NO_SLIPS],
      ['over 20 MB', Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(AMAZON_MAX_BYTES)]), 400, AMAZON_TOO_LARGE],
      ['1,001 pages', await blankPages(1001), 400, AMAZON_TOO_MANY_PAGES(1001)],
    ];
    for (const [name, pdf, status, message] of cases) {
      const res = await generate(t.app, FROM, pdf);
      expect([name, res.statusCode, res.json()]).toEqual([name, status, { message }]);
      expect(res.headers['content-disposition']).toBeUndefined();
    }
  }, 60_000);

  it('checks the From fields and the weight by the rules of a CSV row', async () => {
    const pdf = await packingSlipPdf([{ slips: [variants.plain] }]);
    const cases: [Record<string, string>, string][] = [
      [{ ...FROM, fromName: '' }, 'From Name is required'],
      [{ ...FROM, fromStreet1: 'x'.repeat(36) }, 'From Street must be at most 35 characters'],
      [{ ...FROM, fromState: 'ZZ' }, 'From State must be a US state, DC or PR'],
      [{ ...FROM, fromZip: '1234' }, 'From ZIP must be a US ZIP code like 12345 or 12345-6789'],
      [{ ...FROM, weight: 'heavy' }, 'Weight must be a number'],
      [{ ...FROM, weight: '0' }, 'Weight must be greater than 0'],
    ];
    for (const [fields, message] of cases) {
      const res = await generate(t.app, fields, pdf);
      expect([res.statusCode, res.json().message]).toEqual([400, message]);
    }
    // A full state name is its code, and Street 2 may be left out.
    const { fromStreet2: _, ...noStreet2 } = FROM;
    const res = await generate(t.app, { ...noStreet2, fromState: 'new york' }, pdf);
    expect(res.statusCode, res.body).toBe(200);
    expect((await csvRows(res.body))[0].slice(2, 7)).toEqual([SENDER.street, '', SENDER.city, SENDER.state, SENDER.zip]);
  });

  it('is for signed-in users only', async () => {
    const res = await generate(t.app, FROM, await packingSlipPdf([{ slips: [variants.plain] }]), {});
    expect(res.statusCode).toBe(401);
  });
});

/**
 * An app whose packing-slip reader has the given limits, and how to upload to it while other requests
 * are sent and the process's size is sampled.
 */
function bombTarget(limits: { SLIP_READER_TIMEOUT_MS: string; SLIP_READER_MAX_MB: string }) {
  let app: TestApp;
  let auth: { authorization: string };
  beforeAll(async () => {
    app = await startTestApp(limits);
    auth = (await signUp(app.app)).headers;
  });
  afterAll(() => app?.close());
  return {
    /** The upload's answer, how long it took, the process's growth at its peak (MB), and the answers to the others. */
    async uploadWatched(pdf: Uint8Array) {
      const before = process.memoryUsage.rss();
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
      const started = performance.now();
      let done = false;
      const upload = generate(app.app, FROM, pdf, auth).finally(() => (done = true));
      const others: number[] = [];
      while (!done) {
        others.push((await app.app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: auth })).statusCode);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const res = await upload;
      clearInterval(sampler);
      return { res, ms: performance.now() - started, growthMb: (peak - before) / 2 ** 20, others };
    },
    upload: (pdf: Uint8Array) => generate(app.app, FROM, pdf, auth),
    /** The shop reads an ordinary packing slip after it. */
    async expectNextUploadRead() {
      const res = await generate(app.app, FROM, await packingSlipPdf([{ slips: [variants.plain] }]), auth);
      expect(res.statusCode, res.body).toBe(200);
      expect(await csvRows(res.body)).toEqual([expectedRow(variants.plain)]);
    },
  };
}

describe('a PDF past the memory limits', () => {
  // The process may grow by 200 MB while it reads (the reading thread's start included); time is no limit here.
  const MAX_MB = 200;
  const target = bombTarget({ SLIP_READER_TIMEOUT_MS: '60000', SLIP_READER_MAX_MB: String(MAX_MB) });

  it('that inflates is refused with a 422 whether it fills the heap or memory outside it, the shop answering meanwhile, and the next upload is read', async () => {
    const bombs = {
      // A 128 MB string literal: pdf.js's lexer holds it as an array of characters on the thread's heap.
      'one huge string': await deflatedPagePdf('BT /F1 12 Tf 50 700 Td (', 'A', 128, ') Tj ET'),
      // 512 MB of spaces: the decoded stream grows outside the heap (an ArrayBuffer), which no heap limit sees.
      'a sea of spaces': await deflatedPagePdf('BT /F1 12 Tf 50 700 Td (Ship To:) Tj ET ', ' ', 512, ''),
    };
    for (const [name, pdf] of Object.entries(bombs)) {
      expect(pdf.length).toBeLessThan(600 * 1024);
      const { res, growthMb, others } = await target.uploadWatched(pdf);
      expect([name, res.statusCode, res.json()]).toEqual([name, 422, { message: AMAZON_TOO_COMPLEX }]);
      // The process grew by at most the limit, give or take what it allocates between two looks (every 20 ms).
      expect(growthMb, name).toBeLessThan(MAX_MB + 50);
      expect(others.length, name).toBeGreaterThan(0);
      expect(
        others.every((status) => status === 200),
        name,
      ).toBe(true);
      await target.expectNextUploadRead();
    }
  }, 120_000);

  it('with more text than 50,000 characters a page or 5,000,000 a file is refused with a 422, and one just under them is read', async () => {
    // Lines of 1,000 characters in 1-point type, all on the page; pages may share one content stream.
    const lines = (count: number) => `BT /F1 1 Tf 0 780 Td ${`(${'x'.repeat(999)}) Tj 0 -1 Td `.repeat(count)}ET`;
    const cases: [string, Buffer, number, string][] = [
      ['a page of 45,000 characters', rawPdf(Buffer.from(lines(45))), 400, AMAZON_NO_SLIPS],
      ['a page of 55,000 characters', rawPdf(Buffer.from(lines(55))), 422, AMAZON_TOO_COMPLEX],
      ['110 pages of 45,000', rawPdf(Buffer.from(lines(45)), 110), 400, AMAZON_NO_SLIPS],
      ['112 pages of 45,000', rawPdf(Buffer.from(lines(45)), 112), 422, AMAZON_TOO_COMPLEX],
    ];
    for (const [name, pdf, status, message] of cases) {
      const res = await target.upload(pdf);
      expect([name, res.statusCode, res.json()]).toEqual([name, status, { message }]);
    }
    await target.expectNextUploadRead();
  }, 60_000);
});

describe('a PDF that takes long to read', () => {
  const TIMEOUT_MS = 1500;
  const target = bombTarget({ SLIP_READER_TIMEOUT_MS: String(TIMEOUT_MS), SLIP_READER_MAX_MB: '300' });

  it('is refused with a 422 once its reading passes the time limit, the shop answering meanwhile, and the next upload is read', async () => {
    // 40 MB of '(a) Tj': each is parsed and measured, but the text runs off the page, so no text cap sees it.
    const pdf = await deflatedPagePdf('BT /F1 1 Tf 0 700 Td ', '(a) Tj ', 40, 'ET');
    expect(pdf.length).toBeLessThan(100 * 1024);
    await target.expectNextUploadRead(); // the thread started, so its start is not timed below
    const { res, ms, others } = await target.uploadWatched(pdf);
    expect([res.statusCode, res.json()]).toEqual([422, { message: AMAZON_TOO_COMPLEX }]);
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS);
    // Answered at the limit, its thread stopped, not when the reading ends: unstopped, this PDF reads for 10 s or more.
    // A generous bound (tens of ms past the limit here), the margin for a busy machine.
    expect(ms).toBeLessThan(9_000);
    expect(others.length).toBeGreaterThan(10);
    expect(others.every((status) => status === 200)).toBe(true);
    // The next reading runs on a new thread, whose start (a second or more) is not counted against its time.
    await target.expectNextUploadRead();
  }, 60_000);
});

async function encryptedPdf(): Promise<Buffer> {
  const doc = new PDFKit({ userPassword: 'secret', ownerPassword: 'owner' });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve) => doc.on('end', resolve));
  doc.text('Ship To:').text('John Receiver');
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

async function textPdf(text: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText(text, { x: 50, y: 700, font, size: 12, lineHeight: 14 });
  return Buffer.from(await doc.save());
}

async function blankPages(count: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < count; i++) doc.addPage([200, 200]);
  return Buffer.from(await doc.save());
}
