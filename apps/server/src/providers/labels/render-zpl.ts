import { printedAs } from '@portal/contract/printed-as';
import { SAMPLE_MARK, addressLines, referenceLines, type LabelRequest } from './label-provider.ts';
import { carrierOf, trackingNumberFor, type TrackingNumber } from './tracking-numbers.ts';

/** 4 x 6 inches at 203 dpi (8 dots a millimetre), in dots. */
export const ZPL_WIDTH = 812;
export const ZPL_HEIGHT = 1218;
const M = 28;

const CARRIER_NAMES = { usps: 'USPS', fedex: 'FedEx', ups: 'UPS' } as const;
const SERVICE_BANNERS: Record<string, string> = {
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

/** Field data with ^FH: the characters ZPL reads as commands (^ ~) and the escape itself (\) as hex. */
const fieldData = (text: string) => `^FH\\^FD${text.replace(/[\\^~]/g, (c) => `\\${c.charCodeAt(0).toString(16).toUpperCase()}`)}^FS`;

/** Scalable font 0's average glyph width, as a share of its height: enough to keep a line inside its width. */
const GLYPH = 0.58;

/** One line of text at (x, y), as the label prints it (printedAs), shrunk down to `min` dots and then cut to fit `width`. */
function text(x: number, y: number, width: number, size: number, value: string, options: { min?: number; reverse?: boolean } = {}): string {
  let s = printedAs(value);
  const min = options.min ?? 18;
  const h = Math.max(min, Math.min(size, Math.floor(width / (Math.max(1, s.length) * GLYPH))));
  const fits = Math.floor(width / (h * GLYPH));
  if (s.length > fits) s = s.slice(0, Math.max(1, fits));
  return `^FO${x},${y}^A0N,${h},${h}${options.reverse ? '^FR' : ''}${fieldData(s)}`;
}

const box = (x: number, y: number, w: number, h: number, thickness = h) => `^FO${x},${y}^GB${w},${h},${thickness}^FS`;

/**
 * A run of digits in Code 128 set C (pairs), an odd last digit in set B: ZPL's ^BC takes `>;` set C, `>6` set B, `>5`
 * set C again and `>8` FNC1.
 */
function setCDigits(digits: string): string {
  return digits.length % 2 === 0 ? digits : `${digits.slice(0, -1)}>6${digits.slice(-1)}>5`;
}

/** The ^BC field data of a tracking barcode: GS1-128 as set C with FNC1 first and after each variable-length AI, else Code 128. */
export function code128Data(barcode: TrackingNumber['barcode']): string {
  if (barcode.bcid === 'gs1-128') {
    const parts = [...barcode.text.matchAll(/\((\d+)\)([^(]*)/g)].map(([, ai, data]) => `${ai}${data}`);
    // Every part but the last is the ZIP routing code (420), variable length, so FNC1 ends it.
    return `>;>8${parts.map(setCDigits).join('>8')}`;
  }
  return /^\d+$/.test(barcode.text) && barcode.text.length % 2 === 0 ? `>;${barcode.text}` : `>:${barcode.text}`;
}

/**
 * The sandbox label of an order as ZPL II for a 4 x 6 inch thermal label at 203 dpi: the same facts as the PDF (both
 * addresses, service, weight, date, the tracking barcode as ^BC and a PDF417 as ^B7), marked
 * 'SAMPLE - NOT VALID FOR POSTAGE' at the top and the foot. Text is UTF-8 (^CI28), printed as the PDF prints it.
 */
export function renderZpl(request: LabelRequest, tracking: TrackingNumber = trackingNumberFor(request.uid, request.orderId, request.to.zip)): string {
  const carrier = carrierOf(request.uid);
  // Dated as the PDF is: the ship date, or the day an order made before ship dates was made.
  const date = request.shipDate ?? request.createdAt.slice(0, 10);
  const weight = `${request.weight} ${request.weightUnit.toUpperCase()}`;
  const twoD = `SAMPLE|${tracking.tracking}|${request.to.zip}|${printedAs(request.to.name).slice(0, 24)}`;
  const withCountry = carrier === 'ups';
  const withPhone = carrier === 'fedex';
  const out = [`^XA^CI28^PW${ZPL_WIDTH}^LL${ZPL_HEIGHT}^LH0,0`];

  // The SAMPLE bar, white on black.
  out.push(box(0, 0, ZPL_WIDTH, 44), text(120, 8, ZPL_WIDTH - 240, 30, SAMPLE_MARK, { reverse: true }));
  // Header: carrier and ship facts on the left, the 2D barcode on the right.
  out.push(text(M, 64, 300, 64, carrier === 'usps' ? `${CARRIER_NAMES.usps} ${request.uid === 'ground_oz' ? 'G' : 'P'}` : CARRIER_NAMES[carrier]));
  out.push(text(M, 140, 340, 26, 'SAMPLE - NO POSTAGE VALUE'));
  out.push(text(M, 174, 340, 24, `${date}   ${weight}`));
  out.push(text(M, 206, 340, 24, `FROM ${request.from.zip}`));
  out.push(`^FO440,60^BY2^B7N,5,2,4,,N${fieldData(twoD)}`);
  // Service banner.
  out.push(
    box(0, 262, ZPL_WIDTH, 72),
    text(M, 278, ZPL_WIDTH - 2 * M, 42, SERVICE_BANNERS[request.uid] ?? request.serviceName.toUpperCase(), { reverse: true }),
  );
  // From, with weight and dimensions beside it.
  let y = 352;
  for (const line of addressLines(request.from, withPhone, withCountry)) {
    out.push(text(M, y, 480, 24, line));
    y += 28;
  }
  out.push(text(536, 352, 250, 22, `WEIGHT: ${weight}`));
  if (request.length && request.width && request.height) out.push(text(536, 380, 250, 22, `DIMS: ${request.length}x${request.width}x${request.height} IN`));
  out.push(text(536, 408, 250, 22, request.shipDate ? `Ship date ${request.shipDate}` : `DATE: ${date}`));
  // Ship to.
  out.push(box(0, 552, ZPL_WIDTH, 3), text(M, 566, 200, 22, 'SHIP TO:'));
  y = 596;
  for (const line of addressLines(request.to, withPhone, withCountry)) {
    out.push(text(M + 68, y, ZPL_WIDTH - 2 * M - 68, 32, line));
    y += 36;
  }
  // The tracking barcode, 2 dots a module, with its number under it.
  out.push(box(0, 830, ZPL_WIDTH, 8));
  out.push(text(M, 850, 560, 26, carrier === 'usps' ? 'USPS TRACKING # SAMPLE' : carrier === 'ups' ? 'TRACKING #: SAMPLE' : 'TRK# SAMPLE'));
  out.push(`^FO60,890^BY2,3,150^BCN,150,N,N,N^FD${code128Data(tracking.barcode)}^FS`);
  out.push(text(M, 1052, ZPL_WIDTH - 2 * M, 32, tracking.display));
  out.push(box(0, 1096, ZPL_WIDTH, 8));
  // Footer: the reference lines (35 characters fit at 24 dots), the mark again and who made it.
  const references = referenceLines(request);
  references.forEach((line, i) => out.push(text(M, 1110 + 26 * i, ZPL_WIDTH - 2 * M, 24, `REF${i + 1}: ${line}`)));
  const markY = references.length === 0 ? 1116 : 1112 + 26 * references.length;
  out.push(text(M, markY, ZPL_WIDTH - 2 * M, references.length === 0 ? 40 : 28, SAMPLE_MARK));
  out.push(
    text(
      M,
      references.length === 0 ? 1172 : markY + 34,
      ZPL_WIDTH - 2 * M,
      18,
      `Sandbox label for testing only. It carries no postage and must not be shipped. Order ${request.orderId.slice(0, 8).toUpperCase()}`,
      {
        min: 14,
      },
    ),
  );
  out.push('^PQ1^XZ\n');
  return out.join('\n');
}
