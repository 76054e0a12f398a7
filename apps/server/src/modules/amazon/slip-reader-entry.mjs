// The packing-slip reading thread starts here. pdf.js is imported natively before tsx loads the
// TypeScript: through tsx, its few megabytes of JavaScript would cost about 175 MB more in the thread.
import { tsImport } from 'tsx/esm/api';

const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
// pdf.js runs its worker side on this thread when it finds it here, rather than importing it through tsx.
globalThis.pdfjsWorker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
const { serveSlipReading } = await tsImport('./slip-reader-worker.ts', import.meta.url);
serveSlipReading(pdfjs);
