import PDFDocument from 'pdfkit';
import { drawLinearBarcode } from './barcodes.ts';
import { SAMPLE_MARK, addressLines, type ScanFormRequest } from './label-provider.ts';

/** US Letter in PDF points. */
const W = 612;
const H = 792;
const M = 48;
const COLUMNS = 3;
const ROW = 10;
const FIRST_TOP = 270;

/**
 * The sandbox's SCAN form: a Letter-size PDF in the layout of USPS PS Form 5630 (from address, ship date, the count of
 * labels, one barcode for them all, then every tracking number), marked SAMPLE on every page so it never passes as a
 * form the carrier takes.
 */
export function renderScanForm(request: ScanFormRequest, name: string): Promise<Buffer> {
  const doc = new PDFDocument({ size: [W, H], margin: 0, info: { Title: `${SAMPLE_MARK} SCAN form ${name}`, Producer: 'Label Portal sandbox' } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const sampleBar = () => {
    doc.rect(0, 0, W, 22).fill('black');
    doc.fillColor('white').font('Helvetica-Bold').fontSize(12).text(SAMPLE_MARK, 0, 5, { width: W, align: 'center', lineBreak: false });
    doc.fillColor('black');
  };

  sampleBar();
  doc.font('Helvetica-Bold').fontSize(16).text(`${request.carrier} SCAN form (PS Form 5630 layout)`, M, 40, { lineBreak: false });
  doc.font('Helvetica').fontSize(10);
  doc.text(`Form ${name} · ship date ${request.shipDate} · ${request.labels.length} label${request.labels.length === 1 ? '' : 's'}`, M, 64, {
    lineBreak: false,
  });
  addressLines(request.from, false, true).forEach((text, i) => doc.text(text, M, 84 + i * 13, { lineBreak: false }));
  drawLinearBarcode(doc, 'code128', name, M, 170, 260, 60);
  doc.text(name, M, 234, { lineBreak: false });
  doc.font('Helvetica-Bold').fontSize(28).fillColor('#c8c8c8').text('SAMPLE', 360, 180, { lineBreak: false }).fillColor('black');

  // The tracking numbers, in columns, page after page.
  let next = 0;
  for (let page = 0; page === 0 || next < request.labels.length; page++) {
    const top = page === 0 ? FIRST_TOP : 40;
    const rows = Math.floor((H - top - 30) / ROW);
    if (page > 0) {
      doc.addPage({ size: [W, H], margin: 0 });
      sampleBar();
    }
    doc.font('Courier').fontSize(8);
    for (let i = 0; i < rows * COLUMNS && next < request.labels.length; i++, next++)
      doc.text(request.labels[next].tracking, M + Math.floor(i / rows) * 172, top + (i % rows) * ROW, { lineBreak: false });
  }
  doc.end();
  return done;
}
