import { Zip, ZipPassThrough } from 'fflate';
import type { FileWriter } from '../../providers/storage/file-store.ts';
import { CSV_REPORT_COLUMNS, centsToDollars, formatDollars } from '@portal/contract';
import type { OrdersTable as OrderRow } from '../../db/schema.ts';
import { toCsv, type CsvTable } from '../../lib/csv.ts';
import { PlainPdf, rewrittenPlain, type Span } from './plain-pdf.ts';

/**
 * The report: every input row as written, then its tracking number, price, status (completed or
 * failed) and, for a failed row, why it failed and that it was refunded.
 */
export function buildReport(table: Pick<CsvTable, 'header' | 'records'>, ordersByRow: Map<number, OrderRow>): string {
  const width = table.header.length;
  const lines: string[][] = [[...table.header, ...CSV_REPORT_COLUMNS]];
  for (const record of table.records) {
    const order = ordersByRow.get(record.row);
    if (!order) continue;
    const cells = Array.from({ length: width }, (_, i) => record.cells[i] ?? '');
    const failed = order.status === 'cancelled';
    const status = order.status === 'completed' ? 'completed' : failed ? 'failed' : order.status;
    const message = failed ? `Refunded: ${order.note ?? 'the label could not be created'}` : '';
    lines.push([...cells, order.tracking ?? '', formatDollars(centsToDollars(Number(order.price_cents))), status, message]);
  }
  return toCsv(lines);
}

const latin1 = (text: string) => Buffer.from(text, 'latin1');
/** Attributes a page may take from the page tree above it; the merged PDF puts them on the page itself. */
const INHERITED = ['Resources', 'MediaBox', 'CropBox', 'Rotate'];
const CATALOG_NUMBER = 1;
const PAGES_NUMBER = 2;

/**
 * One PDF of many labels' pages, written as each label is added: a label's objects are copied with
 * new numbers and sent on at once, so memory holds one label and the cross-reference offsets, never
 * the whole document. The page tree and catalog come last. `add` waits while `out` is behind.
 */
export function createPdfMerger(out: Pick<FileWriter, 'write'>) {
  const offsets = [0, 0, 0]; // offsets[n]: where object n starts; 0 is the free entry, then the catalog and page tree written last
  const pageNumbers: number[] = [];
  let written = 0;
  const send = async (bytes: Uint8Array) => {
    written += bytes.length;
    await out.write(bytes);
  };

  return {
    /** Appends every page of one label PDF. */
    async add(pdf: Uint8Array): Promise<void> {
      const header = written === 0 ? latin1('%PDF-1.7\n%\xE2\xE3\xCF\xD3\n') : null;
      const at = written + (header?.length ?? 0);
      const plain = PlainPdf.read(pdf);
      let copy: PageCopy | null = null;
      try {
        if (plain) copy = copyPages(plain, offsets.length, at);
      } catch {
        // Read as plain but not as expected: pdf-lib writes it plain again, below.
      }
      copy ??= copyPages(await rewrittenPlain(pdf), offsets.length, at);
      offsets.push(...copy.offsets);
      pageNumbers.push(...copy.pages);
      await send(Buffer.concat(header ? [header, ...copy.parts] : copy.parts));
    },
    /** Pages added so far. */
    get pages(): number {
      return pageNumbers.length;
    },
    /** Writes the page tree, the catalog and the cross-reference table; at least one page must have been added. */
    async end(): Promise<void> {
      if (pageNumbers.length === 0) throw new Error('A merged PDF needs at least one page');
      offsets[PAGES_NUMBER] = written;
      let tail = `${PAGES_NUMBER} 0 obj\n<< /Type /Pages /Count ${pageNumbers.length} /Kids [${pageNumbers.map((n) => `${n} 0 R`).join(' ')}] >>\nendobj\n`;
      offsets[CATALOG_NUMBER] = written + tail.length;
      tail += `${CATALOG_NUMBER} 0 obj\n<< /Type /Catalog /Pages ${PAGES_NUMBER} 0 R >>\nendobj\n`;
      const xrefAt = written + tail.length;
      const entries = offsets.map((offset, n) => (n === 0 ? '0000000000 65535 f \n' : `${String(offset).padStart(10, '0')} 00000 n \n`));
      tail += `xref\n0 ${offsets.length}\n${entries.join('')}trailer\n<< /Size ${offsets.length} /Root ${CATALOG_NUMBER} 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
      await send(latin1(tail));
    },
  };
}

type PageCopy = { parts: Uint8Array[]; offsets: number[]; pages: number[] };

/**
 * A label's pages and every object they use, as objects of the merged PDF numbered from `firstNumber`
 * and written from byte `at`: their bytes, where each starts, and the pages' numbers. The label's own
 * catalog and page tree stay behind (a reference to them becomes null); each page takes what it
 * inherited from its page tree as entries of its own.
 */
function copyPages(source: PlainPdf, firstNumber: number, at: number): PageCopy {
  const dictOf = (number: number) => source.entries(source.token(source.object(number).value.start));
  const tree = new Set([source.root]);
  const pages: { number: number; entries: Map<string, Span>; inherited: Map<string, Span> }[] = [];
  const walk = (number: number, inherited: Map<string, Span>) => {
    const entries = dictOf(number);
    const kids = entries.get('Kids');
    if (!kids) return void pages.push({ number, entries, inherited });
    if (tree.has(number)) throw new Error('The page tree of a label PDF loops');
    tree.add(number);
    const passed = new Map(inherited);
    for (const key of INHERITED) if (entries.has(key)) passed.set(key, entries.get(key)!);
    for (const kid of source.items(source.resolve(kids))) walk(source.refOf(kid), passed);
  };
  walk(source.refOf(dictOf(source.root).get('Pages')), new Map());

  const numbers = new Map<number, number>();
  const toWrite: number[] = [];
  const refText = (ref: number) => {
    let number = numbers.get(ref);
    if (number === undefined) {
      if (tree.has(ref) || !source.has(ref)) return 'null';
      number = firstNumber + toWrite.length;
      numbers.set(ref, number);
      toWrite.push(ref);
    }
    return `${number} 0 R`;
  };
  for (const page of pages) refText(page.number); // the pages numbered first, in their order
  const pageOf = new Map(pages.map((page) => [page.number, page]));

  const parts: Uint8Array[] = [];
  const offsets: number[] = [];
  for (let i = 0; i < toWrite.length; i++) {
    const ref = toWrite[i];
    const start = parts.length;
    parts.push(latin1(`${firstNumber + i} 0 obj\n`));
    const page = pageOf.get(ref);
    if (page) {
      parts.push(latin1('<<'));
      const entries = [...page.entries].filter(([key]) => key !== 'Parent');
      for (const key of INHERITED) if (!page.entries.has(key) && page.inherited.has(key)) entries.push([key, page.inherited.get(key)!]);
      for (const [key, value] of entries) {
        parts.push(latin1(`/${key} `));
        source.rewriteRefs(value, refText, parts);
        parts.push(latin1('\n'));
      }
      parts.push(latin1(`/Parent ${PAGES_NUMBER} 0 R>>`));
    } else {
      const { value, stream } = source.object(ref);
      source.rewriteRefs(value, refText, parts);
      if (stream) parts.push(latin1('\nstream\n'), source.bytes.subarray(stream.start, stream.end), latin1('\nendstream'));
    }
    parts.push(latin1('\nendobj\n'));
    offsets.push(at);
    for (let p = start; p < parts.length; p++) at += parts[p].length;
  }
  return { parts, offsets, pages: pages.map((page) => numbers.get(page.number)!) };
}

/**
 * A ZIP of label PDFs and then the report, made as entries are added: each is sent on at once, so
 * the ZIP is never whole in memory. PDFs are already compressed, so every entry is stored.
 */
export function createLabelZip(out: Pick<FileWriter, 'write'>) {
  const ready: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    ready.push(chunk);
  });
  const addEntry = async (name: string, data: Uint8Array) => {
    const entry = new ZipPassThrough(name);
    zip.add(entry);
    entry.push(data, true);
    for (const chunk of ready.splice(0)) await out.write(chunk);
  };
  return {
    add: addEntry,
    /** Adds the report as the last entry and writes the ZIP's directory. */
    async end(report: { name: string; csv: Uint8Array }): Promise<void> {
      await addEntry(report.name, report.csv);
      zip.end();
      for (const chunk of ready.splice(0)) await out.write(chunk);
    },
  };
}

/** A row's label for the bulk order's files: its bytes when at hand, else where the store keeps them. */
export type RowLabel = { tracking: string | null; bulkRow: number | null; pdf: Uint8Array | null; pdfKey: string | null };

/** Label bytes held for rows that settled before the rows above them; past this, they are read back from the store when their turn comes. */
const HELD_BYTES_LIMIT = 32 * 2 ** 20;

/**
 * The merged PDF and the ZIP of a bulk order, written in file order while rows settle in any order
 * (a label made, or none): each row's label goes into both files as soon as every row above it settled.
 */
export function createBulkFilesWriter(rows: number, out: { pdf: FileWriter; zip: FileWriter }, readLabel: (key: string) => Promise<Uint8Array>) {
  const merger = createPdfMerger(out.pdf);
  const zip = createLabelZip(out.zip);
  const fileName = uniqueFileNames();
  const settled = new Map<number, RowLabel | null>();
  let heldBytes = 0;
  let next = 0;
  let running: Promise<void> | null = null;
  let failure: { error: unknown } | null = null;

  async function writeSettled(): Promise<void> {
    try {
      while (!failure && settled.has(next)) {
        const label = settled.get(next)!;
        settled.delete(next);
        if (label) {
          if (label.pdf) heldBytes -= label.pdf.length;
          const pdf = label.pdf ?? (await readLabel(label.pdfKey!));
          await merger.add(pdf);
          await zip.add(fileName(label), pdf);
          // Between labels the event loop gets its turn: the render threads' answers are taken and their next labels
          // sent, instead of the threads standing idle while a batch of fifty is merged.
          await new Promise((resolve) => setImmediate(resolve));
        }
        next++;
      }
    } catch (error) {
      failure ??= { error };
    }
  }
  function kick(): void {
    running ??= writeSettled().finally(() => {
      running = null;
      if (!failure && settled.has(next)) kick();
    });
  }

  return {
    /** Row `index` (0-based, file order) is done: with its label, or null when it has none. */
    settle(index: number, label: RowLabel | null): void {
      if (label?.pdf && label.pdfKey && heldBytes + label.pdf.length > HELD_BYTES_LIMIT) label = { ...label, pdf: null };
      if (label?.pdf) heldBytes += label.pdf.length;
      settled.set(index, label);
      kick();
    },
    /** Once every row settled: stores the merged PDF (dropped when no row has a label). Answers its pages. */
    async finishPdf(): Promise<{ pages: number }> {
      while (running) await running;
      if (failure) throw failure.error;
      if (next !== rows) throw new Error(`Only ${next} of ${rows} rows of the bulk order were settled`);
      if (merger.pages > 0) {
        await merger.end();
        await out.pdf.end();
      } else {
        await out.pdf.abort();
      }
      return { pages: merger.pages };
    },
    /** After finishPdf: the report as the ZIP's last entry, then the ZIP stored. */
    async finishZip(report: { name: string; csv: Uint8Array }): Promise<void> {
      await zip.end(report);
      await out.zip.end();
    },
    /** Drops both files. */
    async abort(): Promise<void> {
      failure ??= { error: new Error('The bulk order files were abandoned') };
      await Promise.all([out.pdf.abort(), out.zip.abort()]); // first, so a write waiting on the store ends
      while (running) await running;
    },
  };
}

/** Unique file names in the ZIP, given in file order: the tracking number, with the row added if two rows share it. */
function uniqueFileNames(): (label: Pick<RowLabel, 'tracking' | 'bulkRow'>) => string {
  const seen = new Set<string>();
  return ({ tracking, bulkRow }) => {
    let name = `${tracking ?? `row-${bulkRow}`}.pdf`;
    if (seen.has(name)) name = `${tracking}-row-${bulkRow}.pdf`;
    seen.add(name);
    return name;
  };
}
