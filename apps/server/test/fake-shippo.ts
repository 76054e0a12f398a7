import crypto from 'node:crypto';
import http from 'node:http';
import { PDFDocument } from 'pdf-lib';
import { fakeDeliveryDays, fakeRate } from './fake-easypost.ts';

/** Which calls a fault hits. */
export type FakeShippoCall = 'shipment' | 'buy' | 'transaction' | 'transactions' | 'rate' | 'refund' | 'address' | 'file' | 'manifest' | 'manifests';

/**
 * A switch: the next `count` calls of `call` (any call when omitted) answer 500, answer 429 with Retry-After, never
 * answer ('hang': the client times out), are done and then the connection is dropped ('lose': a purchase is made and
 * its answer never arrives), are dropped at once undone ('refuse': the socket is destroyed before anything is read into
 * work; the client sees a reset connection), or are handled `delayMs` late ('slow').
 * A connection refused outright (ECONNREFUSED, the ask never sent) is `fake.listen(false)`: no fault can count those.
 */
export type FakeShippoFault = {
  kind: '500' | '429' | 'hang' | 'lose' | 'refuse' | 'slow';
  call?: FakeShippoCall;
  count: number;
  retryAfterSeconds?: number;
  delayMs?: number;
};

export type FakeShippo = {
  /** The API root for SHIPPO_API_URL (no trailing slash, as the SDK's serverURL). */
  url: string;
  apiKey: string;
  webhookSecret: string;
  shipments: Map<string, any>;
  transactions: Map<string, any>;
  /** The label file every purchase links to. */
  pdf: Buffer;
  /** Transactions that became SUCCESS (postage paid), a rate bought twice counting twice. */
  purchases: number;
  /** Purchases by the transaction's metadata (our order id). */
  purchasesFor: Map<string, number>;
  /** Every request it served, as "METHOD path". */
  requests: string[];
  /** Added before every answer. */
  latencyMs: number;
  /** Purchases it takes in any second (counted on arrival over the last 1,000 ms, while a limit is set); the next answer 429. 0: no limit. */
  purchasesPerSecond: number;
  /** 429s it answered for `purchasesPerSecond`. */
  rateLimited: number;
  faults: FakeShippoFault[];
  /**
   * How the next purchases come out: null (at once, SUCCESS unless the addresses are not enough for a label), or QUEUED
   * until the transaction was asked about (GET /transactions/:id or the list) `afterPolls` times, then `then`.
   */
  queued: null | { then: 'SUCCESS' | 'ERROR'; afterPolls: number };
  /** A service's amount in dollars as Shippo writes it ('7.58'), by service-level token, in place of the fake's own. */
  rates: Record<string, string>;
  /** Carriers that answer a rate error: no rates of theirs, a message in the Shipment's `messages`. */
  rateErrors: Set<string>;
  /** A street1 the address validator does not know. */
  unverifiableStreet: string;
  /** What a refund comes to on the next look at its transaction: refunded, rejected, or still pending ('hold'). */
  refundDecision: 'approve' | 'reject' | 'hold';
  /** Refunds asked for and accepted. */
  refunds: number;
  /** Manifests (SCAN forms) made, by object_id. */
  manifests: Map<string, any>;
  /** The file every manifest's documents[] links to. */
  manifestPdf: Buffer;
  /**
   * How the next manifests come out: null (SUCCESS at once when asked with "async": false, else QUEUED until looked at
   * once), or QUEUED until looked at (GET /manifests/:id or the list) `afterLooks` times, then SUCCESS or ERROR with `errors`.
   */
  manifestQueued: null | { afterLooks: number; then: 'SUCCESS' | 'ERROR'; errors?: string[] };
  /** A track_updated event of a bought label's tracking number, as Shippo posts it. */
  trackEvent(trackingNumber: string, status: 'UNKNOWN' | 'PRE_TRANSIT' | 'TRANSIT' | 'DELIVERED' | 'RETURNED' | 'FAILURE'): Record<string, unknown>;
  /** Posts an event to `url` (which carries our ?token=...), as Shippo's webhooks do (unsigned): the receiver's status. */
  deliver(url: string, event: Record<string, unknown>): Promise<{ status: number; body: string }>;
  /** Stops taking connections (false: each new one is refused, open ones are closed) or takes them again on the same port. */
  listen(on: boolean): Promise<void>;
  close(): Promise<void>;
};

/**
 * The services the fake rates under Shippo's service-level tokens, each the same service as a fake EasyPost one
 * (its tariff and days, by route), at a price a few per cent off EasyPost's: Shippo is cheaper for USPS Priority and
 * FedEx Ground, dearer for Ground Advantage and the UPS Canada services.
 */
const SERVICES: { carrier: string; token: string; name: string; easypost: string; factor: number }[] = [
  { carrier: 'USPS', token: 'usps_ground_advantage', name: 'Ground Advantage', easypost: 'GroundAdvantage', factor: 1.03 },
  { carrier: 'USPS', token: 'usps_priority', name: 'Priority Mail', easypost: 'Priority', factor: 0.97 },
  { carrier: 'USPS', token: 'usps_priority_express', name: 'Priority Mail Express', easypost: 'Express', factor: 1.02 },
  { carrier: 'USPS', token: 'usps_priority_mail_international', name: 'Priority Mail International', easypost: 'PriorityMailInternational', factor: 0.98 },
  { carrier: 'FedEx', token: 'fedex_ground', name: 'FedEx Ground', easypost: 'FEDEX_GROUND', factor: 0.96 },
  { carrier: 'FedEx', token: 'fedex_2_day', name: 'FedEx 2Day', easypost: 'FEDEX_2_DAY', factor: 1.04 },
  { carrier: 'FedEx', token: 'fedex_standard_overnight', name: 'FedEx Standard Overnight', easypost: 'STANDARD_OVERNIGHT', factor: 1.02 },
  { carrier: 'FedEx', token: 'fedex_international_economy', name: 'FedEx International Economy', easypost: 'INTERNATIONAL_ECONOMY', factor: 0.97 },
  { carrier: 'UPS', token: 'ups_ground', name: 'Ground', easypost: 'Ground', factor: 1.02 },
  { carrier: 'UPS', token: 'ups_3_day_select', name: '3 Day Select', easypost: '3DaySelect', factor: 0.98 },
  { carrier: 'UPS', token: 'ups_second_day_air', name: '2nd Day Air', easypost: '2ndDayAir', factor: 1.03 },
  { carrier: 'UPS', token: 'ups_next_day_air_saver', name: 'Next Day Air Saver', easypost: 'NextDayAirSaver', factor: 0.97 },
  { carrier: 'UPS', token: 'ups_next_day_air', name: 'Next Day Air', easypost: 'NextDayAir', factor: 1.02 },
  { carrier: 'UPS', token: 'ups_next_day_air_early_am', name: 'Next Day Air Early A.M.', easypost: 'NextDayAirEarlyAM', factor: 0.98 },
  { carrier: 'UPS', token: 'ups_standard', name: 'Standard', easypost: 'UPSStandard', factor: 1.04 },
  { carrier: 'UPS', token: 'ups_expedited', name: 'Expedited', easypost: 'Expedited', factor: 1.03 },
  { carrier: 'UPS', token: 'ups_saver', name: 'Saver', easypost: 'UPSSaver', factor: 1.05 },
  { carrier: 'UPS', token: 'ups_express', name: 'Express', easypost: 'Express', factor: 1.03 },
  { carrier: 'UPS', token: 'ups_express_early', name: 'Express Early', easypost: 'ExpressPlus', factor: 1.04 },
];

/** The heaviest parcel each carrier takes, in ounces: USPS 70 lb, UPS and FedEx 150 lb. */
const MAX_OUNCES: Record<string, number> = { USPS: 1120, UPS: 2400, FedEx: 2400 };

/**
 * The fake's own amount (dollars, '7.58') of a service-level token for a parcel of `ounces` between two ZIPs (the route
 * read from their shapes), or null when it rates none there: a few per cent off fake EasyPost's for the same service.
 */
export function fakeShippoRate(token: string, ounces: number, fromZip: string, toZip: string): string | null {
  const service = SERVICES.find((s) => s.token === token);
  const easypost = service && fakeRate(service.carrier, service.easypost, ounces, fromZip, toZip);
  return service && easypost ? (Math.round(Number(easypost) * service.factor * 100) / 100).toFixed(2) : null;
}

/** The carrier and token of every service Shippo rates on a route (the tokens whose EasyPost twin rates there). */
export const fakeShippoServices = (fromZip: string, toZip: string) =>
  SERVICES.filter((s) => fakeDeliveryDays(s.carrier, s.easypost, fromZip, toZip) !== null).map((s) => `${s.carrier} ${s.token}`);

/** The messages a carrier that cannot rate leaves in a Shipment's `messages`. */
export const SHIPPO_RATE_ERRORS = {
  overWeight: (carrier: string) => `the parcel's weight is over ${carrier}'s maximum of ${MAX_OUNCES[carrier] / 16} lb.`,
  unavailable: (carrier: string) => `${carrier} did not answer; rates are not available right now.`,
};

const US_ZIP = /^\d{5}(-\d{4})?$/;
const CA_POSTAL_CODE = /^[A-Z]\d[A-Z] ?\d[A-Z]\d$/i;

const id = () => crypto.randomBytes(16).toString('hex');
const now = () => new Date().toISOString();

async function labelPdf(title = 'label', size: [number, number] = [288, 432]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setTitle(title);
  doc.addPage(size);
  return Buffer.from(await doc.save());
}

/** The fields a label needs of each address (Shippo refuses the purchase without them; a rate needs only zip and country). */
const LABEL_FIELDS = ['name', 'street1', 'city', 'zip', 'country'];

/**
 * A local stand-in for the documented subset of Shippo's API the official SDK calls: POST /shipments (rated at once,
 * `async: false` only), GET /rates/:id, POST /transactions (buy a rate), GET /transactions/:id, GET /transactions
 * (?rate=, ?object_status=, results, page), POST /refunds, POST /addresses (validate: true), the label file
 * (GET /files/:id.pdf), POST /manifests, GET /manifests(/:id), and track_updated webhooks. `Authorization: ShippoToken <key>`; 4xx bodies as Shippo's
 * ({"field": ["message"]}, {"detail": "..."}). Shippo has no idempotency on purchase: a rate bought twice is sold twice
 * (both counted), which is why the adapter looks for the order's transaction before it buys again.
 */
export async function startFakeShippo(options: { apiKey?: string; webhookSecret?: string } = {}): Promise<FakeShippo> {
  const apiKey = options.apiKey ?? 'shippo_test_fake0123456789';
  const webhookSecret = options.webhookSecret ?? 'fake-shippo-webhook-token';
  const pdf = await labelPdf();
  const manifestPdf = await labelPdf('manifest', [612, 792]);
  let origin = '';
  let port = 0;
  let trackingSerial = 0;
  /** Each rate the fake made, by id, with its shipment's id. */
  const rates = new Map<string, any>();
  /** Each refund's transaction, and how many looks a queued transaction still waits. */
  const pollsLeft = new Map<string, { left: number; then: 'SUCCESS' | 'ERROR' }>();
  const buysArrived: number[] = [];
  /** The manifest each transaction is on, and how many looks a queued manifest still waits. */
  const manifestOf = new Map<string, string>();
  const manifestLooks = new Map<string, { left: number; then: 'SUCCESS' | 'ERROR'; errors?: string[] }>();

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if ((res as any).lose) return void res.socket?.destroy(); // done here; the answer never arrives
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  const faultFor = (call: FakeShippoCall) => {
    const fault = fake.faults.find((f) => f.count > 0 && (!f.call || f.call === call));
    if (fault) fault.count--;
    return fault;
  };

  const callOf = (method: string, path: string): FakeShippoCall | null => {
    if (method === 'POST' && path === '/shipments') return 'shipment';
    if (method === 'GET' && /^\/rates\/[^/]+$/.test(path)) return 'rate';
    if (method === 'POST' && path === '/transactions') return 'buy';
    if (method === 'GET' && path === '/transactions') return 'transactions';
    if (method === 'GET' && /^\/transactions\/[^/]+$/.test(path)) return 'transaction';
    if (method === 'POST' && path === '/refunds') return 'refund';
    if (method === 'POST' && path === '/addresses') return 'address';
    if (method === 'GET' && /^\/files\/[^/]+\.pdf$/.test(path)) return 'file';
    if (method === 'POST' && path === '/manifests') return 'manifest';
    if (method === 'GET' && /^\/manifests(\/[^/]+)?$/.test(path)) return 'manifests';
    return null;
  };

  /** Buys are counted while a limit is set (a test that sets one is not charged for the buys of tests before it). */
  const overLimit = (arrivedAt: number) => {
    if (fake.purchasesPerSecond <= 0) return false;
    buysArrived.push(arrivedAt);
    let inLastSecond = 0;
    for (let i = buysArrived.length - 1; i >= 0 && arrivedAt - buysArrived[i] < 1000; i--) inLastSecond++;
    return inLastSecond > fake.purchasesPerSecond;
  };

  /** What Shippo requires of an address on a shipment: an object with its country. */
  const addressErrors = (address: any): Record<string, string[]> | null => {
    if (!address || typeof address !== 'object') return { non_field_errors: ['This field is required.'] };
    if (!address.country) return { country: ['This field is required.'] };
    return null;
  };
  /** What Shippo requires of a parcel: weight, mass_unit, length, width, height, distance_unit. */
  const parcelErrors = (parcel: any): Record<string, string[]> | null => {
    const errors: Record<string, string[]> = {};
    for (const field of ['length', 'width', 'height', 'distance_unit', 'weight', 'mass_unit'])
      if (parcel?.[field] === undefined || parcel[field] === null || parcel[field] === '') errors[field] = ['This field is required.'];
    if (!errors.weight && !(Number(parcel.weight) > 0)) errors.weight = ['Ensure this value is greater than 0.'];
    for (const field of ['length', 'width', 'height'])
      if (!errors[field] && !(Number(parcel[field]) > 0)) errors[field] = ['Ensure this value is greater than 0.'];
    if (!errors.mass_unit && !['g', 'kg', 'lb', 'oz'].includes(parcel.mass_unit)) errors.mass_unit = [`"${parcel.mass_unit}" is not a valid choice.`];
    if (!errors.distance_unit && !['cm', 'in', 'ft', 'm', 'mm', 'yd'].includes(parcel.distance_unit))
      errors.distance_unit = [`"${parcel.distance_unit}" is not a valid choice.`];
    return Object.keys(errors).length ? errors : null;
  };
  const OUNCES: Record<string, number> = { oz: 1, lb: 16, g: 1 / 28.3495, kg: 1000 / 28.3495 };

  function createShipment(body: any, res: http.ServerResponse) {
    const errors: Record<string, unknown> = {};
    const from = addressErrors(body.address_from);
    const to = addressErrors(body.address_to);
    if (from) errors.address_from = from;
    if (to) errors.address_to = to;
    if (!Array.isArray(body.parcels) || body.parcels.length === 0) errors.parcels = ['This field is required.'];
    else {
      const parcels = body.parcels.map(parcelErrors);
      if (parcels.some(Boolean)) errors.parcels = parcels.map((p: unknown) => p ?? {});
    }
    if (Object.keys(errors).length) return send(res, 400, errors);
    // The fake rates at once only: an asynchronous shipment would answer QUEUED with no rates.
    if (body.async !== false) return send(res, 400, { async: ['This fake rates synchronously only: send "async": false.'] });
    const parcel = body.parcels[0];
    const ounces = Number(parcel.weight) * OUNCES[parcel.mass_unit];
    // A return (extra.is_return) keeps the addresses as sent (the original shipment's); its parcel travels the other way.
    const [origin, destination] = body.extra?.is_return === true ? [body.address_to, body.address_from] : [body.address_from, body.address_to];
    const fromZip = String(origin.zip ?? '');
    const toZip = String(destination.zip ?? '');
    const created = now();
    const shipment = {
      object_id: id(),
      object_owner: 'fake@shippo.test',
      object_created: created,
      object_updated: created,
      status: 'SUCCESS',
      test: apiKey.startsWith('shippo_test_'),
      metadata: String(body.metadata ?? ''),
      shipment_date: body.shipment_date ?? created,
      extra: body.extra ?? {},
      address_from: { object_id: id(), is_complete: true, ...body.address_from },
      address_to: { object_id: id(), is_complete: true, ...body.address_to },
      parcels: body.parcels.map((p: any) => ({ object_id: id(), object_state: 'VALID', ...p, weight: String(p.weight) })),
      carrier_accounts: [] as string[],
      messages: [] as { source: string; code: string; text: string }[],
      rates: [] as any[],
    };
    // A rate needs the route's ZIPs and countries: each carrier of the route rates its services or says why not.
    const routeKnown =
      (US_ZIP.test(fromZip) && origin.country === 'US') || (CA_POSTAL_CODE.test(fromZip) && origin.country === 'CA')
        ? (US_ZIP.test(toZip) && destination.country === 'US') || (CA_POSTAL_CODE.test(toZip) && destination.country === 'CA')
        : false;
    const offered = routeKnown ? SERVICES.filter((s) => fakeDeliveryDays(s.carrier, s.easypost, fromZip, toZip) !== null) : [];
    for (const carrier of new Set(offered.map((s) => s.carrier))) {
      const account = `fake_${carrier.toLowerCase()}_account`;
      const refusal = fake.rateErrors.has(carrier)
        ? { code: 'carrier_timeout', text: SHIPPO_RATE_ERRORS.unavailable(carrier) }
        : ounces > MAX_OUNCES[carrier]
          ? { code: 'weight', text: SHIPPO_RATE_ERRORS.overWeight(carrier) }
          : null;
      if (refusal) {
        shipment.messages.push({ source: carrier, ...refusal });
        continue;
      }
      for (const service of offered.filter((s) => s.carrier === carrier)) {
        const amount = fake.rates[service.token] ?? fakeShippoRate(service.token, ounces, fromZip, toZip);
        if (!amount) continue;
        const rate = {
          object_id: id(),
          object_owner: shipment.object_owner,
          object_created: created,
          shipment: shipment.object_id,
          attributes: [],
          amount,
          currency: 'USD',
          amount_local: amount,
          currency_local: 'USD',
          provider: carrier,
          servicelevel: { name: service.name, token: service.token },
          estimated_days: fakeDeliveryDays(carrier, service.easypost, fromZip, toZip),
          duration_terms: '',
          carrier_account: account,
          test: shipment.test,
        };
        rates.set(rate.object_id, rate);
        shipment.rates.push(rate);
      }
    }
    fake.shipments.set(shipment.object_id, shipment);
    return send(res, 201, shipment);
  }

  /** Shippo's words on a transaction it could not buy: an address not complete enough for a label. */
  function labelProblems(shipment: any): { source: string; code: string; text: string }[] {
    const problems = [];
    for (const side of ['address_from', 'address_to']) {
      const missing = LABEL_FIELDS.filter((f) => !shipment[side][f]);
      if (missing.length) problems.push({ source: 'Shippo', code: 'address', text: `${side}: ${missing.join(', ')} required to buy a label` });
    }
    return problems;
  }

  /** A transaction becomes SUCCESS: a label made, a purchase counted. */
  function sell(txn: any) {
    txn.status = 'SUCCESS';
    txn.object_updated = now();
    txn.tracking_number = `SHP${String(++trackingSerial).padStart(12, '0')}`;
    txn.tracking_status = 'UNKNOWN';
    txn.tracking_url_provider = `${origin}/track/${txn.tracking_number}`;
    txn.label_url = `${origin}/files/${txn.object_id}.pdf`;
    fake.purchases++;
    fake.purchasesFor.set(txn.metadata, (fake.purchasesFor.get(txn.metadata) ?? 0) + 1);
  }
  function fail(txn: any, messages: { source: string; code: string; text: string }[]) {
    txn.status = 'ERROR';
    txn.object_updated = now();
    txn.messages = messages;
  }

  /** A look at a transaction: a queued one moves on, a pending refund is decided. */
  function look(txn: any) {
    const queued = pollsLeft.get(txn.object_id);
    if (queued && --queued.left <= 0) {
      pollsLeft.delete(txn.object_id);
      if (queued.then === 'SUCCESS') sell(txn);
      else fail(txn, [{ source: rates.get(txn.rate).provider, code: 'carrier_error', text: 'The carrier could not create the label.' }]);
    }
    if (txn.status === 'REFUNDPENDING' && fake.refundDecision !== 'hold') {
      txn.status = fake.refundDecision === 'approve' ? 'REFUNDED' : 'REFUNDREJECTED';
      const refund = txn.refund;
      refund.status = fake.refundDecision === 'approve' ? 'SUCCESS' : 'ERROR';
      refund.object_updated = now();
    }
    return shown(txn);
  }
  /** A transaction as Shippo shows it (without the fake's own bookkeeping). */
  const shown = (txn: any) => {
    const { refund: _refund, ...rest } = txn;
    return rest;
  };

  function buy(body: any, res: http.ServerResponse) {
    if (!body.rate) return send(res, 400, { rate: ['This field is required.'] });
    const rate = rates.get(String(body.rate));
    if (!rate) return send(res, 400, { rate: [`Rate with object_id ${body.rate} not found.`] });
    if (body.label_file_type && !['PNG', 'PDF', 'PDF_4x6', 'PDF_4x8', 'PDF_A4', 'PDF_A6', 'ZPLII'].includes(body.label_file_type))
      return send(res, 400, { label_file_type: [`"${body.label_file_type}" is not a valid choice.`] });
    const created = now();
    const txn: any = {
      object_id: id(),
      object_owner: 'fake@shippo.test',
      object_created: created,
      object_updated: created,
      object_state: 'VALID',
      status: 'QUEUED',
      test: rate.test,
      rate: rate.object_id,
      metadata: String(body.metadata ?? ''),
      label_file_type: body.label_file_type ?? 'PDF',
      messages: [],
      tracking_number: '',
      tracking_url_provider: '',
      label_url: '',
    };
    fake.transactions.set(txn.object_id, txn);
    const problems = labelProblems(fake.shipments.get(rate.shipment));
    if (problems.length) fail(txn, problems);
    else if (fake.queued) pollsLeft.set(txn.object_id, { left: fake.queued.afterPolls, then: fake.queued.then });
    else sell(txn);
    return send(res, 201, shown(txn));
  }

  /** The fields that make two addresses one place (Shippo's address_from must be the labels' own). */
  const placeOf = (a: any) =>
    ['name', 'street1', 'city', 'state', 'zip', 'country']
      .map((f) =>
        String(a?.[f] ?? '')
          .trim()
          .toUpperCase(),
      )
      .join('|');
  /** An address_from given by object id: one of the shipments' (the fake keeps no other addresses). */
  const addressById = (objectId: string) => [...fake.shipments.values()].map((s) => s.address_from).find((a) => a.object_id === objectId);
  const manifestDone = (manifest: any, then: 'SUCCESS' | 'ERROR', errors: string[] = []) => {
    manifest.status = then;
    manifest.object_updated = now();
    if (then === 'SUCCESS') manifest.documents = [`${origin}/files/manifest-${manifest.object_id}.pdf`];
    else {
      manifest.errors = errors.length ? errors : ['The carrier could not create the manifest.'];
      for (const txnId of manifest.transactions) manifestOf.delete(txnId); // a failed manifest holds no label
    }
  };
  /** A look at a manifest: a queued one moves on. */
  function lookAtManifest(manifest: any) {
    const queued = manifestLooks.get(manifest.object_id);
    if (queued && --queued.left <= 0) {
      manifestLooks.delete(manifest.object_id);
      manifestDone(manifest, queued.then, queued.errors);
    }
    return manifest;
  }

  /**
   * POST /manifests, as Shippo documents it: carrier_account, shipment_date (ISO 8601) and address_from (an object or an
   * address object id) required; every transaction bought (SUCCESS, not refunded), under that carrier account, of a
   * shipment of that day from that address, and on no other manifest. Without `transactions`, every such transaction
   * not yet on one. 400 with Shippo's field messages otherwise.
   */
  function createManifest(body: any, res: http.ServerResponse) {
    const errors: Record<string, string[]> = {};
    for (const field of ['carrier_account', 'shipment_date', 'address_from']) if (!body[field]) errors[field] = ['This field is required.'];
    if (body.shipment_date && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(String(body.shipment_date)))
      errors.shipment_date = ['Datetime has wrong format. Use ISO 8601.'];
    if (body.transactions !== undefined && !Array.isArray(body.transactions)) errors.transactions = ['Expected a list of items.'];
    if (Object.keys(errors).length) return send(res, 400, errors);
    const from = typeof body.address_from === 'string' ? addressById(body.address_from) : body.address_from;
    if (!from) return send(res, 400, { address_from: [`Address with object_id ${body.address_from} not found.`] });
    const day = String(body.shipment_date).slice(0, 10);
    const fits = (txn: any) => {
      const rate = rates.get(txn.rate);
      const shipment = fake.shipments.get(rate?.shipment);
      if (txn.status !== 'SUCCESS') return 'is not a bought label (refunded, refund pending or not successful)';
      if (manifestOf.has(txn.object_id)) return `is already on manifest ${manifestOf.get(txn.object_id)}`;
      if (rate.carrier_account !== body.carrier_account) return `was bought under another carrier account (${rate.carrier_account})`;
      if (String(shipment.shipment_date).slice(0, 10) !== day) return `ships on another day (${String(shipment.shipment_date).slice(0, 10)})`;
      if (placeOf(shipment.address_from) !== placeOf(from)) return 'ships from another address';
      return null;
    };
    let ids: string[];
    if (Array.isArray(body.transactions)) {
      const refused: string[] = [];
      for (const txnId of body.transactions) {
        const txn = fake.transactions.get(String(txnId));
        const why = txn ? fits(txn) : 'was not found';
        if (why) refused.push(`Transaction ${txnId} ${why}.`);
      }
      if (refused.length) return send(res, 400, { transactions: refused });
      ids = [...new Set(body.transactions.map(String))] as string[];
    } else ids = [...fake.transactions.values()].filter((t) => !fits(t)).map((t) => t.object_id);
    if (!ids.length) return send(res, 400, { transactions: ['No transactions to put on a manifest for this carrier account, day and address.'] });
    const created = now();
    const manifest: any = {
      object_id: id(),
      object_owner: 'fake@shippo.test',
      object_created: created,
      object_updated: created,
      status: 'QUEUED',
      carrier_account: body.carrier_account,
      shipment_date: body.shipment_date,
      address_from: typeof body.address_from === 'string' ? body.address_from : id(),
      transactions: ids,
      documents: [],
      errors: [],
    };
    fake.manifests.set(manifest.object_id, manifest);
    for (const txnId of ids) manifestOf.set(txnId, manifest.object_id);
    if (fake.manifestQueued)
      manifestLooks.set(manifest.object_id, { left: fake.manifestQueued.afterLooks, then: fake.manifestQueued.then, errors: fake.manifestQueued.errors });
    else if (body.async === false) manifestDone(manifest, 'SUCCESS');
    else manifestLooks.set(manifest.object_id, { left: 1, then: 'SUCCESS' });
    return send(res, 201, manifest);
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string, arrivedAt: number, delayed = false) {
    const url = new URL(req.url ?? '/', origin);
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (!delayed) fake.requests.push(`${req.method} ${path}`);
    const call = callOf(req.method ?? '', path);
    if (!call) return send(res, 404, { detail: 'Not found.' });
    if (call === 'buy' && !delayed && overLimit(arrivedAt)) {
      fake.rateLimited++;
      return send(res, 429, { detail: 'Request was throttled.' }, { 'retry-after': '1' });
    }
    const fault = delayed ? undefined : faultFor(call);
    if (fault?.kind === 'slow') return void setTimeout(() => handle(req, res, raw, arrivedAt, true), fault.delayMs ?? 300);
    if (fault?.kind === 'hang') return; // never answered; the client's timeout gives up
    if (fault?.kind === 'refuse') return void req.socket.destroy(); // dropped before any work
    if (fault?.kind === '500') return send(res, 500, { detail: 'Internal server error.' });
    if (fault?.kind === '429') return send(res, 429, { detail: 'Request was throttled.' }, { 'retry-after': String(fault.retryAfterSeconds ?? 1) });
    if (fault?.kind === 'lose') (res as any).lose = true;
    if (call === 'file') {
      const name = path.slice('/files/'.length, -'.pdf'.length);
      const file = fake.transactions.get(name)?.label_url ? pdf : fake.manifests.get(name.replace(/^manifest-/, ''))?.documents.length ? manifestPdf : null;
      if (!file) return send(res, 404, { detail: 'Not found.' });
      res.writeHead(200, { 'content-type': 'application/pdf' });
      return res.end(file);
    }
    if (req.headers.authorization !== `ShippoToken ${apiKey}`) return send(res, 401, { detail: 'Invalid token.' });
    let body: any = {};
    if (req.method === 'POST') {
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        return send(res, 400, { detail: 'JSON parse error.' });
      }
    }
    switch (call) {
      case 'shipment':
        return createShipment(body, res);
      case 'rate': {
        const rate = rates.get(path.split('/')[2]);
        return rate ? send(res, 200, rate) : send(res, 404, { detail: 'Not found.' });
      }
      case 'buy':
        return buy(body, res);
      case 'transaction': {
        const txn = fake.transactions.get(path.split('/')[2]);
        return txn ? send(res, 200, look(txn)) : send(res, 404, { detail: 'Not found.' });
      }
      case 'transactions': {
        const rate = url.searchParams.get('rate');
        const status = url.searchParams.get('object_status');
        const results = Math.min(100, Number(url.searchParams.get('results') ?? 25) || 25);
        const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
        const all = [...fake.transactions.values()]
          .reverse() // newest first
          .filter((t) => !rate || t.rate === rate)
          .map(look)
          .filter((t) => !status || t.status === status);
        const shown = all.slice((page - 1) * results, page * results);
        const next = all.length > page * results ? `${origin}/transactions?page=${page + 1}&results=${results}` : undefined;
        return send(res, 200, { ...(next ? { next } : {}), results: shown });
      }
      case 'refund': {
        const txn = fake.transactions.get(String(body.transaction ?? ''));
        if (!txn) return send(res, 400, { transaction: [`Transaction with object_id ${body.transaction} not found.`] });
        if (txn.status === 'REFUNDPENDING' || txn.status === 'REFUNDED' || txn.status === 'REFUNDREJECTED')
          return send(res, 400, { transaction: ['A refund was already requested for this label.'] });
        if (txn.status !== 'SUCCESS') return send(res, 400, { transaction: ['Only a label that was bought can be refunded.'] });
        const created = now();
        txn.refund = {
          object_id: id(),
          object_owner: txn.object_owner,
          object_created: created,
          object_updated: created,
          status: 'QUEUED',
          test: txn.test,
          transaction: txn.object_id,
        };
        txn.status = 'REFUNDPENDING';
        fake.refunds++;
        return send(res, 201, txn.refund);
      }
      case 'manifest':
        return createManifest(body, res);
      case 'manifests': {
        const manifestId = path.split('/')[2];
        if (manifestId) {
          const manifest = fake.manifests.get(manifestId);
          return manifest ? send(res, 200, lookAtManifest(manifest)) : send(res, 404, { detail: 'Not found.' });
        }
        const results = Math.min(100, Number(url.searchParams.get('results') ?? 5) || 5);
        const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
        const all = [...fake.manifests.values()].reverse().map(lookAtManifest); // newest first
        const next = all.length > page * results ? `${origin}/manifests?page=${page + 1}&results=${results}` : undefined;
        return send(res, 200, { ...(next ? { next } : {}), results: all.slice((page - 1) * results, page * results) });
      }
      case 'address': {
        if (!body.country) return send(res, 400, { country: ['This field is required.'] });
        const created = now();
        const known = body.validate !== true || (body.street1 && body.street1 !== fake.unverifiableStreet && body.city && body.zip);
        const address = {
          object_id: id(),
          object_owner: 'fake@shippo.test',
          object_created: created,
          object_updated: created,
          is_complete: Boolean(known),
          test: true,
          ...body,
          ...(body.validate === true && known ? { street1: String(body.street1).toUpperCase(), city: String(body.city).toUpperCase() } : {}),
          validation_results:
            body.validate === true
              ? known
                ? { is_valid: true, messages: [] }
                : {
                    is_valid: false,
                    messages: [
                      {
                        source: 'Shippo Address Validator',
                        code: 'Unknown Street',
                        type: 'address_error',
                        text: 'The address as submitted could not be found.',
                      },
                    ],
                  }
              : {},
        };
        delete (address as any).validate;
        return send(res, 201, address);
      }
    }
  }

  const server = http.createServer((req, res) => {
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
  port = (server.address() as { port: number }).port;
  origin = `http://127.0.0.1:${port}`;

  const fake: FakeShippo = {
    url: origin,
    apiKey,
    webhookSecret,
    shipments: new Map(),
    transactions: new Map(),
    pdf,
    purchases: 0,
    purchasesFor: new Map(),
    requests: [],
    latencyMs: 0,
    purchasesPerSecond: 0,
    rateLimited: 0,
    faults: [],
    queued: null,
    rates: {},
    rateErrors: new Set(),
    unverifiableStreet: '1 Nowhere Lane',
    refundDecision: 'approve',
    refunds: 0,
    manifests: new Map(),
    manifestPdf,
    manifestQueued: null,
    trackEvent(trackingNumber, status) {
      const txn = [...fake.transactions.values()].find((t) => t.tracking_number === trackingNumber);
      return {
        event: 'track_updated',
        test: true,
        data: {
          carrier: txn ? String(rates.get(txn.rate)?.provider ?? '').toLowerCase() : 'usps',
          tracking_number: trackingNumber,
          transaction: txn?.object_id ?? null,
          metadata: txn?.metadata ?? null,
          tracking_status: { object_id: id(), status, status_details: `The package is ${status.toLowerCase()}.`, status_date: now(), location: null },
          tracking_history: [],
        },
      };
    },
    async deliver(url, event) {
      const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
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
