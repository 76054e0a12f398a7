import bwipjs from 'bwip-js/node';

/** The drawing calls the barcodes need; pdfkit's document has them. */
export type VectorCanvas = {
  /** Raw content-stream operators, in the page's current (top-left origin) coordinates. */
  addContent(ops: string): unknown;
  fill(color?: string): unknown;
};

// All rectangles go into one string and one write: pdfkit's rect() encodes each call separately,
// which costs more than the barcode itself once a PDF417 needs a few hundred of them.
const re = (x: number, y: number, w: number, h: number) => `${x.toFixed(3)} ${y.toFixed(3)} ${w.toFixed(3)} ${h.toFixed(3)} re\n`;

type LinearRaw = { sbs: number[] };
type MatrixRaw = { pixs: number[]; pixx: number; pixy: number };

/** Quiet zone each side of a linear barcode, in modules; scanners need at least 10. */
export const QUIET_ZONE_MODULES = 10;

/**
 * Draws a linear barcode (Code 128, GS1-128) as filled rectangles from bwip-js's raw encoding,
 * scaled to fit `width` including the quiet zones. Answers the module width used.
 */
export function drawLinearBarcode(doc: VectorCanvas, bcid: string, text: string, x: number, y: number, width: number, height: number): number {
  const raw = bwipjs.raw(bcid, text, {}) as unknown as LinearRaw[];
  const sbs = raw[0].sbs;
  let modules = 0;
  for (const n of sbs) modules += n;
  const module = width / (modules + 2 * QUIET_ZONE_MODULES);
  let cursor = x + QUIET_ZONE_MODULES * module;
  let ops = '';
  // sbs alternates bar, space, bar, ... starting with a bar.
  for (let i = 0; i < sbs.length; i++) {
    const w = sbs[i] * module;
    if (i % 2 === 0) ops += re(cursor, y, w, height);
    cursor += w;
  }
  doc.addContent(ops);
  doc.fill('black');
  return module;
}

/**
 * Draws a 2D barcode (PDF417, DataMatrix) as rectangles, one per horizontal run of dark modules,
 * fitted into width x height keeping its aspect.
 */
export function drawMatrixBarcode(
  doc: VectorCanvas,
  bcid: string,
  text: string,
  x: number,
  y: number,
  width: number,
  height: number,
  options: Record<string, unknown> = {},
): void {
  const raw = bwipjs.raw(bcid, text, options) as unknown as MatrixRaw[];
  const { pixs, pixx, pixy } = raw[0];
  // pixs holds one entry per symbol row; PDF417 rows stand several modules (pixy / rows) tall.
  const rows = pixs.length / pixx;
  const module = Math.min(width / pixx, height / pixy);
  const rowH = (module * pixy) / rows;
  let ops = '';
  for (let row = 0; row < rows; row++) {
    const base = row * pixx;
    let col = 0;
    while (col < pixx) {
      if (!pixs[base + col]) {
        col++;
        continue;
      }
      const start = col;
      while (col < pixx && pixs[base + col]) col++;
      ops += re(x + start * module, y + row * rowH, (col - start) * module, rowH);
    }
  }
  doc.addContent(ops);
  doc.fill('black');
}
