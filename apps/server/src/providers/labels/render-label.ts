import PDFDocument from 'pdfkit';
import { drawLinearBarcode, drawMatrixBarcode } from './barcodes.ts';
import { SAMPLE_MARK, addressLines, referenceLines, type LabelRequest } from './label-provider.ts';
import { carrierOf, trackingNumberFor, type Carrier, type TrackingNumber } from './tracking-numbers.ts';
import { printedAs } from '@portal/contract/printed-as';

export { SAMPLE_MARK };

/** 4 x 6 inches in PDF points. */
const W = 288;
const H = 432;
const M = 10;

type Doc = PDFKit.PDFDocument;

/** Service banners as printed; the order's own type name is used for anything not listed. */
const BANNERS: Record<string, string> = {
  priority: 'USPS PRIORITY MAIL',
  uspsv9: 'USPS PRIORITY MAIL',
  ground_oz: 'USPS GROUND ADVANTAGE',
  fedex_ground: 'FedEx Ground',
  ups_standard: 'UPS STANDARD',
  ups_express: 'UPS EXPRESS',
  ups_express_saver: 'UPS EXPRESS SAVER',
  ups_express_early: 'UPS EXPRESS EARLY',
  ups_expedited: 'UPS EXPEDITED',
};

/** Writes one line at (x, y), shrinking the font down to `min` and then cutting it so it fits `width`. */
function line(doc: Doc, text: string, x: number, y: number, width: number, size: number, bold = false, min = 6): void {
  let s = printedAs(text);
  doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(size);
  let w = doc.widthOfString(s);
  if (w > width) {
    const fitted = Math.max(min, (size * width) / w);
    doc.fontSize(fitted);
    while (s.length > 1 && doc.widthOfString(s) > width) s = s.slice(0, -1);
  }
  doc.text(s, x, y, { lineBreak: false });
}

// Two data columns keep the symbol near square and are the fastest to encode.
const pdf417 = (doc: Doc, data: string, x: number, y: number, w: number, h: number) => drawMatrixBarcode(doc, 'pdf417', data, x, y, w, h, { columns: 2 });

function watermark(doc: Doc): void {
  doc.save();
  doc.rotate(-56, { origin: [W / 2, H / 2] });
  doc.font('Helvetica-Bold').fontSize(24).fillColor('#c8c8c8');
  doc.text(SAMPLE_MARK, W / 2 - doc.widthOfString(SAMPLE_MARK) / 2, H / 2 - 12, { lineBreak: false });
  doc.restore();
}

function sampleBar(doc: Doc, y: number): void {
  doc.rect(0, y, W, 14).fill('black');
  doc.fillColor('white');
  line(doc, SAMPLE_MARK, 64, y + 3, 200, 9, true);
  doc.fillColor('black');
}

/** The header (carrier mark, template style, 2D barcode, ship facts) between y=14 and y=96. */
function header(doc: Doc, carrier: Carrier, request: LabelRequest, tracking: TrackingNumber, date: string): void {
  const weight = `${request.weight} ${request.weightUnit.toUpperCase()}`;
  const twoD = `SAMPLE|${tracking.tracking}|${request.to.zip}|${request.to.name.slice(0, 24)}`;
  const design = carrier === 'usps' && request.uid === 'priority' ? (request.design ?? 'normal') : 'normal';
  const letter = request.uid === 'ground_oz' ? 'G' : 'P';

  if (carrier === 'usps' && design === 'pitney') {
    // Pitney Bowes: indicia on the left, service letter on the right, double frame.
    doc.rect(M, 20, 150, 70).lineWidth(2).stroke();
    doc
      .rect(M + 3, 23, 144, 64)
      .lineWidth(0.5)
      .stroke();
    line(doc, 'PITNEY BOWES', M + 8, 27, 74, 8, true);
    line(doc, 'SAMPLE', M + 8, 38, 74, 8, true);
    line(doc, 'NO POSTAGE VALUE', M + 8, 49, 74, 7);
    line(doc, `${date}  ${weight}`, M + 8, 60, 74, 7);
    line(doc, `FROM ${request.from.zip}`, M + 8, 71, 74, 7);
    pdf417(doc, twoD, M + 84, 26, 60, 58);
    doc.rect(W - M - 70, 20, 70, 70).fill('black');
    doc
      .fillColor('white')
      .font('Helvetica-Bold')
      .fontSize(56)
      .text(letter, W - M - 54, 28, { lineBreak: false });
    doc.fillColor('black');
    return;
  }
  if (carrier === 'usps' && design === 'evs') {
    // eVS: a solid imprint block across the top, no letter box.
    doc
      .rect(M, 20, W - 2 * M, 70)
      .lineWidth(3)
      .stroke();
    doc.rect(M, 20, 92, 70).fill('black');
    doc.fillColor('white');
    line(doc, 'eVS', M + 14, 32, 70, 30, true);
    line(doc, 'SAMPLE IMPRINT', M + 8, 70, 78, 7, true);
    doc.fillColor('black');
    line(doc, 'USPS eVS SAMPLE - NO VALUE', M + 100, 26, 168, 8, true);
    line(doc, `${date}   ${weight}   FROM ${request.from.zip}`, M + 100, 38, 168, 7);
    pdf417(doc, twoD, M + 100, 50, 160, 36);
    return;
  }
  if (carrier === 'usps') {
    // Normal: service letter on the left, dashed indicia box on the right.
    doc.rect(M, 20, 70, 70).lineWidth(2).stroke();
    doc
      .font('Helvetica-Bold')
      .fontSize(60)
      .text(letter, M + 15, 28, { lineBreak: false });
    pdf417(doc, twoD, M + 78, 30, 90, 50);
    doc
      .rect(W - M - 104, 20, 104, 70)
      .lineWidth(1)
      .dash(3, { space: 2 })
      .stroke()
      .undash();
    line(doc, 'SAMPLE', W - M - 98, 25, 92, 9, true);
    line(doc, 'NO POSTAGE VALUE', W - M - 98, 37, 92, 7, true);
    line(doc, date, W - M - 98, 50, 92, 7);
    line(doc, weight, W - M - 98, 60, 92, 7);
    line(doc, `FROM ${request.from.zip}`, W - M - 98, 70, 92, 7);
    return;
  }
  if (carrier === 'fedex') {
    doc.font('Helvetica-Bold').fontSize(30).fillColor('#4d148c').text('Fed', M, 24, { lineBreak: false });
    doc.fillColor('#ff6600').text('Ex', M + 50, 24, { lineBreak: false });
    doc.fillColor('black');
    line(doc, 'Ground', M + 2, 56, 80, 11, true);
    line(doc, `SHIP DATE: ${date}`, M + 2, 72, 100, 7);
    line(doc, `ACTWGT: ${weight}`, M + 2, 81, 100, 7);
    pdf417(doc, twoD, M + 112, 24, W - 2 * M - 112, 62);
    return;
  }
  // UPS: the shield mark, the 2D block where a MaxiCode would go, ship facts.
  doc.rect(M, 20, 62, 70).fill('#351c15');
  doc
    .fillColor('#ffb500')
    .font('Helvetica-Bold')
    .fontSize(24)
    .text('UPS', M + 8, 42, { lineBreak: false });
  doc.fillColor('black');
  pdf417(doc, twoD, M + 70, 24, 110, 62);
  line(doc, `SHP WT: ${weight}`, M + 188, 28, 80, 8, true);
  line(doc, `DATE: ${date}`, M + 188, 42, 80, 7);
  line(doc, 'SAMPLE', M + 188, 56, 80, 12, true);
  line(doc, 'NO VALUE', M + 188, 72, 80, 8, true);
}

/**
 * A 4 x 6 inch sandbox label for one order: both addresses, service banner, weight, date, the
 * carrier's tracking barcode and a 2D barcode, marked 'SAMPLE - NOT VALID FOR POSTAGE' so it can
 * never pass as postage. Barcodes are vector rectangles (an image per label costs 5-10x the time).
 */
export function renderLabel(
  request: LabelRequest,
  tracking: TrackingNumber = trackingNumberFor(request.uid, request.orderId, request.to.zip),
): Promise<Buffer> {
  const carrier = carrierOf(request.uid);
  // The label is dated with the day it ships; an order made before ship dates, with the day it was made.
  const date = request.shipDate ?? request.createdAt.slice(0, 10);
  const doc = new PDFDocument({
    size: [W, H],
    margin: 0,
    info: { Title: `${SAMPLE_MARK} ${tracking.tracking}`, Producer: 'Label Portal sandbox', Creator: 'Label Portal sandbox' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  watermark(doc);
  sampleBar(doc, 0);
  header(doc, carrier, request, tracking, date);

  // Service banner.
  const design = request.uid === 'priority' ? request.design : null;
  doc.rect(0, 96, W, 26).fill(design === 'pitney' ? '#333333' : 'black');
  doc.fillColor('white');
  line(doc, BANNERS[request.uid] ?? request.serviceName.toUpperCase(), M, 102, W - 2 * M, 15, true);
  doc.fillColor('black');

  // From, with weight and dimensions beside it.
  const withCountry = carrier === 'ups';
  const withPhone = carrier === 'fedex';
  let y = 128;
  for (const text of addressLines(request.from, withPhone, withCountry)) {
    line(doc, text, M, y, 170, 8);
    y += 9.5;
  }
  line(doc, `WEIGHT: ${request.weight} ${request.weightUnit.toUpperCase()}`, 190, 128, 88, 7);
  if (request.length && request.width && request.height) line(doc, `DIMS: ${request.length}x${request.width}x${request.height} IN`, 190, 138, 88, 7);
  line(doc, request.shipDate ? `Ship date ${request.shipDate}` : `DATE: ${date}`, 190, 148, 88, 7);

  // Ship to.
  doc.moveTo(0, 196).lineTo(W, 196).lineWidth(1).stroke();
  line(doc, 'SHIP TO:', M, 202, 60, 7, true);
  y = 212;
  for (const text of addressLines(request.to, withPhone, withCountry)) {
    line(doc, text, M + 24, y, W - 2 * M - 24, 11, true);
    y += 13;
  }

  // Tracking barcode with its quiet zones, and the number printed under it.
  doc.rect(0, 294, W, 3).fill('black');
  const title = carrier === 'usps' ? 'USPS TRACKING # SAMPLE' : carrier === 'ups' ? 'TRACKING #: SAMPLE' : 'TRK# SAMPLE';
  line(doc, title, M, 302, 200, 9, true);
  drawLinearBarcode(doc, tracking.barcode.bcid, tracking.barcode.text, M, 316, W - 2 * M, 56);
  line(doc, tracking.display, M, 377, W - 2 * M, 11, true);
  doc.rect(0, 392, W, 3).fill('black');

  // Footer: the reference lines (35 characters fit at 7 pt), the mark again and who made it.
  const references = referenceLines(request);
  references.forEach((text, i) => line(doc, `REF${i + 1}: ${text}`, M, 397 + 7.5 * i, W - 2 * M, 7));
  const markY = references.length === 0 ? 400 : 398 + 7.5 * references.length;
  line(doc, SAMPLE_MARK, M, markY, W - 2 * M, references.length === 0 ? 13 : 9, true);
  line(
    doc,
    `Sandbox label for testing only. It carries no postage and must not be shipped. Order ${request.orderId.slice(0, 8).toUpperCase()}`,
    M,
    references.length === 0 ? 418 : markY + 10,
    W - 2 * M,
    6,
  );

  doc.end();
  return done;
}
