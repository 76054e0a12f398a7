import { PDFDocument, degrees, rgb } from 'pdf-lib';

/** US Letter in PDF points, and the half page each label gets. */
const LETTER_W = 612;
const LETTER_H = 792;
const HALF_H = LETTER_H / 2;

/**
 * 4x6 label PDFs laid out two to a US Letter page for office printers: each label turned a quarter (6 x 4 inches
 * across the page), centred in its half at full size (smaller only if it is larger than 4x6), with a dashed cut
 * line between the halves. Answers the Letter PDF.
 */
export async function letterPdf(labels: Uint8Array[]): Promise<Uint8Array> {
  const out = await PDFDocument.create();
  out.setTitle('Labels, two a page');
  out.setProducer('Label Portal');
  let page = null as ReturnType<typeof out.addPage> | null;
  for (let i = 0; i < labels.length; i++) {
    const source = await PDFDocument.load(labels[i]);
    if (i % 2 === 0) {
      page = out.addPage([LETTER_W, LETTER_H]);
      page.drawLine({
        start: { x: 18, y: HALF_H },
        end: { x: LETTER_W - 18, y: HALF_H },
        thickness: 0.75,
        color: rgb(0.4, 0.4, 0.4),
        dashArray: [6, 4],
      });
    }
    const first = source.getPage(0);
    // A page with nothing drawn (no content stream) cannot be embedded; its half stays blank, as the label is.
    if (!first.node.Contents()) continue;
    const label = await out.embedPage(first);
    // Turned a quarter, the label is label.height wide and label.width tall.
    const scale = Math.min(1, (LETTER_W - 36) / label.height, (HALF_H - 36) / label.width);
    const w = label.height * scale;
    const h = label.width * scale;
    const x = (LETTER_W - w) / 2;
    const y = (i % 2 === 0 ? HALF_H : 0) + (HALF_H - h) / 2;
    // Rotated 90 degrees about its origin, the page extends left of it: the origin goes at the right edge.
    page!.drawPage(label, { x: x + w, y, xScale: scale, yScale: scale, rotate: degrees(90) });
  }
  // Plain (no object streams): the merged file copies its objects' bytes as they are (bulk-results.ts).
  return out.save({ useObjectStreams: false });
}
