import PDFDocument from 'pdfkit';
import { FEDEX_PURPOSE_CODES, SHIPMENT_PURPOSE_LABELS, countryName, type FedexAddress, type FedexOrder } from '@portal/contract';
import { printedAs } from '@portal/contract/printed-as';
import { dayIn } from '../../lib/shop-time.ts';

/** US Letter in PDF points. */
const W = 612;
const H = 792;
const M = 40;
const BOTTOM = H - M;

type Doc = PDFKit.PDFDocument;

const money = (n: number) => n.toFixed(2);
/** Weights to three decimals at most, without trailing zeros. */
const weight = (n: number) => String(Math.round(n * 1000) / 1000);
const countryLine = (code: string) => `${countryName(code) ?? code} (${code})`;

/** The columns of the items table: x and width of each. */
const COLUMNS = [
  { key: 'no', title: '#', x: M, w: 18, align: 'left' },
  { key: 'description', title: 'Description', x: M + 18, w: 168, align: 'left' },
  { key: 'tariff', title: 'HS code', x: M + 190, w: 62, align: 'left' },
  { key: 'origin', title: 'Origin', x: M + 254, w: 34, align: 'left' },
  { key: 'units', title: 'Units', x: M + 290, w: 38, align: 'right' },
  { key: 'weight', title: 'Unit weight', x: M + 332, w: 54, align: 'right' },
  { key: 'value', title: 'Unit value', x: M + 390, w: 60, align: 'right' },
  { key: 'total', title: 'Line total', x: M + 454, w: 78, align: 'right' },
] as const;
type Column = (typeof COLUMNS)[number]['key'];

function addressBlock(doc: Doc, title: string, address: FedexAddress, x: number, y: number, width: number): number {
  doc.font('Helvetica-Bold').fontSize(9).text(title, x, y, { width });
  const lines = [
    address.name,
    address.street,
    address.street2,
    [address.city, address.state, address.zip].filter(Boolean).join(', '),
    countryLine(address.country),
    `Phone: ${address.phone}`,
    address.email ? `Email: ${address.email}` : '',
  ].filter(Boolean);
  doc.font('Helvetica').fontSize(9);
  let bottom = y + 13;
  for (const line of lines) {
    doc.text(printedAs(line), x, bottom, { width });
    bottom = doc.y + 1;
  }
  return bottom;
}

function tableHeader(doc: Doc, y: number): number {
  doc.rect(M, y, W - 2 * M, 16).fill('#e8e8e8');
  doc.fillColor('black').font('Helvetica-Bold').fontSize(8);
  for (const c of COLUMNS) doc.text(c.title, c.x + 2, y + 4, { width: c.w - 4, align: c.align, lineBreak: false });
  return y + 18;
}

/** A labelled fact: 'Label: value' in one line. */
function fact(doc: Doc, label: string, value: string, x: number, y: number, width: number): void {
  doc.font('Helvetica-Bold').fontSize(9).text(`${label}: `, x, y, { continued: true, width, lineBreak: false });
  doc.font('Helvetica').text(printedAs(value), { lineBreak: false });
}

/**
 * The commercial invoice customs need for an international FedEx order: shipper, consignee, each
 * item (description, HS code, country of manufacture, units, unit weight, unit value, line total),
 * the total value in the order's currency, the purpose with FedEx's code, and a signature line.
 * Country of manufacture is the sender's country (INTEGRATIONS section 11).
 */
export function renderCommercialInvoice(order: FedexOrder, timeZone: string): Promise<Buffer> {
  const doc = new PDFDocument({
    size: [W, H],
    margin: 0,
    bufferPages: true,
    info: { Title: `Commercial invoice ${order.uuid}`, Producer: 'Label Portal', Creator: 'Label Portal' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  doc
    .font('Helvetica-Bold')
    .fontSize(18)
    .text('COMMERCIAL INVOICE', M, M, { width: W - 2 * M, align: 'center' });
  const half = (W - 2 * M - 20) / 2;
  let y = M + 30;
  fact(doc, 'Invoice number', order.uuid, M, y, half);
  fact(doc, 'Date', dayIn(timeZone, Date.parse(order.createdAt)), M + half + 20, y, half);
  y += 14;
  fact(doc, 'Purpose', `${SHIPMENT_PURPOSE_LABELS[order.shipmentPurpose]} (${FEDEX_PURPOSE_CODES[order.shipmentPurpose]})`, M, y, half);
  fact(doc, 'Currency', order.currency, M + half + 20, y, half);
  y += 14;
  fact(doc, 'Carrier', 'FedEx International', M, y, half);
  fact(
    doc,
    'Package',
    `${weight(order.weight)} ${order.weightUnit}, ${order.length} x ${order.width} x ${order.height} ${order.dimensionUnit}`,
    M + half + 20,
    y,
    half,
  );
  y += 22;

  const left = addressBlock(doc, 'SHIPPER / EXPORTER', order.from, M, y, half);
  const right = addressBlock(doc, 'CONSIGNEE / RECEIVER', order.to, M + half + 20, y, half);
  y = Math.max(left, right) + 12;

  y = tableHeader(doc, y);
  const origin = order.from.country;
  let totalUnits = 0;
  let totalWeight = 0;
  for (const [i, item] of order.invoiceItems.entries()) {
    const lineTotal = Math.round(item.units * item.value * 100) / 100;
    totalUnits += item.units;
    totalWeight += item.units * item.weight;
    const cells: Record<Column, string> = {
      no: String(i + 1),
      description: printedAs(item.description),
      tariff: printedAs(item.tariff),
      origin,
      units: String(item.units),
      weight: `${weight(item.weight)} ${order.weightUnit}`,
      value: money(item.value),
      total: money(lineTotal),
    };
    doc.font('Helvetica').fontSize(8);
    const rowHeight = Math.max(...COLUMNS.map((c) => doc.heightOfString(cells[c.key], { width: c.w - 4 }))) + 6;
    if (y + rowHeight > BOTTOM - 20) {
      doc.addPage({ size: [W, H], margin: 0 });
      y = tableHeader(doc, M);
      doc.font('Helvetica').fontSize(8);
    }
    for (const c of COLUMNS) doc.text(cells[c.key], c.x + 2, y + 3, { width: c.w - 4, align: c.align });
    y += rowHeight;
    doc
      .moveTo(M, y)
      .lineTo(W - M, y)
      .lineWidth(0.5)
      .strokeColor('#bbbbbb')
      .stroke();
  }

  // Totals, the declaration and the signature line stay together on one page.
  if (y + 150 > BOTTOM) {
    doc.addPage({ size: [W, H], margin: 0 });
    y = M;
  }
  y += 8;
  doc.fillColor('black');
  fact(doc, 'Total units', String(totalUnits), M, y, 160);
  fact(doc, 'Total net weight', `${weight(totalWeight)} ${order.weightUnit}`, M + 170, y, 160);
  doc
    .font('Helvetica-Bold')
    .fontSize(11)
    .text(`Total value: ${money(order.totalValue)} ${order.currency}`, M, y - 1, { width: W - 2 * M, align: 'right' });
  y += 30;

  doc
    .font('Helvetica')
    .fontSize(9)
    .text(
      'I declare that all the information contained in this invoice is true and correct, and that the goods ' +
        `originate in ${printedAs(countryLine(origin))}.`,
      M,
      y,
      { width: W - 2 * M },
    );
  y = doc.y + 40;
  doc
    .moveTo(M, y)
    .lineTo(M + 240, y)
    .lineWidth(0.8)
    .strokeColor('black')
    .stroke();
  doc
    .moveTo(M + 300, y)
    .lineTo(W - M, y)
    .stroke();
  doc
    .font('Helvetica')
    .fontSize(8)
    .text('Signature of shipper / exporter', M, y + 4, { width: 240 });
  doc.text('Name and date', M + 300, y + 4, { width: W - 2 * M - 300 });
  doc
    .font('Helvetica')
    .fontSize(9)
    .text(printedAs(order.from.name), M + 300, y - 14, { width: W - 2 * M - 300, lineBreak: false });

  const pages = doc.bufferedPageRange();
  for (let i = 0; i < pages.count; i++) {
    doc.switchToPage(pages.start + i);
    doc.font('Helvetica').fontSize(7).fillColor('#666666');
    doc.text(`Commercial invoice ${order.uuid} - page ${i + 1} of ${pages.count}`, M, H - 28, { width: W - 2 * M, align: 'right', lineBreak: false });
  }
  doc.end();
  return done;
}
