import { PassThrough } from 'node:stream';
import { crc32 } from 'node:zlib';
import { Zip, type ZipInputFile } from 'fflate';
import type { FileWriter } from '../../providers/storage/file-store.ts';
import { CSV_REPORT_COLUMNS, centsToDollars, formatDollars } from '@portal/contract';
import type { OrdersTable as OrderRow } from '../../db/schema.ts';
import { toCsv, type CsvTable } from '../../lib/csv.ts';
import { createPdfMerger } from '../../providers/labels/pdf-merger.ts';

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
    // A stored entry with zlib's native CRC: fflate's ZipPassThrough computes it in JavaScript, about 5% of the main
    // thread's time on a bulk order. The bytes written are the same.
    const entry: ZipInputFile = { filename: name, size: data.length, crc: crc32(data), compression: 0 };
    zip.add(entry);
    entry.ondata!(null, data as Uint8Array<ArrayBuffer>, true); // fflate only reads it
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
 * See ARCHITECTURE.md#streamed-bulk-files.
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
export function uniqueFileNames(extension = 'pdf'): (label: Pick<RowLabel, 'tracking' | 'bulkRow'>) => string {
  const seen = new Set<string>();
  return ({ tracking, bulkRow }) => {
    let name = `${tracking ?? `row-${bulkRow}`}.${extension}`;
    if (seen.has(name)) name = `${tracking}-row-${bulkRow}.${extension}`;
    seen.add(name);
    return name;
  };
}

/**
 * A file sent as it is written: `write` waits while the reader is behind and fails once the reader is gone (the
 * download was cancelled), which stops the writing; `started` settles with the first bytes.
 */
export function streamedFile() {
  const stream = new PassThrough();
  let start!: () => void;
  const started = new Promise<void>((resolve) => (start = resolve));
  const cancelled = () => new Error('the download was cancelled');
  return {
    stream,
    started,
    write(bytes: Uint8Array): Promise<void> {
      start();
      if (stream.destroyed) return Promise.reject(cancelled());
      if (stream.write(bytes)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const drained = () => {
          stream.off('close', closed);
          resolve();
        };
        const closed = () => {
          stream.off('drain', drained);
          reject(cancelled());
        };
        stream.once('drain', drained);
        stream.once('close', closed);
      });
    },
  };
}
