import { setImmediate as nextTurn } from 'node:timers/promises';
import { PDFDocument, ParseSpeeds } from 'pdf-lib';
import { Readable } from 'node:stream';
import { Zip, ZipPassThrough } from 'fflate';
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

/**
 * One PDF of every label, in the order given. Labels are small one-page files, so copying pages
 * with pdf-lib is cheap (about 0.2 ms a label); the loop gives the event loop a turn now and then.
 */
export async function mergePdfs(pdfs: Iterable<Uint8Array>): Promise<Uint8Array> {
  const merged = await PDFDocument.create({ updateMetadata: false });
  let count = 0;
  for (const pdf of pdfs) {
    const source = await PDFDocument.load(pdf, { parseSpeed: ParseSpeeds.Fastest, updateMetadata: false });
    for (const page of await merged.copyPages(source, source.getPageIndices())) merged.addPage(page);
    if (++count % 100 === 0) await nextTurn();
  }
  // pdf-lib waits a timer tick every objectsPerTick objects while saving; a large value keeps that rare.
  return merged.save({ useObjectStreams: false, objectsPerTick: 5000 });
}

/**
 * A ZIP of the single label PDFs and the report, made as it is read: the consumer (a file or an
 * upload) pulls one entry at a time, so the whole ZIP is never in memory. PDFs are already
 * compressed, so every entry is stored.
 */
export function zipLabels(labels: { name: string; pdf: Uint8Array }[], report: { name: string; csv: Uint8Array }): Readable {
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const ready: Uint8Array[] = [];
    const zip = new Zip((error, chunk) => {
      if (error) throw error;
      ready.push(chunk);
    });
    for (const { name, data } of [...labels.map((l) => ({ name: l.name, data: l.pdf })), { name: report.name, data: report.csv }]) {
      const entry = new ZipPassThrough(name);
      zip.add(entry);
      entry.push(data, true);
      yield* ready.splice(0);
    }
    zip.end();
    yield* ready.splice(0);
  }
  return Readable.from(chunks(), { objectMode: false });
}

/** Unique file names in the ZIP: the tracking number, with the row added if two rows share it. */
export function labelFileNames(orders: { tracking: string | null; bulk_row: number | null }[]): string[] {
  const seen = new Set<string>();
  return orders.map((order) => {
    let name = `${order.tracking ?? `row-${order.bulk_row}`}.pdf`;
    if (seen.has(name)) name = `${order.tracking}-row-${order.bulk_row}.pdf`;
    seen.add(name);
    return name;
  });
}
