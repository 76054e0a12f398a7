import { PDFArray, PDFDict, PDFDocument, PDFName, PDFObject, PDFRawStream, PDFRef, ParseSpeeds } from 'pdf-lib';
import { Zip, ZipPassThrough } from 'fflate';
import type { FileWriter } from '../../providers/storage/file-store.ts';
import { CSV_REPORT_COLUMNS, centsToDollars, formatDollars } from '@portal/contract';
import type { OrderRow } from '../orders/service.ts';
import { toCsv, type CsvTable } from '../../lib/csv.ts';

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
const INHERITED = ['Resources', 'MediaBox', 'CropBox', 'Rotate'].map((name) => PDFName.of(name));
const PARENT = PDFName.of('Parent');
const TYPE = PDFName.of('Type');
const PAGE_TREE_TYPES = new Set([PDFName.of('Pages'), PDFName.of('Catalog')]);
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
      const source = await PDFDocument.load(pdf, { parseSpeed: ParseSpeeds.Fastest, updateMetadata: false });
      const numbers = new Map<PDFRef, number>();
      const toWrite: PDFRef[] = [];
      const numberOf = (ref: PDFRef): number | null => {
        let number = numbers.get(ref);
        if (number !== undefined) return number;
        const target = source.context.lookup(ref);
        // The label's own page tree and catalog stay behind: the merged document has its own.
        if (target instanceof PDFDict && PAGE_TREE_TYPES.has(target.get(TYPE) as PDFName)) return null;
        number = offsets.length;
        offsets.push(0);
        numbers.set(ref, number);
        toWrite.push(ref);
        return number;
      };
      const pages = source.getPages();
      const leaves = new Map(pages.map((page) => [page.ref, page.node]));
      for (const page of pages) pageNumbers.push(numberOf(page.ref)!);
      const parts: Uint8Array[] = written === 0 ? [latin1('%PDF-1.7\n%\xE2\xE3\xCF\xD3\n')] : [];
      let at = written + (parts[0]?.length ?? 0);
      for (let i = 0; i < toWrite.length; i++) {
        const ref = toWrite[i];
        const start = parts.length;
        parts.push(latin1(`${numbers.get(ref)} 0 obj\n`));
        const leaf = leaves.get(ref);
        if (leaf) {
          // A page: its own entries and what it inherits, under the merged page tree.
          const entries = leaf.entries().filter(([key]) => key !== PARENT);
          for (const key of INHERITED) {
            const value = leaf.has(key) ? undefined : leaf.getInheritableAttribute(key);
            if (value) entries.push([key, value]);
          }
          writeEntries(entries, parts, numberOf);
          parts.push(latin1(`/Parent ${PAGES_NUMBER} 0 R>>`));
        } else {
          writeObject(source.context.lookup(ref)!, parts, numberOf);
        }
        parts.push(latin1('\nendobj\n'));
        offsets[numbers.get(ref)!] = at;
        for (let p = start; p < parts.length; p++) at += parts[p].length;
      }
      await send(Buffer.concat(parts));
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

type NumberOf = (ref: PDFRef) => number | null;

/** A dictionary's entries, opened but not closed ('<<' and its key-value pairs). */
function writeEntries(entries: [PDFName, PDFObject][], out: Uint8Array[], numberOf: NumberOf): void {
  out.push(latin1('<<'));
  for (const [key, value] of entries) {
    writeObject(key, out, numberOf);
    out.push(latin1(' '));
    writeObject(value, out, numberOf);
    out.push(latin1('\n'));
  }
}

/** Writes one object of a label with its references renumbered (a reference to the label's page tree becomes null). */
function writeObject(object: PDFObject, out: Uint8Array[], numberOf: NumberOf): void {
  if (object instanceof PDFRef) {
    const number = numberOf(object);
    out.push(latin1(number === null ? 'null' : `${number} 0 R`));
  } else if (object instanceof PDFDict) {
    writeEntries(object.entries(), out, numberOf);
    out.push(latin1('>>'));
  } else if (object instanceof PDFArray) {
    out.push(latin1('['));
    for (const item of object.asArray()) {
      writeObject(item, out, numberOf);
      out.push(latin1(' '));
    }
    out.push(latin1(']'));
  } else if (object instanceof PDFRawStream) {
    writeObject(object.dict, out, numberOf);
    out.push(latin1('\nstream\n'), object.contents, latin1('\nendstream'));
  } else {
    const bytes = new Uint8Array(object.sizeInBytes());
    object.copyBytesInto(bytes, 0);
    out.push(bytes);
  }
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
