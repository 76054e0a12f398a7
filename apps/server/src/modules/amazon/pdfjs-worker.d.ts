// pdf.js ships no types for its worker side; slip-reader-worker.ts only hands the module to pdf.js.
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
