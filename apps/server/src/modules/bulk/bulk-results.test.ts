import { describe, expect, it } from 'vitest';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { unzipSync } from 'fflate';
import type { FileWriter } from '../../providers/storage/file-store.ts';
import { inlineRenderer } from '../../providers/labels/render-pool.ts';
import { SAMPLE_MARK } from '../../providers/labels/render-label.ts';
import { createBulkFilesWriter, streamedFile } from './bulk-results.ts';
import { createPdfMerger } from '../../providers/labels/pdf-merger.ts';
import { PlainPdf } from '../../providers/labels/plain-pdf.ts';

/** A FileWriter that keeps what it is given. */
function memoryWriter() {
  const chunks: Uint8Array[] = [];
  let state: 'open' | 'ended' | 'aborted' = 'open';
  const writer: FileWriter = {
    write: async (chunk) => void chunks.push(chunk),
    end: async () => void (state = 'ended'),
    abort: async () => void (state = 'aborted'),
  };
  return { writer, bytes: () => Buffer.concat(chunks), state: () => state };
}

/** A PDF of `texts`, one page each, drawn by pdf-lib; with object streams and the page size and fonts set on the page tree when `inherited`. */
async function labelPdf(texts: string[], inherited = false): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of texts) doc.addPage([288, 432]).drawText(text, { x: 20, y: 400, size: 14, font });
  if (inherited) {
    // The page size moves up to the page tree, and the first page's resources: pages then inherit them.
    const tree = doc.catalog.Pages();
    const first = doc.getPages()[0].node;
    tree.set(PDFName.of('MediaBox'), first.get(PDFName.of('MediaBox'))!);
    tree.set(PDFName.of('Resources'), first.get(PDFName.of('Resources'))!);
    first.delete(PDFName.of('Resources'));
    for (const page of doc.getPages()) page.node.delete(PDFName.of('MediaBox'));
  }
  return doc.save({ useObjectStreams: inherited });
}

/** A plain PDF of the given objects (numbered from 1, object 1 the catalog), with its cross-reference table. */
function plainPdf(objects: string[]): Uint8Array {
  let text = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = text.length;
    text += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xrefAt = text.length;
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(text, 'latin1');
}

/** A plain one-page PDF printing `text`, made by hand. */
function labelPdfBytes(text: string): Uint8Array {
  const content = `BT /F1 12 Tf 20 400 Td (${text}) Tj ET`;
  return plainPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 288 432] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

async function pageTexts(pdf: Uint8Array): Promise<string[]> {
  const document = await getDocument({ data: new Uint8Array(pdf), verbosity: 0, isEvalSupported: false, stopAtErrors: true }).promise;
  const texts: string[] = [];
  for (let n = 1; n <= document.numPages; n++) {
    const page = await document.getPage(n);
    texts.push((await page.getTextContent()).items.map((item) => ('str' in item ? item.str : '')).join(''));
    expect(page.view).toEqual([0, 0, 288, 432]);
  }
  await document.destroy();
  return texts;
}

/** Every object the cross-reference table names starts where it says. */
function expectExactXref(pdf: Buffer): void {
  const text = pdf.toString('latin1');
  const xrefAt = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)![1]);
  const [, count, entries] = /^xref\n0 (\d+)\n([\s\S]*?)trailer/.exec(text.slice(xrefAt))!;
  const offsets = entries
    .trim()
    .split('\n')
    .map((line) => Number(line.slice(0, 10)));
  expect(offsets).toHaveLength(Number(count));
  for (let n = 1; n < offsets.length; n++) expect(text.slice(offsets[n], offsets[n] + `${n} 0 obj`.length)).toBe(`${n} 0 obj`);
}

describe('the streamed merged PDF', () => {
  it('copies every page of every label in order, with inherited attributes and object streams, and an exact cross-reference table', async () => {
    const out = memoryWriter();
    const merger = createPdfMerger(out.writer);
    await merger.add(await labelPdf(['Label one']));
    await merger.add(await labelPdf(['Label two, page 1', 'Label two, page 2'], true));
    await merger.add(await labelPdf(['Label three']));
    await merger.end();
    expect(merger.pages).toBe(4);
    const pdf = out.bytes();
    expectExactXref(pdf);
    expect(await pageTexts(pdf)).toEqual(['Label one', 'Label two, page 1', 'Label two, page 2', 'Label three']);
    expect((await PDFDocument.load(pdf)).getPageCount()).toBe(4);
  });

  it('copies the sandbox labels as written (read straight, not through pdf-lib), each page with its own text', async () => {
    const party = {
      name: 'Jane Sender',
      company: '',
      street: '1 Main St',
      street2: '',
      city: 'New York',
      state: 'NY',
      zip: '10001',
      country: 'United States',
      phone: '',
    };
    const labels = await Promise.all(
      ['Ann Receiver', 'Bob Receiver'].map(async (name, i) => {
        const request = {
          orderId: `order-${i}`,
          uid: 'priority',
          serviceName: 'Priority',
          design: 'normal',
          weight: 2,
          weightUnit: 'lb' as const,
          length: null,
          width: null,
          height: null,
        };
        return (
          await inlineRenderer().render({
            ...request,
            upstream: 'sandbox',
            chosen: null,
            from: party,
            to: { ...party, name, zip: '90210' },
            createdAt: '2026-11-24T10:00:00.000Z',
          })
        ).pdf;
      }),
    );
    for (const label of labels) expect(PlainPdf.read(label)).not.toBeNull();
    const out = memoryWriter();
    const merger = createPdfMerger(out.writer);
    for (const label of labels) await merger.add(label);
    await merger.end();
    const pdf = out.bytes();
    expectExactXref(pdf);
    const texts = await pageTexts(pdf);
    expect(texts).toHaveLength(2);
    texts.forEach((text, i) => {
      expect(text).toContain(SAMPLE_MARK);
      expect(text).toContain(['Ann Receiver', 'Bob Receiver'][i]);
    });
  });

  it('renumbers references only: strings, names and stream data that look like references are copied byte for byte', async () => {
    const content = 'BT /F1 12 Tf 20 400 Td (Kept 9 0 R) Tj ET';
    const label = plainPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      // The page tree holds the page size and the resources, which the page inherits.
      '<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 288 432] /Resources << /Font << /F1 5 0 R >> >> >>',
      '<< /Type /Page /Parent 2 0 R /Contents 4 0 R /PieceInfo << /Note (a \\) 3 0 R \\( string) /Hex <31203020523e> /Empty <> /Name /1#200#20R >> >>',
      `<< /Length 6 0 R >>\nstream\n${content}\nendstream`,
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
      String(content.length),
    ]);
    expect(PlainPdf.read(label)).not.toBeNull();
    const out = memoryWriter();
    const merger = createPdfMerger(out.writer);
    await merger.add(label);
    await merger.add(label);
    await merger.end();
    const pdf = out.bytes();
    expectExactXref(pdf);
    const text = pdf.toString('latin1');
    expect(text.split('/PieceInfo << /Note (a \\) 3 0 R \\( string) /Hex <31203020523e> /Empty <> /Name /1#200#20R >>')).toHaveLength(3);
    expect(text.split(`stream\n${content}\nendstream`)).toHaveLength(3);
    expect(await pageTexts(pdf)).toEqual(['Kept 9 0 R', 'Kept 9 0 R']);
  });

  it.each([
    // Every offset in the table off by one: no object is where the table says.
    [
      'its cross-reference table is wrong',
      (text: string) => text.replace(/^(\d{10}) 00000 n/gm, (_, offset) => `${String(Number(offset) + 1).padStart(10, '0')} 00000 n`),
    ],
    // The content stream's /Length too short: its data would be cut.
    ['a stream length is wrong', (text: string) => text.replace(/\/Length (\d+)/, (_, length) => `/Length ${Number(length) - 4}`)],
  ])('reads a label through pdf-lib, which finds the objects itself, when %s', async (_, spoil) => {
    const label = Buffer.from(spoil(Buffer.from(labelPdfBytes('Found anyway')).toString('latin1')), 'latin1');
    expect(PlainPdf.read(label)).not.toBeNull();
    const out = memoryWriter();
    const merger = createPdfMerger(out.writer);
    await merger.add(label);
    await merger.end();
    expectExactXref(out.bytes());
    expect(await pageTexts(out.bytes())).toEqual(['Found anyway']);
  });

  it('refuses to end with no page', async () => {
    await expect(createPdfMerger(memoryWriter().writer).end()).rejects.toThrow('at least one page');
  });
});

describe('the bulk files writer', () => {
  it('writes labels in file order whatever order rows settle in, skips rows without a label, and reads back labels it did not hold', async () => {
    const pdf = memoryWriter();
    const zip = memoryWriter();
    const stored = new Map([['labels/b.pdf', await labelPdf(['B'])]]);
    const writer = createBulkFilesWriter(4, { pdf: pdf.writer, zip: zip.writer }, async (key) => stored.get(key)!);
    writer.settle(3, { tracking: 'T4', bulkRow: 4, pdf: await labelPdf(['D']), pdfKey: 'labels/d.pdf' });
    writer.settle(1, { tracking: 'T2', bulkRow: 2, pdf: null, pdfKey: 'labels/b.pdf' });
    writer.settle(2, null); // a failed row
    writer.settle(0, { tracking: 'T4', bulkRow: 1, pdf: await labelPdf(['A']), pdfKey: 'labels/a.pdf' });
    expect(await writer.finishPdf()).toEqual({ pages: 3 });
    await writer.finishZip({ name: 'label.csv', csv: Buffer.from('report') });
    expect(await pageTexts(pdf.bytes())).toEqual(['A', 'B', 'D']);
    const entries = unzipSync(zip.bytes());
    // Two rows with one tracking number: the second is named with its row.
    expect(Object.keys(entries)).toEqual(['T4.pdf', 'T2.pdf', 'T4-row-4.pdf', 'label.csv']);
    expect(await pageTexts(entries['T2.pdf'])).toEqual(['B']);
    expect([pdf.state(), zip.state()]).toEqual(['ended', 'ended']);
  });

  it('stores no PDF when no row has a label, and refuses to finish before every row settled', async () => {
    const pdf = memoryWriter();
    const zip = memoryWriter();
    const writer = createBulkFilesWriter(2, { pdf: pdf.writer, zip: zip.writer }, async () => new Uint8Array());
    writer.settle(1, null);
    await expect(writer.finishPdf()).rejects.toThrow('Only 0 of 2 rows');
    writer.settle(0, null);
    expect(await writer.finishPdf()).toEqual({ pages: 0 });
    await writer.finishZip({ name: 'label.csv', csv: Buffer.from('report') });
    expect(pdf.state()).toBe('aborted');
    expect(Object.keys(unzipSync(zip.bytes()))).toEqual(['label.csv']);
  });

  it('abandons both files when a label cannot be read', async () => {
    const pdf = memoryWriter();
    const zip = memoryWriter();
    const writer = createBulkFilesWriter(1, { pdf: pdf.writer, zip: zip.writer }, async () => new Uint8Array());
    writer.settle(0, { tracking: 'T1', bulkRow: 1, pdf: Buffer.from('not a pdf'), pdfKey: 'labels/x.pdf' });
    await expect(writer.finishPdf()).rejects.toThrow();
    await writer.abort();
    expect([pdf.state(), zip.state()]).toEqual(['aborted', 'aborted']);
  });
});

describe('a file streamed as it is written', () => {
  it('gives the reader every byte in order, the writer waiting while the reader is behind', async () => {
    const file = streamedFile();
    const parts = [Buffer.alloc(100_000, 1), Buffer.alloc(100_000, 2)];
    const read = (async () => Buffer.concat(await file.stream.toArray()))();
    for (const part of parts) await file.write(part);
    file.stream.end();
    expect((await read).equals(Buffer.concat(parts))).toBe(true);
  });

  it('stops the writer once the reader is gone (a cancelled download), whether it waits or writes next', async () => {
    const file = streamedFile();
    const waiting = file.write(Buffer.alloc(1_000_000)); // more than the stream holds: it waits for the reader
    file.stream.destroy();
    await expect(waiting).rejects.toThrow('the download was cancelled');
    await expect(file.write(Buffer.alloc(1))).rejects.toThrow('the download was cancelled');
  });
});
