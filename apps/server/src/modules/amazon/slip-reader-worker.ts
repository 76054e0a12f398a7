// The packing-slip reading thread: a PDF in, its slips out.
import { AMAZON_MAX_PAGES } from '@portal/contract';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import * as pdfjsWorker from 'pdfjs-dist/legacy/build/pdf.worker.mjs';
import { serveWorkerTasks } from '../../lib/worker-task.ts';
import { readPackingSlips, textRuns, type PdfTextItem, type TextRun } from './packing-slips.ts';
import type { SlipReading } from './slip-reader.ts';

type PdfPage = Awaited<ReturnType<Awaited<ReturnType<typeof pdfjs.getDocument>['promise']>['getPage']>>;

// pdf.js runs its worker side on this thread when it finds it here, rather than importing it itself.
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = pdfjsWorker;

/**
 * The largest byte array pdf.js may make on this thread. It decodes a stream into one array that doubles as it fills,
 * copying what it holds at each step: a step the reader's growth watch (SLIP_READER_MAX_MB, sampled every 20 ms) could
 * not stop in time. A packing slip's largest stream (a font, a page's text) decodes to a few MB, a whole embedded font
 * to 20 MB at most; a bomb of 320 MiB of zeros stops at 32 MB, its thread never past about 50 MB of arrays (the process
 * peaked 155-165 MB over its idle size with 8 at once; 220 MB at 64 MB, 340-370 MB with no bound). Past it the PDF is
 * too complex to read.
 */
const ARRAY_LIMIT_BYTES = 32 * 2 ** 20;
let arrayTooLarge = false;
const NativeUint8Array = Uint8Array;
class BoundedUint8Array extends NativeUint8Array {
  constructor(...args: unknown[]) {
    if (typeof args[0] === 'number' && args[0] > ARRAY_LIMIT_BYTES) {
      arrayTooLarge = true;
      throw new RangeError(`a byte array of over ${ARRAY_LIMIT_BYTES} bytes`);
    }
    super(...(args as [ArrayBuffer, number, number]));
  }
  // Arrays made before (the upload itself) or by Node are Uint8Arrays all the same.
  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof NativeUint8Array;
  }
}
globalThis.Uint8Array = BoundedUint8Array as unknown as Uint8ArrayConstructor;

/**
 * The most text read from a page, and from a file, in characters (a piece of text counts one more): a
 * Seller Central slip page holds about 1,000 and a full page of small print about 10,000. Past them a
 * PDF is too complex to read, before its text fills the thread.
 */
export const PAGE_TEXT_LIMIT = 50_000;
export const FILE_TEXT_LIMIT = 5_000_000;

/** A page's text pieces, read as pdf.js finds them, or null past `budget` characters. */
async function pageText(page: PdfPage, budget: number): Promise<{ items: PdfTextItem[]; size: number } | null> {
  const reader = page.streamTextContent().getReader();
  const items: PdfTextItem[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { items, size };
    for (const item of (value as Awaited<ReturnType<PdfPage['getTextContent']>>).items) {
      if (!('str' in item)) continue;
      size += item.str.length + 1;
      items.push({ str: item.str, x: item.transform[4], y: item.transform[5], width: item.width });
    }
    // Not cancelled: pdf.js 4.10 then still sends a chunk into the closed stream, which throws on this thread;
    // destroying the document (in readSlipPdf) stops the rest.
    if (size > budget) return null;
  }
}

async function readSlipPdf(data: Uint8Array): Promise<SlipReading> {
  arrayTooLarge = false;
  let document;
  try {
    document = await pdfjs.getDocument({ data, verbosity: 0, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: true })
      .promise;
  } catch (error) {
    if (arrayTooLarge) return { problem: 'too-complex' };
    return { problem: (error as { name?: string }).name === 'PasswordException' ? 'encrypted' : 'damaged' };
  }
  try {
    if (document.numPages > AMAZON_MAX_PAGES) return { problem: 'too-many-pages', pages: document.numPages };
    const pages: TextRun[][] = [];
    let fileBudget = FILE_TEXT_LIMIT;
    for (let number = 1; number <= document.numPages; number++) {
      const page = await document.getPage(number);
      const text = await pageText(page, Math.min(PAGE_TEXT_LIMIT, fileBudget));
      if (!text) return { problem: 'too-complex' };
      fileBudget -= text.size;
      pages.push(textRuns(text.items, page.view[3]));
      page.cleanup();
    }
    // pdf.js may have left out what it could not decode.
    if (arrayTooLarge) return { problem: 'too-complex' };
    return { problem: null, pages: document.numPages, ...readPackingSlips(pages) };
  } catch {
    return { problem: arrayTooLarge ? 'too-complex' : 'damaged' };
  } finally {
    await document.destroy();
  }
}

serveWorkerTasks<Uint8Array, SlipReading>(async (data) => ({ value: await readSlipPdf(data) }));
