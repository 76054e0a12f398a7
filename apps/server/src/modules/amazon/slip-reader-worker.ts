// The packing-slip reading thread (started by slip-reader-entry.mjs): a PDF in, its slips out.
import { AMAZON_MAX_PAGES } from '@portal/contract';
import { serveWorkerTasks } from '../../lib/worker-pool.ts';
import { readPackingSlips, textRuns, type PdfTextItem, type TextRun } from './packing-slips.ts';
import type { SlipReading } from './slip-reader.ts';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

async function readSlipPdf({ getDocument }: PdfJs, data: Uint8Array): Promise<SlipReading> {
  let document;
  try {
    document = await getDocument({ data, verbosity: 0, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: true }).promise;
  } catch (error) {
    return { problem: (error as { name?: string }).name === 'PasswordException' ? 'encrypted' : 'damaged' };
  }
  try {
    if (document.numPages > AMAZON_MAX_PAGES) return { problem: 'too-many-pages', pages: document.numPages };
    const pages: TextRun[][] = [];
    for (let number = 1; number <= document.numPages; number++) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      const items: PdfTextItem[] = [];
      for (const item of content.items) if ('str' in item) items.push({ str: item.str, x: item.transform[4], y: item.transform[5], width: item.width });
      pages.push(textRuns(items, page.view[3]));
      page.cleanup();
    }
    return { problem: null, pages: document.numPages, ...readPackingSlips(pages) };
  } catch {
    return { problem: 'damaged' };
  } finally {
    await document.destroy();
  }
}

/** Answers the pool's tasks with the pdf.js the entry imported. */
export function serveSlipReading(pdfjs: PdfJs): void {
  serveWorkerTasks<Uint8Array, SlipReading>(async (data) => ({ value: await readSlipPdf(pdfjs, data) }));
}
