import crypto from 'node:crypto';

export type Carrier = 'usps' | 'fedex' | 'ups';

export const carrierOf = (uid: string): Carrier => (uid.startsWith('ups_') ? 'ups' : uid.startsWith('fedex') ? 'fedex' : 'usps');

/** GS1 mod-10 (also USPS IMpb and FedEx Ground 96): weights 3,1,3,... from the rightmost data digit. */
export function mod10CheckDigit(digits: string): number {
  let sum = 0;
  for (let i = digits.length - 1, weight = 3; i >= 0; i--, weight = 4 - weight) sum += Number(digits[i]) * weight;
  return (10 - (sum % 10)) % 10;
}

/** UPS 1Z check digit over the 15 characters after '1Z': letters map to (code - 3) mod 10, odd positions count double. */
export function upsCheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    const n = c >= '0' && c <= '9' ? Number(c) : (c.charCodeAt(0) - 3) % 10;
    sum += i % 2 === 1 ? n * 2 : n;
  }
  return (10 - (sum % 10)) % 10;
}

/** `count` decimal digits derived from the seed: the same order always gets the same number. */
function digitsFrom(seed: string, count: number): string {
  const hash = crypto.createHash('sha256').update(seed).digest();
  let out = '';
  for (let i = 0; out.length < count; i++) out += String(hash[i % hash.length] % 10);
  return out;
}

// USPS service type codes (IMpb): 055 Priority Mail, 001 Ground Advantage.
const USPS_STC: Record<string, string> = { priority: '055', uspsv9: '055', ground_oz: '001' };
// The 2 service digits of a 1Z number.
const UPS_SERVICE: Record<string, string> = { ups_standard: '03', ups_express: '01', ups_express_saver: '13', ups_express_early: '15', ups_expedited: '02' };
/** A mailer id / shipper number reserved for samples, so a sandbox number never names a real account. */
const SAMPLE_USPS_MID = '999999999';
const SAMPLE_UPS_SHIPPER = '999AA1';

export type TrackingNumber = {
  /** What is printed and stored, without spaces. */
  tracking: string;
  /** Human-readable grouping as printed under the barcode. */
  display: string;
  /** Symbology and data of the tracking barcode (bwip-js ids). */
  barcode: { bcid: 'gs1-128' | 'code128'; text: string };
};

const groups = (s: string, size: number) => s.match(new RegExp(`.{1,${size}}`, 'g'))!.join(' ');

/** The carrier's tracking-number format, with its check digit, for an order (seeded by its id). */
export function trackingNumberFor(uid: string, seed: string, toZip: string): TrackingNumber {
  const carrier = carrierOf(uid);
  if (carrier === 'ups') {
    const body = `${SAMPLE_UPS_SHIPPER}${UPS_SERVICE[uid] ?? '03'}${digitsFrom(seed, 7)}`;
    const tracking = `1Z${body}${upsCheckDigit(body)}`;
    return {
      tracking,
      display: `1Z ${body.slice(0, 3)} ${body.slice(3, 6)} ${body.slice(6, 8)} ${body.slice(8, 12)} ${body.slice(12)}${tracking.slice(-1)}`,
      barcode: { bcid: 'code128', text: tracking },
    };
  }
  if (carrier === 'fedex') {
    const data = digitsFrom(seed, 14);
    const tracking = `${data}${mod10CheckDigit(data)}`;
    // FedEx Ground '96' barcode: 96, a 5-digit service/shipper block, then the 15-digit tracking number.
    return { tracking, display: groups(tracking, 4), barcode: { bcid: 'code128', text: `9612019${tracking}` } };
  }
  // IMpb: channel 94, service type code, mailer id, serial, check digit = 22 digits.
  const data = `94${USPS_STC[uid] ?? '055'}${SAMPLE_USPS_MID}${digitsFrom(seed, 7)}`;
  const tracking = `${data}${mod10CheckDigit(data)}`;
  const zip = toZip.replace(/\D/g, '');
  // GS1-128 with the destination ZIP routing code (420) before the tracking number.
  return { tracking, display: groups(tracking, 4), barcode: { bcid: 'gs1-128', text: `(420)${zip}(94)${tracking.slice(2)}` } };
}
