import crypto from 'node:crypto';
import http from 'node:http';
import { PDFDocument } from 'pdf-lib';

/** Which calls a fault hits. */
export type FakeEasyPostCall =
  | 'create'
  | 'buy'
  | 'retrieve'
  | 'refund'
  | 'verify'
  | 'file'
  | 'convert'
  | 'form'
  | 'form-retrieve'
  | 'form-list'
  | 'pickup'
  | 'pickup-buy'
  | 'pickup-cancel'
  | 'pickup-retrieve';

/**
 * A switch: the next `count` calls of `on` (any call when omitted) answer 500, answer 429 with Retry-After, never answer
 * (the client times out), or (buy only) are bought and then the answer is lost (the connection is dropped) or garbled
 * (200 with the Shipment as it was before the purchase, no postage_label: an answer the client cannot use), or
 * (refund only) are refused with a 422 as a carrier that does not void the label, or (form only) are made and then the
 * answer is lost, or are handled `delayMs` late ('slow'),
 * or once `until` settles (a test's gate: the call is held exactly as long as the test needs, whatever the machine's speed).
 */
export type FakeEasyPostFault = {
  kind: '500' | '429' | 'hang' | 'lose' | 'garble' | 'refuse' | 'slow';
  on?: FakeEasyPostCall;
  count: number;
  retryAfterSeconds?: number;
  delayMs?: number;
  until?: Promise<unknown>;
};

export type FakeEasyPost = {
  /** The API root for EASYPOST_API_URL (ends with /). */
  url: string;
  apiKey: string;
  webhookSecret: string;
  shipments: Map<string, any>;
  /** The label file every purchase links to. */
  pdf: Buffer;
  /** Shipments bought (postage paid), each once. */
  purchases: number;
  /** Purchases by the Shipment's reference (our order id). */
  purchasesFor: Map<string, number>;
  /** Labels converted to ZPL (GET shipments/:id/label). */
  conversions: number;
  /** Every request it served, as "METHOD path". */
  requests: string[];
  /** Added before every answer. */
  latencyMs: number;
  /** Buys it takes in any second (counted over the last 1,000 ms on arrival); the next answer 429. 0: no limit. */
  purchasesPerSecond: number;
  /** 429s it answered for `purchasesPerSecond`. */
  rateLimited: number;
  /** When each buy arrived (performance.now() of this process). */
  buysArrived: number[];
  /**
   * What each Shipment's calls took here, by its id, in ms: from each request's arrival to the end of its answer (the
   * latency and the fake's own work). The benchmark's measure of the upstream's part of an order.
   */
  answeredInMs: Map<string, number>;
  faults: FakeEasyPostFault[];
  /** Pickups made, by id, with what each was bought and cancelled. */
  pickups: Map<string, any>;
  /** Pickups bought (scheduled), each once. */
  pickupPurchases: number;
  /** ScanForms made, by id; each Shipment is on one at most. */
  scanForms: Map<string, any>;
  /**
   * What a new ScanForm answers: 'created' at once (its form_url set), or 'creating' until it is next retrieved (or
   * listed), as EasyPost makes a large form in the background.
   */
  scanFormStatus: 'created' | 'creating';
  /**
   * The largest declared value it insures on buy (dollars): a buy asking more is refused (422) and buys nothing, as a
   * carrier's cap or an excluded item refuses insurance. Insurance costs 1 % of the value, at least $1 (EasyPost's price).
   */
  insuranceCap: number;
  /** A street1 the fake cannot verify or rate: creating a shipment to it answers 422, as EasyPost does for an unknown address. */
  unverifiableStreet: string;
  /**
   * A service's rate in dollars as EasyPost writes it ('7.58'), by service name, in place of the fake's own (fakeRate)
   * wherever that service is rated; it makes no service rated where the fake rates none.
   */
  rates: Record<string, string>;
  /** Carriers that answer a rate error ('not available right now'): no rates of theirs, a message in the Shipment's `messages`. */
  rateErrors: Set<string>;
  /** Refunds asked for and accepted (refund_status set to submitted), each Shipment once. */
  refunds: number;
  /**
   * The refund switch: what a submitted refund comes to when it is next retrieved: 'approve' (refunded), 'reject'
   * (rejected), or 'hold' (it stays submitted until settleRefund).
   */
  refundDecision: 'approve' | 'reject' | 'hold';
  /** Settles a submitted refund now: the Shipment's refund_status, and the refund event EasyPost sends about it. */
  settleRefund(shipmentId: string, status: 'refunded' | 'rejected'): Record<string, unknown>;
  /** A tracker.updated event of a bought Shipment, as EasyPost sends it. */
  trackerEvent(shipmentId: string, status: string): Record<string, unknown>;
  /** Posts a signed event (or one signed with `secret`) to `url`, as EasyPost's webhooks do: the receiver's status. */
  deliver(url: string, event: Record<string, unknown>, options?: { secret?: string }): Promise<{ status: number; body: string }>;
  /**
   * Stops taking connections (false: each new one is refused, open ones are closed, answers under way are lost) or
   * takes them again on the same port: an upstream that goes down and comes back.
   */
  listen(on: boolean): Promise<void>;
  close(): Promise<void>;
};

/** Where a Shipment goes, as far as the carriers' services go. */
type Route = 'US' | 'CA' | 'US-CA';
/** How the fake prices a service: (base + perLb × pounds) × (1 + perZone × (zone − 1)), in days from fastest to slowest zone. */
type Tariff = { base: number; perLb: number; perZone: number; days: [number, number] };
const tariff = (base: number, perLb: number, perZone: number, days: [number, number]): Tariff => ({ base, perLb, perZone, days });

/**
 * What EasyPost rates, by route and carrier, under its own service names (a carrier rates nothing on a route it is
 * absent from: USPS and FedEx inside Canada). The numbers are near the carriers' published commercial rates of 2025.
 */
const TARIFFS: Record<Route, [carrier: string, service: string, Tariff][]> = {
  US: [
    ['USPS', 'GroundAdvantage', tariff(3.5, 1.7, 0.09, [2, 5])],
    ['USPS', 'Priority', tariff(6.2, 1.6, 0.11, [1, 3])],
    ['USPS', 'Express', tariff(24, 2.8, 0.1, [1, 2])],
    ['FedEx', 'FEDEX_GROUND', tariff(6.4, 0.8, 0.08, [1, 5])],
    ['FedEx', 'FEDEX_2_DAY', tariff(18, 2.5, 0.12, [2, 2])],
    ['FedEx', 'STANDARD_OVERNIGHT', tariff(34, 4, 0.1, [1, 1])],
    ['UPS', 'Ground', tariff(10.5, 0.9, 0.08, [1, 5])],
    ['UPS', '3DaySelect', tariff(16, 2, 0.1, [3, 3])],
    ['UPS', '2ndDayAir', tariff(21, 2.6, 0.11, [2, 2])],
    ['UPS', 'NextDayAirSaver', tariff(33, 3.8, 0.1, [1, 1])],
    ['UPS', 'NextDayAir', tariff(37, 4.2, 0.1, [1, 1])],
    ['UPS', 'NextDayAirEarlyAM', tariff(68, 4.5, 0.08, [1, 1])],
  ],
  CA: [
    ['UPS', 'UPSStandard', tariff(11, 1.1, 0.09, [1, 6])],
    ['UPS', 'Expedited', tariff(19, 2, 0.1, [2, 3])],
    ['UPS', 'UPSSaver', tariff(27, 3, 0.1, [1, 1])],
    ['UPS', 'Express', tariff(30, 3.3, 0.1, [1, 1])],
    ['UPS', 'ExpressPlus', tariff(58, 3.8, 0.08, [1, 1])],
  ],
  'US-CA': [
    ['USPS', 'PriorityMailInternational', tariff(42, 3.2, 0.03, [6, 10])],
    ['UPS', 'UPSStandard', tariff(24, 2.2, 0.05, [3, 6])],
    ['UPS', 'Expedited', tariff(38, 3, 0.05, [2, 4])],
    ['UPS', 'Express', tariff(52, 3.6, 0.05, [1, 2])],
    ['FedEx', 'INTERNATIONAL_ECONOMY', tariff(45, 4, 0.05, [3, 5])],
  ],
};

/** Canadian postal codes' first letters (their regions), east to west. */
const CA_REGIONS = 'ABCEGHJKLMNPRSTVXY';
const US_ZIP = /^\d{5}(-\d{4})?$/;
const CA_POSTAL_CODE = /^[A-Z]\d[A-Z] ?\d[A-Z]\d$/i;

/** A ZIP's country by its shape ('US' or 'CA'), or null. */
const countryOfZip = (zip: string) => (US_ZIP.test(zip.trim()) ? 'US' : CA_POSTAL_CODE.test(zip.trim()) ? 'CA' : null);

/** Where a ZIP lies from east (0) to west (1): a US ZIP by its first 3 digits, a Canadian one by its first letter. */
function position(zip: string): number {
  const code = zip.trim().toUpperCase();
  const country = countryOfZip(code);
  if (country === 'US') return Number(code.slice(0, 3)) / 999;
  if (country === 'CA') return CA_REGIONS.indexOf(code[0]) / (CA_REGIONS.length - 1);
  return 0.5;
}

/** The distance between two ZIPs as a zone: 1 (the same area) to 8 (across the continent). */
const zoneOf = (fromZip: string, toZip: string) => 1 + Math.round(Math.abs(position(fromZip) - position(toZip)) * 7);

/** An address's country: its `country` (ISO code), or the shape of its ZIP when it has none. */
const countryOf = (address: { country?: unknown; zip?: unknown }) =>
  address.country ? String(address.country).toUpperCase() : countryOfZip(String(address.zip ?? ''));

function routeOf(from: string | null, to: string | null): Route | null {
  if (from === 'US' && to === 'US') return 'US';
  if (from === 'CA' && to === 'CA') return 'CA';
  if ((from === 'US' && to === 'CA') || (from === 'CA' && to === 'US')) return 'US-CA';
  return null;
}

/** The heaviest parcel each carrier takes, in ounces: USPS 70 lb, UPS and FedEx 150 lb. */
const MAX_OUNCES: Record<string, number> = { USPS: 1120, UPS: 2400, FedEx: 2400 };

/** Over the carrier's size: USPS length + girth over 130 in; UPS and FedEx longest side over 108 in or length + girth over 165 in. */
function oversize(carrier: string, parcel: { length?: unknown; width?: unknown; height?: unknown }): boolean {
  const sides = [parcel.length, parcel.width, parcel.height].map(Number).sort((a, b) => b - a);
  if (!sides.every((side) => side > 0)) return false; // no dimensions: rated by weight alone
  const lengthAndGirth = sides[0] + 2 * (sides[1] + sides[2]);
  return carrier === 'USPS' ? lengthAndGirth > 130 : sides[0] > 108 || lengthAndGirth > 165;
}

/** Pounds as the carriers count them: quarter pounds under a pound, whole pounds above, rounded up. */
const billedPounds = (ounces: number) => (ounces < 16 ? Math.ceil(ounces / 4) / 4 : Math.ceil(ounces / 16));
const priced = (t: Tariff, ounces: number, zone: number) =>
  (Math.round((t.base + t.perLb * billedPounds(ounces)) * (1 + t.perZone * (zone - 1)) * 100) / 100).toFixed(2);
const daysOf = (t: Tariff, zone: number) => t.days[0] + Math.round(((t.days[1] - t.days[0]) * (zone - 1)) / 7);
const tariffOf = (route: Route | null, carrier: string, service: string) =>
  route ? TARIFFS[route].find(([c, s]) => c === carrier && s === service)?.[2] : undefined;

/**
 * The fake's own rate (dollars, as EasyPost writes it: '7.58') of a carrier's service for a parcel of `ounces` between
 * two ZIPs (the route read from their shapes), or null when the fake does not rate it: not a service of the route, or
 * over the carrier's weight. What a test or the benchmark expects an order to cost, when it sets no `fake.rates`.
 */
export function fakeRate(carrier: string, service: string, ounces: number, fromZip: string, toZip: string): string | null {
  const t = tariffOf(routeOf(countryOfZip(fromZip), countryOfZip(toZip)), carrier, service);
  if (!t || !(ounces > 0) || ounces > MAX_OUNCES[carrier]) return null;
  return priced(t, ounces, zoneOf(fromZip, toZip));
}

/** The fake's est_delivery_days of a carrier's service between two ZIPs, or null when it is not a service of their route. */
export function fakeDeliveryDays(carrier: string, service: string, fromZip: string, toZip: string): number | null {
  const t = tariffOf(routeOf(countryOfZip(fromZip), countryOfZip(toZip)), carrier, service);
  return t ? daysOf(t, zoneOf(fromZip, toZip)) : null;
}

/** The messages a carrier that cannot rate a Shipment leaves in its `messages`. */
export const RATE_ERRORS = {
  overWeight: (carrier: string) => `${carrier}: the parcel's weight is over the carrier's maximum of ${MAX_OUNCES[carrier] / 16} lb.`,
  overSize: (carrier: string) => `${carrier}: the parcel's dimensions are over the carrier's maximum size.`,
  unavailable: (carrier: string) => `${carrier}: rates are not available right now; the carrier did not answer.`,
};

/** The label file: one blank 4x6 inch page. */
async function labelPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([288, 432]);
  return Buffer.from(await doc.save());
}

const id = (prefix: string) => `${prefix}_${crypto.randomBytes(16).toString('hex')}`;

/**
 * The signature EasyPost sends in X-Hmac-Signature: HMAC-SHA256 (hex) with the NFKD-normalised secret, over the body as
 * EasyPost wrote it, whose whole weights carry a '.0' (the official client's validateWebhook puts it back before checking).
 */
export const easyPostSignature = (body: string, secret: string) =>
  `hmac-sha256-hex=${crypto
    .createHmac('sha256', secret.normalize('NFKD'))
    .update(body.replace(/("weight":\s*)(\d+)(\s*)(?=,|\})/g, '$1$2.0'), 'utf8')
    .digest('hex')}`;

/**
 * A local stand-in for the documented subset of EasyPost's API the official client calls: POST shipments (rated at once,
 * strictly: only the services EasyPost rates on the Shipment's route (TARIFFS), within each carrier's weight and size,
 * the others' reasons in `messages`), POST shipments/:id/buy, GET shipments/:id, POST shipments/:id/refund, POST addresses/create_and_verify,
 * the label file (GET /files/:id.pdf), its conversion to ZPL (GET shipments/:id/label, then /files/:id.zpl) and signed webhook events. HTTP Basic auth with the key as user name; errors as
 * {"error": {"code", "message", "errors"}}. It counts purchases, and a second buy of a Shipment is refused (422).
 */
export async function startFakeEasyPost(options: { apiKey?: string; webhookSecret?: string } = {}): Promise<FakeEasyPost> {
  const apiKey = options.apiKey ?? 'EZTKfake0123456789';
  const webhookSecret = options.webhookSecret ?? 'fake-easypost-webhook-secret';
  let origin = '';
  const pdf = await labelPdf();

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const refuse = (res: http.ServerResponse, status: number, code: string, message: string, errors: unknown[] = []) =>
    send(res, status, { error: { code, message, errors } });

  /** The fault this call meets, used up by one. */
  const faultFor = (call: FakeEasyPostCall) => {
    const fault = fake.faults.find((f) => f.count > 0 && (!f.on || f.on === call));
    if (fault) fault.count--;
    return fault;
  };

  const callOf = (method: string, path: string): FakeEasyPostCall | null => {
    if (method === 'POST' && path === '/v2/shipments') return 'create';
    if (method === 'POST' && /^\/v2\/shipments\/[^/]+\/buy$/.test(path)) return 'buy';
    if (method === 'GET' && /^\/v2\/shipments\/[^/]+$/.test(path)) return 'retrieve';
    if (method === 'POST' && /^\/v2\/shipments\/[^/]+\/refund$/.test(path)) return 'refund';
    if (method === 'POST' && path === '/v2/addresses/create_and_verify') return 'verify';
    if (method === 'GET' && /^\/v2\/shipments\/[^/]+\/label$/.test(path)) return 'convert';
    if (method === 'POST' && path === '/v2/pickups') return 'pickup';
    if (method === 'POST' && /^\/v2\/pickups\/[^/]+\/buy$/.test(path)) return 'pickup-buy';
    if (method === 'POST' && /^\/v2\/pickups\/[^/]+\/cancel$/.test(path)) return 'pickup-cancel';
    if (method === 'GET' && /^\/v2\/pickups\/[^/]+$/.test(path)) return 'pickup-retrieve';
    if (method === 'POST' && path === '/v2/scan_forms') return 'form';
    if (method === 'GET' && path === '/v2/scan_forms') return 'form-list';
    if (method === 'GET' && /^\/v2\/scan_forms\/[^/]+$/.test(path)) return 'form-retrieve';
    if (method === 'GET' && /^\/files\/[^/]+\.pdf$/.test(path)) return 'file';
    if (method === 'GET' && /^\/files\/[^/]+\.zpl$/.test(path)) return 'file';
    return null;
  };

  const overLimit = (arrivedAt: number) => {
    const arrived = fake.buysArrived;
    arrived.push(arrivedAt);
    let inLastSecond = 0;
    for (let i = arrived.length - 1; i >= 0 && arrivedAt - arrived[i] < 1000; i--) inLastSecond++;
    return fake.purchasesPerSecond > 0 && inLastSecond > fake.purchasesPerSecond;
  };

  function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string, arrivedAt: number, delayed = false) {
    const path = (req.url ?? '').split('?')[0];
    if (!delayed) fake.requests.push(`${req.method} ${path}`);
    const call = callOf(req.method ?? '', path);
    if (!call) return refuse(res, 404, 'NOT_FOUND', 'The requested resource could not be found.');
    if (call === 'buy' && !delayed && overLimit(arrivedAt)) {
      fake.rateLimited++;
      return send(res, 429, { error: { code: 'RATE_LIMITED', message: 'You have exceeded the rate limit.', errors: [] } }, { 'retry-after': '1' });
    }
    const fault = delayed ? undefined : faultFor(call);
    if (fault?.kind === 'slow' && fault.until) return void fault.until.then(() => handle(req, res, raw, arrivedAt, true));
    if (fault?.kind === 'slow') return void setTimeout(() => handle(req, res, raw, arrivedAt, true), fault.delayMs ?? 300);
    if (fault?.kind === 'hang') return; // never answered; the client's timeout gives up
    if (fault?.kind === '500') return refuse(res, 500, 'INTERNAL_SERVER_ERROR', 'We experienced an internal error.');
    if (fault?.kind === '429')
      return send(
        res,
        429,
        { error: { code: 'RATE_LIMITED', message: 'You have exceeded the rate limit.', errors: [] } },
        { 'retry-after': String(fault.retryAfterSeconds ?? 1) },
      );
    if (call === 'file') {
      answeredFor(res, labelShipments.get(path));
      if (path.endsWith('.zpl')) {
        const zpl = zplFiles.get(path);
        if (!zpl) return refuse(res, 404, 'NOT_FOUND', 'The requested resource could not be found.');
        res.writeHead(200, { 'content-type': 'application/zpl' });
        return res.end(zpl);
      }
      res.writeHead(200, { 'content-type': 'application/pdf' });
      return res.end(pdf);
    }
    if (req.headers.authorization !== `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`)
      return refuse(res, 401, 'APIKEY.INACTIVE', 'This api key is no longer active.');
    let body: any = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      return refuse(res, 400, 'BAD_REQUEST', 'The request could not be parsed.');
    }
    if (call === 'form') return makeScanForm(res, body, fault);
    if (call === 'pickup') return makePickup(res, body.pickup ?? body);
    if (call === 'pickup-buy' || call === 'pickup-cancel' || call === 'pickup-retrieve') {
      const pickup = fake.pickups.get(path.split('/')[3]);
      if (!pickup) return refuse(res, 404, 'NOT_FOUND', 'The requested resource could not be found.');
      if (call === 'pickup-retrieve') return send(res, 200, pickup);
      if (call === 'pickup-buy') {
        if (pickup.status !== 'unknown') return refuse(res, 422, 'PICKUP.ALREADY_BOOKED', `The pickup is ${pickup.status}.`);
        const rate = pickup.pickup_rates.find((r: any) => r.carrier === body.carrier && r.service === body.service);
        if (!rate) return refuse(res, 422, 'PICKUP.RATE.INVALID', 'No pickup rate of this carrier and service.');
        pickup.status = 'scheduled';
        pickup.confirmation = `WTC${String(++pickupSerial).padStart(8, '0')}`;
        fake.pickupPurchases++;
        if (fault?.kind === 'lose') return res.socket?.destroy(); // booked upstream; the answer never arrives
        return send(res, 200, pickup);
      }
      if (pickup.status !== 'scheduled') return refuse(res, 422, 'PICKUP.CANCEL.INVALID', `A ${pickup.status} pickup cannot be cancelled.`);
      if (Date.parse(pickup.min_datetime) <= Date.now()) return refuse(res, 422, 'PICKUP.CANCEL.TOO_LATE', 'The pickup window has started.');
      pickup.status = 'canceled';
      return send(res, 200, pickup);
    }
    if (call === 'form-list') {
      // Newest first, page_size at most 100 (EasyPost's list calls).
      const size = Math.min(100, Number(new URL(req.url ?? '', origin).searchParams.get('page_size') ?? 20) || 20);
      const forms = [...fake.scanForms.values()].reverse().map(ripen);
      return send(res, 200, { scan_forms: forms.slice(0, size), has_more: forms.length > size });
    }
    if (call === 'form-retrieve') {
      const form = fake.scanForms.get(path.split('/')[3]);
      if (!form) return refuse(res, 404, 'NOT_FOUND', 'The requested resource could not be found.');
      return send(res, 200, ripen(form));
    }
    const shipmentId = path.split('/')[3];

    if (call === 'verify') {
      const address = body.address ?? {};
      if (address.street1 === fake.unverifiableStreet)
        return refuse(res, 422, 'ADDRESS.VERIFY.FAILURE', 'Unable to verify address.', [{ field: 'address', message: 'Address not found' }]);
      return send(res, 200, {
        address: {
          id: id('adr'),
          object: 'Address',
          ...address,
          street1: String(address.street1 ?? '').toUpperCase(),
          verifications: { delivery: { success: true, errors: [] } },
        },
      });
    }
    if (call === 'create') {
      const s = body.shipment ?? {};
      if (!s.to_address || !s.from_address || !s.parcel) return refuse(res, 422, 'SHIPMENT.INVALID_PARAMS', 'Missing required parameter.', []);
      if (s.to_address.street1 === fake.unverifiableStreet) {
        return refuse(res, 422, 'ADDRESS.VERIFY.FAILURE', 'Unable to verify address.', [{ field: 'to_address.street1', message: 'Address not found' }]);
      }
      const ounces = Number(s.parcel.weight);
      if (!(ounces > 0)) return refuse(res, 422, 'PARCEL.WEIGHT.INVALID', 'Parcel weight must be greater than 0 ounces.');
      const shipment = {
        id: id('shp'),
        object: 'Shipment',
        mode: apiKey.startsWith('EZTK') ? 'test' : 'production',
        reference: s.reference ?? null,
        // A return keeps the addresses as sent (the original shipment's); its label goes from to_address to from_address.
        is_return: s.is_return === true,
        to_address: { id: id('adr'), object: 'Address', ...s.to_address },
        from_address: { id: id('adr'), object: 'Address', ...s.from_address },
        parcel: { id: id('prcl'), object: 'Parcel', ...s.parcel },
        // As sent (label_date, print_custom_1/2...): a test reads what went upstream here.
        options: { ...s.options },
        rates: [] as any[],
        selected_rate: null,
        postage_label: null,
        tracking_code: null,
        refund_status: null,
        messages: [] as { carrier: string; carrier_account_id: string; type: 'rate_error'; message: string }[],
        created_at: new Date().toISOString(),
      };
      const [origin, destination] = shipment.is_return ? [s.to_address, s.from_address] : [s.from_address, s.to_address];
      const fromZip = String(origin.zip ?? '');
      const toZip = String(destination.zip ?? '');
      const route = routeOf(countryOf(origin), countryOf(destination));
      const zone = zoneOf(fromZip, toZip);
      const services = route ? TARIFFS[route] : [];
      // Each carrier of the route rates its services, or leaves a message saying why it cannot.
      for (const carrier of new Set(services.map(([c]) => c))) {
        const account = `ca_${carrier.toLowerCase()}`;
        const refusal = fake.rateErrors.has(carrier)
          ? RATE_ERRORS.unavailable(carrier)
          : ounces > MAX_OUNCES[carrier]
            ? RATE_ERRORS.overWeight(carrier)
            : oversize(carrier, s.parcel)
              ? RATE_ERRORS.overSize(carrier)
              : null;
        if (refusal) {
          shipment.messages.push({ carrier, carrier_account_id: account, type: 'rate_error', message: refusal });
          continue;
        }
        for (const [, service, t] of services.filter(([c]) => c === carrier)) {
          const rate = fake.rates[service] ?? priced(t, ounces, zone);
          const days = daysOf(t, zone);
          shipment.rates.push({
            id: id('rate'),
            object: 'Rate',
            mode: shipment.mode,
            carrier,
            service,
            rate,
            currency: 'USD',
            list_rate: (Number(rate) * 1.1).toFixed(2),
            list_currency: 'USD',
            retail_rate: (Number(rate) * 1.25).toFixed(2),
            retail_currency: 'USD',
            est_delivery_days: days,
            delivery_days: days,
            delivery_date: null,
            delivery_date_guaranteed: false,
            shipment_id: shipment.id,
            carrier_account_id: account,
            created_at: shipment.created_at,
          });
        }
      }
      fake.shipments.set(shipment.id, shipment);
      answeredFor(res, shipment.id);
      return send(res, 201, shipment);
    }
    const shipment = fake.shipments.get(shipmentId);
    if (!shipment) return refuse(res, 404, 'SHIPMENT.NOT_FOUND', 'The requested resource could not be found.');
    answeredFor(res, shipment.id);
    if (call === 'convert') {
      // GET shipments/:id/label?file_format=ZPL: the label of a bought Shipment in another format, linked from postage_label.
      const format = new URL(req.url ?? '', origin).searchParams.get('file_format');
      if (!shipment.postage_label) return refuse(res, 422, 'SHIPMENT.POSTAGE.MISSING', 'This shipment has no postage label.');
      if (format !== 'ZPL') return refuse(res, 422, 'SHIPMENT.LABEL.FORMAT', 'The file format is not supported by this fake.');
      const file = `/files/${shipment.postage_label.id}.zpl`;
      labelShipments.set(file, shipment.id);
      zplFiles.set(file, `^XA^PW812^LL1218^FO40,40^A0N,40,40^FDEASYPOST FAKE^FS^FO60,200^BY2^BCN,150,N,N,N^FD>:${shipment.tracking_code}^FS^XZ\n`);
      fake.conversions++;
      shipment.postage_label = { ...shipment.postage_label, label_zpl_url: `${origin}${file}` };
      return send(res, 200, shipment);
    }
    if (call === 'retrieve') {
      if (shipment.refund_status === 'submitted' && fake.refundDecision !== 'hold')
        shipment.refund_status = fake.refundDecision === 'approve' ? 'refunded' : 'rejected';
      return send(res, 200, shipment);
    }
    if (call === 'refund') {
      if (fault?.kind === 'refuse') return refuse(res, 422, 'SHIPMENT.REFUND.UNAVAILABLE', 'The carrier does not refund this label.');
      if (!shipment.postage_label) return refuse(res, 422, 'SHIPMENT.REFUND.UNAVAILABLE', 'This shipment has no postage to refund.');
      if (shipment.refund_status) return refuse(res, 422, 'SHIPMENT.REFUND.ALREADY_SUBMITTED', 'A refund was already submitted for this shipment.');
      shipment.refund_status = 'submitted';
      fake.refunds++;
      return send(res, 200, shipment);
    }
    // buy
    if (shipment.postage_label) return refuse(res, 422, 'SHIPMENT.POSTAGE.EXISTS', 'Postage already exists for this shipment.');
    const rate = shipment.rates.find((r: any) => r.id === body.rate?.id);
    if (!rate) return refuse(res, 422, 'SHIPMENT.RATE.INVALID', 'The rate is not a rate of this shipment.');
    // Insurance on buy: a dollar amount as text ("249.99"), bought with the postage or the whole buy refused.
    const insured = body.insurance === undefined || body.insurance === null ? null : Number(body.insurance);
    if (insured !== null && !(insured > 0 && /^\d+(\.\d{1,2})?$/.test(String(body.insurance))))
      return refuse(res, 422, 'SHIPMENT.INSURANCE.INVALID', 'Insurance must be a dollar amount such as "249.99".');
    if (insured !== null && insured > fake.insuranceCap)
      return refuse(
        res,
        422,
        'SHIPMENT.INSURANCE.INVALID',
        `Insurance of $${insured.toFixed(2)} is above the maximum of $${fake.insuranceCap.toFixed(2)} for this shipment.`,
      );
    const labelId = id('pl');
    shipment.selected_rate = rate;
    shipment.insurance = insured === null ? null : insured.toFixed(2);
    const fee = (type: string, amount: number) => ({ object: 'Fee', type, amount: amount.toFixed(5), charged: true, refunded: false });
    shipment.fees = [
      fee('LabelFee', 0),
      fee('PostageFee', Number(rate.rate)),
      ...(insured === null ? [] : [fee('InsuranceFee', Math.max(1, Math.round(insured) / 100))]),
    ];
    shipment.tracking_code = `EZ${String(++trackingSerial).padStart(10, '0')}`;
    shipment.postage_label = {
      id: labelId,
      object: 'PostageLabel',
      label_file_type: 'application/pdf',
      label_size: '4x6',
      label_resolution: 300,
      label_url: `${origin}/files/${labelId}.pdf`,
      label_pdf_url: `${origin}/files/${labelId}.pdf`,
    };
    labelShipments.set(`/files/${labelId}.pdf`, shipment.id);
    shipment.tracker = {
      id: id('trk'),
      object: 'Tracker',
      tracking_code: shipment.tracking_code,
      status: 'pre_transit',
      public_url: `${origin}/track/${shipment.tracking_code}`,
    };
    fake.purchases++;
    fake.purchasesFor.set(shipment.reference, (fake.purchasesFor.get(shipment.reference) ?? 0) + 1);
    if (fault?.kind === 'garble') return send(res, 200, { ...shipment, postage_label: null, tracking_code: null });
    if (fault?.kind === 'lose') return req.socket.destroy(); // bought upstream; the answer never arrives
    return send(res, 200, shipment);
  }

  /** A form made 'creating' is created when it is next read. */
  function ripen(form: any) {
    if (form.status === 'creating') {
      form.status = 'created';
      form.form_url = `${origin}/files/${form.id}.pdf`;
    }
    return form;
  }

  /**
   * POST /scan_forms ({scan_form: {shipments: [{id}]}}, as the official client sends it): refused (422) unless every
   * Shipment is bought, not refunded, on no other form, dated today or later, and all share one from address and one
   * carrier account; EasyPost's rules for a form the carrier scans as one.
   */
  function makeScanForm(res: http.ServerResponse, body: any, fault: FakeEasyPostFault | undefined) {
    const asked: unknown[] = (body.scan_form ?? body).shipments ?? [];
    const refuseForm = (message: string) => refuse(res, 422, 'SCAN_FORM.INVALID', message);
    if (!Array.isArray(asked) || asked.length === 0) return refuseForm('A ScanForm needs at least one shipment.');
    const shipments: any[] = [];
    for (const entry of asked) {
      const shipment = fake.shipments.get(typeof entry === 'string' ? entry : ((entry as { id?: string })?.id ?? ''));
      if (!shipment) return refuse(res, 404, 'SHIPMENT.NOT_FOUND', 'The requested resource could not be found.');
      if (!shipment.postage_label) return refuseForm(`Shipment ${shipment.id} has no postage.`);
      if (shipment.refund_status) return refuseForm(`Shipment ${shipment.id} was refunded (${shipment.refund_status}) and cannot be on a ScanForm.`);
      if (formOfShipment.has(shipment.id)) return refuseForm(`Shipment ${shipment.id} is already on ScanForm ${formOfShipment.get(shipment.id)}.`);
      const labelDay = String(shipment.options?.label_date ?? shipment.created_at).slice(0, 10);
      if (labelDay < new Date().toISOString().slice(0, 10)) return refuseForm(`Shipment ${shipment.id} has a label_date in the past (${labelDay}).`);
      shipments.push(shipment);
    }
    const addressOf = (s: any) =>
      JSON.stringify(['name', 'company', 'street1', 'street2', 'city', 'state', 'zip', 'country'].map((k) => String(s.from_address?.[k] ?? '').toUpperCase()));
    if (new Set(shipments.map(addressOf)).size > 1) return refuseForm('All shipments of a ScanForm must have the same from address.');
    if (new Set(shipments.map((s) => s.selected_rate?.carrier_account_id)).size > 1)
      return refuseForm('All shipments of a ScanForm must use the same carrier account.');
    const form: any = {
      id: id('sf'),
      object: 'ScanForm',
      status: fake.scanFormStatus,
      message: null,
      address: { id: id('adr'), object: 'Address', ...shipments[0].from_address },
      tracking_codes: shipments.map((s) => s.tracking_code),
      form_url: null,
      form_file_type: null,
      batch_id: id('batch'),
      created_at: new Date().toISOString(),
    };
    if (form.status === 'created') form.form_url = `${origin}/files/${form.id}.pdf`;
    for (const shipment of shipments) formOfShipment.set(shipment.id, form.id);
    fake.scanForms.set(form.id, form);
    if (fault?.kind === 'lose') return res.socket?.destroy(); // made upstream; the answer never arrives
    return send(res, 200, form);
  }

  /** A carrier's pickup fee, as EasyPost rates it: USPS picks up for free, UPS and FedEx for a fee. */
  const PICKUP_SERVICES: Record<string, [string, string][]> = {
    USPS: [['NextDay', '0.00']],
    UPS: [
      ['Same-Day Pickup', '8.50'],
      ['Future-Day Pickup', '6.50'],
    ],
    FedEx: [['FDXG', '4.50']],
  };

  /**
   * POST /pickups: refused (422) without an address, a bought Shipment, or a window that starts in the future and ends
   * after it starts; rated with the services of the Shipment's carrier.
   */
  function makePickup(res: http.ServerResponse, p: any) {
    const shipment = fake.shipments.get(p.shipment?.id ?? '');
    if (!p.address?.street1 || !p.address?.zip) return refuse(res, 422, 'PICKUP.ADDRESS.INVALID', 'A pickup needs an address.');
    if (!shipment?.postage_label) return refuse(res, 422, 'PICKUP.SHIPMENT.INVALID', 'A pickup needs a bought shipment.');
    const from = Date.parse(p.min_datetime);
    const to = Date.parse(p.max_datetime);
    if (!(from > Date.now() && to > from)) return refuse(res, 422, 'PICKUP.DATETIME.INVALID', 'min_datetime must be in the future and before max_datetime.');
    const carrier = shipment.selected_rate.carrier;
    const pickup = {
      id: id('pickup'),
      object: 'Pickup',
      reference: p.reference ?? null,
      status: 'unknown',
      confirmation: null as string | null,
      address: { id: id('adr'), object: 'Address', ...p.address },
      min_datetime: new Date(from).toISOString(),
      max_datetime: new Date(to).toISOString(),
      instructions: p.instructions ?? null,
      is_account_address: Boolean(p.is_account_address),
      pickup_rates: [] as any[],
      messages: [],
    };
    pickup.pickup_rates = (PICKUP_SERVICES[carrier] ?? []).map(([service, rate]) => ({
      id: id('pickuprate'),
      object: 'PickupRate',
      carrier,
      service,
      rate,
      currency: 'USD',
      pickup_id: pickup.id,
    }));
    fake.pickups.set(pickup.id, pickup);
    return send(res, 200, pickup);
  }
  let pickupSerial = 0;

  const formOfShipment = new Map<string, string>();
  let trackingSerial = 0;
  const zplFiles = new Map<string, string>();
  /** The Shipment each answer is about (answeredInMs), and each label file's. */
  const answerShipments = new WeakMap<http.ServerResponse, string>();
  const labelShipments = new Map<string, string>();
  const answeredFor = (res: http.ServerResponse, shipmentId: string | undefined) => shipmentId && answerShipments.set(res, shipmentId);
  const server = http.createServer((req, res) => {
    const arrived = performance.now();
    res.on('finish', () => {
      const shipmentId = answerShipments.get(res);
      if (shipmentId) fake.answeredInMs.set(shipmentId, (fake.answeredInMs.get(shipmentId) ?? 0) + performance.now() - arrived);
    });
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const arrivedAt = performance.now();
      const answer = () => handle(req, res, raw, arrivedAt);
      if (fake.latencyMs > 0) setTimeout(answer, fake.latencyMs);
      else answer();
    });
  });
  const closeServer = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.closeAllConnections(); // hanging answers included
      server.close(() => resolve());
    });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  origin = `http://127.0.0.1:${port}`;

  const fake: FakeEasyPost = {
    url: `${origin}/v2/`,
    apiKey,
    webhookSecret,
    shipments: new Map(),
    pdf,
    purchases: 0,
    purchasesFor: new Map(),
    conversions: 0,
    requests: [],
    latencyMs: 0,
    purchasesPerSecond: 0,
    rateLimited: 0,
    buysArrived: [],
    answeredInMs: new Map(),
    faults: [],
    scanForms: new Map(),
    pickups: new Map(),
    pickupPurchases: 0,
    scanFormStatus: 'created',
    insuranceCap: 5000,
    unverifiableStreet: '1 Nowhere Lane',
    rates: {},
    rateErrors: new Set(),
    refunds: 0,
    refundDecision: 'approve',
    settleRefund(shipmentId, status) {
      const shipment = fake.shipments.get(shipmentId);
      shipment.refund_status = status;
      return {
        id: id('evt'),
        object: 'Event',
        mode: 'test',
        description: status === 'refunded' ? 'refund.successful' : 'refund.failed',
        created_at: new Date().toISOString(),
        result: {
          id: id('rfnd'),
          object: 'Refund',
          shipment_id: shipmentId,
          tracking_code: shipment.tracking_code,
          status,
          carrier: shipment.selected_rate?.carrier,
        },
      };
    },
    trackerEvent(shipmentId, status) {
      const shipment = fake.shipments.get(shipmentId);
      return {
        id: id('evt'),
        object: 'Event',
        mode: 'test',
        description: 'tracker.updated',
        created_at: new Date().toISOString(),
        result: { ...shipment.tracker, object: 'Tracker', shipment_id: shipmentId, status, weight: 16, carrier: shipment.selected_rate?.carrier },
      };
    },
    async deliver(url, event, deliverOptions = {}) {
      const body = JSON.stringify(event);
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hmac-signature': easyPostSignature(body, deliverOptions.secret ?? webhookSecret) },
        body,
      });
      return { status: answer.status, body: await answer.text() };
    },
    async listen(on) {
      if (!on) {
        await closeServer();
        // The clients' kept-alive sockets are closed from here; their pools hear it on their next turn of the event loop.
        return new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (server.listening) return;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
    },
    close: closeServer,
  };
  return fake;
}
