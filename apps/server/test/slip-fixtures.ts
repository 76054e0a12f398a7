// Packing-slip PDFs drawn the way Seller Central prints them, for tests and the benchmark.
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';

export type SlipAddress = { name: string; company?: string; street: string; street2?: string; city: string; state: string; zip: string; country?: string };
export type Slip = {
  orderId: string;
  shipTo: SlipAddress;
  /** Item lines; many of them carry the slip over to a second page. */
  items?: number;
};

/** Page content: slips (one a page unless `perPage` says more), or a page that is a scanned image with no text. */
export type SlipPage = { slips: Slip[] } | { scan: true };

const LETTER: [number, number] = [612, 792];

type Fonts = { regular: PDFFont; bold: PDFFont };

function addressLines(a: SlipAddress): string[] {
  return [a.name, a.company, a.street, a.street2, `${a.city}, ${a.state} ${a.zip}`, a.country].filter((line): line is string => Boolean(line));
}

/** One slip from `top` down; answers where it ended (the y below its last line). */
function drawSlip(doc: PDFDocument, pageRef: { page: PDFPage }, slip: Slip, top: number, fonts: Fonts): number {
  let page = pageRef.page;
  let y = top;
  const text = (value: string, x: number, size = 10, bold = false) => page.drawText(value, { x, y, size, font: bold ? fonts.bold : fonts.regular });
  text('Ship To:', 40, 11, true);
  y -= 15;
  for (const line of addressLines(slip.shipTo)) {
    text(line, 52, 11);
    y -= 14;
  }
  y -= 12;
  text(`Order ID: ${slip.orderId}`, 40, 12, true);
  y -= 16;
  text('Thank you for buying from Example Seller on Amazon Marketplace.', 40, 9);
  y -= 22;
  // Two columns side by side: the buyer's address again on the left, the order's facts on the right.
  const right = ['Order Date: Mon, Nov 23, 2026', 'Shipping Service: Standard', `Buyer Name: ${slip.shipTo.name}`, 'Seller Name: Example Seller'];
  const left = ['Shipping Address:', ...addressLines(slip.shipTo)];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i]) text(left[i], 40, 9, i === 0);
    if (right[i]) text(right[i], 330, 9);
    y -= 12;
  }
  y -= 12;
  text('Quantity', 40, 9, true);
  text('Product Details', 100, 9, true);
  text('Unit price', 420, 9, true);
  text('Order Totals', 500, 9, true);
  y -= 14;
  for (let i = 1; i <= (slip.items ?? 1); i++) {
    if (y < 60) {
      page = doc.addPage(LETTER);
      pageRef.page = page;
      y = LETTER[1] - 50;
    }
    text('1', 52, 9);
    text(`Example product number ${i}, blue, size M`, 100, 9);
    text('$12.99', 420, 9);
    text('$12.99', 500, 9);
    y -= 13;
  }
  return y - 20;
}

/** A small grey PNG: what a scanner puts on a page instead of text. */
function scanPng(width = 60, height = 80): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(zlib.crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  const raw = Buffer.alloc((width + 1) * height);
  for (let row = 0; row < height; row++) for (let x = 0; x < width; x++) raw[row * (width + 1) + 1 + x] = (x * 7 + row * 3) % 256;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A packing-slip PDF: each entry a page (or more, for a slip with many items). */
export async function packingSlipPdf(pages: SlipPage[]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const fonts = { regular: await doc.embedFont(StandardFonts.Helvetica), bold: await doc.embedFont(StandardFonts.HelveticaBold) };
  let scan: Awaited<ReturnType<PDFDocument['embedPng']>> | null = null;
  for (const entry of pages) {
    const ref = { page: doc.addPage(LETTER) };
    if ('scan' in entry) {
      scan ??= await doc.embedPng(scanPng());
      ref.page.drawImage(scan, { x: 0, y: 0, width: LETTER[0], height: LETTER[1] });
      continue;
    }
    let top = LETTER[1] - 50;
    for (const slip of entry.slips) top = drawSlip(doc, ref, slip, top, fonts);
  }
  return Buffer.from(await doc.save());
}

const STREETS = ['Oak Avenue', 'Pine Road', 'Maple Street', 'Cedar Lane', 'Elm Drive', 'Lake Shore Drive'];
const CITIES: [string, string, string][] = [
  ['Austin', 'TX', '78701'],
  ['Seattle', 'WA', '98101'],
  ['Chicago', 'IL', '60601'],
  ['Denver', 'CO', '80202'],
  ['Miami', 'FL', '33101'],
];

/** The n-th of a run of ordinary slips (1-based): a person, a street, one item. */
export function slipNumber(n: number): Slip {
  const [city, state, zip] = CITIES[n % CITIES.length];
  return {
    orderId: `111-${String(1000000 + n).padStart(7, '0')}-${String(7654321 + n).slice(-7)}`,
    shipTo: { name: `Buyer Number ${n}`, street: `${100 + n} ${STREETS[n % STREETS.length]}`, city, state, zip, country: 'United States' },
  };
}

/** `count` pages of one ordinary slip each. */
export const ordinarySlipPages = (count: number, from = 1): SlipPage[] => Array.from({ length: count }, (_, i) => ({ slips: [slipNumber(from + i)] }));

/** A PDF of `pages` pages (Letter, Helvetica as F1) that all show one content stream, stored with FlateDecode. */
export function rawPdf(content: Buffer, pages = 1, deflated = zlib.deflateSync(content)): Buffer {
  const pageRefs = Array.from({ length: pages }, (_, i) => `${i + 5} 0 R`).join(' ');
  const objects: (string | Buffer)[] = [
    `<< /Type /Catalog /Pages 2 0 R >>`,
    `<< /Type /Pages /Kids [${pageRefs}] /Count ${pages} >>`,
    Buffer.concat([Buffer.from(`<< /Length ${deflated.length} /Filter /FlateDecode >>\nstream\n`), deflated, Buffer.from('\nendstream')]),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    ...Array.from({ length: pages }, () => '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 3 0 R >>'),
  ];
  const parts = [Buffer.from('%PDF-1.7\n')];
  let length = parts[0].length;
  const offsets = objects.map((body, i) => {
    const at = length;
    const part = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.from(body), Buffer.from('\nendobj\n')]);
    parts.push(part);
    length += part.length;
    return at;
  });
  const xref = offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`).join('');
  parts.push(
    Buffer.from(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`,
    ),
  );
  return Buffer.concat(parts);
}

/** A one-page PDF whose content stream is `head`, `fill` repeated to about `mb` MB, then `tail`: deflated piece by piece, never whole in memory. */
export async function deflatedPagePdf(head: string, fill: string, mb: number, tail: string): Promise<Buffer> {
  const chunk = Buffer.from(fill.repeat(Math.ceil(2 ** 20 / fill.length)));
  const out: Buffer[] = [];
  await pipeline(
    async function* () {
      yield Buffer.from(head);
      for (let i = 0; i < mb; i++) yield chunk;
      yield Buffer.from(tail);
    },
    zlib.createDeflate({ level: 9 }),
    async (deflated: AsyncIterable<Buffer>) => {
      for await (const piece of deflated) out.push(piece);
    },
  );
  return rawPdf(Buffer.alloc(0), 1, Buffer.concat(out));
}

/**
 * The PDF bomb of issue 45: one page whose content stream is `mib` MiB of zeros (whitespace to pdf.js), about 326 kB
 * deflated at level 9 for 320 MiB.
 */
export const zeroBombPdf = (mib = 320) => deflatedPagePdf('', '\0', mib, '');
