import crypto from 'node:crypto';
import http from 'node:http';
import { PDFDocument } from 'pdf-lib';

/** Which calls a fault hits. */
export type FakeEasyPostCall = 'create' | 'buy' | 'retrieve' | 'refund' | 'verify' | 'file' | 'convert';

/**
 * A switch: the next `count` calls of `on` (any call when omitted) answer 500, answer 429 with Retry-After, never answer
 * (the client times out), or (buy only) are bought and then the answer is lost (the connection is dropped) or garbled
 * (200 with the Shipment as it was before the purchase, no postage_label: an answer the client cannot use), or
 * (refund only) are refused with a 422 as a carrier that does not void the label, or are handled `delayMs` late ('slow'),
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
  /** A street1 the fake cannot verify or rate: creating a shipment to it answers 422, as EasyPost does for an unknown address. */
  unverifiableStreet: string;
  /** The rate, in dollars as EasyPost writes it ('7.58'), of each service; default DEFAULT_RATE. */
  rates: Record<string, string>;
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
  close(): Promise<void>;
};

export const DEFAULT_RATE = '1.25';
/** Every carrier and service the fake rates, whatever the addresses. */
const SERVICES: [string, string][] = [
  ['USPS', 'Priority'],
  ['USPS', 'GroundAdvantage'],
  ['USPS', 'Express'],
  ['FedEx', 'FEDEX_GROUND'],
  ['UPS', 'Ground'],
  ['UPS', 'NextDayAir'],
  ['UPS', 'NextDayAirSaver'],
  ['UPS', 'NextDayAirEarlyAM'],
  ['UPS', '2ndDayAir'],
];

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
 * A local stand-in for the documented subset of EasyPost's API the official client calls: POST shipments (rates made
 * at once), POST shipments/:id/buy, GET shipments/:id, POST shipments/:id/refund, POST addresses/create_and_verify,
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
      if (!(Number(s.parcel.weight) > 0) || Number(s.parcel.weight) > 1120)
        return refuse(res, 422, 'PARCEL.WEIGHT.INVALID', 'Parcel weight must be between 0 and 1120 ounces.');
      const shipment = {
        id: id('shp'),
        object: 'Shipment',
        mode: apiKey.startsWith('EZTK') ? 'test' : 'production',
        reference: s.reference ?? null,
        to_address: { id: id('adr'), object: 'Address', ...s.to_address },
        from_address: { id: id('adr'), object: 'Address', ...s.from_address },
        parcel: { id: id('prcl'), object: 'Parcel', ...s.parcel },
        options: s.options ?? {},
        rates: [] as any[],
        selected_rate: null,
        postage_label: null,
        tracking_code: null,
        refund_status: null,
        messages: [],
        created_at: new Date().toISOString(),
      };
      shipment.rates = SERVICES.map(([carrier, service]) => ({
        id: id('rate'),
        object: 'Rate',
        carrier,
        service,
        rate: fake.rates[service] ?? DEFAULT_RATE,
        currency: 'USD',
        shipment_id: shipment.id,
        carrier_account_id: `ca_${carrier.toLowerCase()}`,
      }));
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
    const labelId = id('pl');
    shipment.selected_rate = rate;
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

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
    unverifiableStreet: '1 Nowhere Lane',
    rates: {},
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections(); // hanging answers included
        server.close(() => resolve());
      }),
  };
  return fake;
}
