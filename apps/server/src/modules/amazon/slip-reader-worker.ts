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
  let document;
  try {
    document = await pdfjs.getDocument({ data, verbosity: 0, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: true })
      .promise;
  } catch (error) {
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
    return { problem: null, pages: document.numPages, ...readPackingSlips(pages) };
  } catch {
    return { problem: 'damaged' };
  } finally {
    await document.destroy();
  }
}

serveWorkerTasks<Uint8Array, SlipReading>(async (data) => ({ value: await readSlipPdf(data) }));
