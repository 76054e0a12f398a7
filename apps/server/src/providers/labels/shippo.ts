import crypto from 'node:crypto';
import type { Shippo } from 'shippo';
import { processingLimitMessage } from './upstream-call.ts';
import {
  LabelProviderError,
  WebhookRefused,
  type AddressCheck,
  type LabelFailed,
  type LabelParty,
  type LabelPending,
  type LabelProvider,
  type LabelReady,
  type LabelRequest,
  type QuoteAnswer,
  type QuoteRequest,
  type RefundAnswer,
  type ScanFormAnswer,
  type ScanFormRequest,
  type UpstreamService,
  type WebhookNews,
  uniqueServices,
} from './label-provider.ts';
import { UpstreamUnavailable, isRefusedConnection, limiter, retryLater, upstreamCall, type UpstreamOptions } from './upstream-call.ts';

export type ShippoOptions = UpstreamOptions;

/** What a retry reference and a queued transaction look like on the order (orders.provider_ref). */
const RETRY_PREFIX = 'shippo';
const TXN_PREFIX = 'shippo:txn:';

/**
 * A parcel's sides when the order has none: Shippo requires length, width and height on every parcel. A small box
 * (USPS's minimum parcel is 6 x 3 x 0.25 in) has no dimensional weight, so the parcel is rated by its weight alone, as
 * EasyPost rates a parcel sent without dimensions.
 */
export const DEFAULT_SIDES_IN = { length: '6', width: '4', height: '1' };

const COUNTRY_CODES: Record<string, string> = { 'United States': 'US', Canada: 'CA' };

/** A party as Shippo takes it; a quote's party may hold only its ZIP and country (Shippo rates on those). */
const addressOf = (party: LabelParty) => ({
  name: party.name || undefined,
  company: party.company || undefined,
  street1: party.street || undefined,
  street2: party.street2 || undefined,
  city: party.city || undefined,
  state: party.state || undefined,
  zip: party.zip || undefined,
  country: COUNTRY_CODES[party.country] ?? party.country,
  phone: party.phone || undefined,
});

/** Shippo's tracking_status.status as the shop's tracking status. */
const TRACKING: Record<string, string> = {
  PRE_TRANSIT: 'pre_transit',
  TRANSIT: 'in_transit',
  DELIVERED: 'delivered',
  RETURNED: 'return_to_sender',
  FAILURE: 'failure',
  UNKNOWN: 'unknown',
};

const SOLD = new Set(['SUCCESS', 'REFUNDPENDING', 'REFUNDED', 'REFUNDREJECTED']);
const QUEUED = new Set(['QUEUED', 'WAITING']);

/** Shippo's words in a 4xx body ({"field": ["message"]}, {"detail": "..."}, or text), flattened. */
function wordsOf(error: unknown): string {
  const body = (error as { body?: string }).body;
  try {
    const parsed = JSON.parse(body ?? '');
    const lines: string[] = [];
    const walk = (value: unknown, path: string) => {
      if (typeof value === 'string') lines.push(path && path !== 'detail' && path !== '__all__' ? `${path}: ${value}` : value);
      else if (Array.isArray(value)) value.forEach((v) => walk(v, path));
      else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, path && k !== 'detail' ? `${path}.${k}` : k);
    };
    walk(parsed, '');
    if (lines.length) return lines.join('; ');
  } catch {
    // not JSON: the text as it came
  }
  return (body ?? '').slice(0, 300) || (error as Error).message;
}

/** A carrier's messages on an ERROR transaction, in plain words. */
const messagesOf = (messages: { source?: string; text?: string }[] | undefined) =>
  (messages ?? [])
    .map((m) => [m.source, m.text].filter(Boolean).join(': '))
    .filter(Boolean)
    .join('; ');

const REFUSED_PREFIX = 'the carrier refused the label: ';
const FORM_REFUSED_PREFIX = 'the carrier refused the SCAN form: ';

type Transaction = Awaited<ReturnType<Shippo['transactions']['get']>>;
type Manifest = Awaited<ReturnType<Shippo['manifests']['get']>>;

/**
 * Real postage through Shippo's official SDK. The orders domain chooses the shipment and rate (request.chosen, from a
 * quote) and records them before buying; a purchase is POST /transactions {rate, async: false} with our order id in
 * `metadata`. Shippo has no idempotency key, so before buying again the transactions of that rate are listed
 * (GET /transactions?rate=...) and the one made for this order is used. 4xx answers refuse the label
 * (LabelProviderError); timeouts, 5xx and network errors leave it Processing; a 429 is waited out as its Retry-After asks.
 */
export function createShippoLabelProvider(options: ShippoOptions): LabelProvider {
  const limit = limiter(options.concurrency, options.rate);

  let shared: Promise<Shippo> | undefined;
  /** The SDK, loaded with the first call (a shop on the sandbox never loads it); its own retries off: ours wait out a 429. */
  function client(): Promise<Shippo> {
    shared ??= import('shippo').then(
      ({ Shippo: Client }) =>
        new Client({
          apiKeyHeader: `ShippoToken ${options.apiKey}`,
          serverURL: options.apiUrl.replace(/\/+$/, ''),
          timeoutMs: options.timeoutMs,
          retryConfig: { strategy: 'none' },
        }),
    );
    return shared;
  }

  async function call<T>(work: (sdk: Shippo) => Promise<T>, purchase = false): Promise<T> {
    const sdk = await client();
    return upstreamCall({
      limit,
      health: options.health,
      purchase,
      work: () => work(sdk),
      failure: (error) => {
        const e = error as { statusCode?: number; headers?: Headers };
        const status = typeof e?.statusCode === 'number' && e.statusCode >= 400 ? e.statusCode : undefined;
        return { status, retryAfter: e?.headers?.get?.('retry-after'), refusedConnection: isRefusedConnection(error) };
      },
      refusal: (error) => new LabelProviderError(REFUSED_PREFIX + wordsOf(error)),
    });
  }

  /** A label file Shippo links to (a fault like any other call's: the label was sold, its file is asked for again). */
  async function fileAt(url: string): Promise<Uint8Array> {
    const started = performance.now();
    try {
      const file = await limit(async () => {
        const answer = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs) });
        if (!answer.ok) throw new Error(`label file answered ${answer.status}`);
        return new Uint8Array(await answer.arrayBuffer());
      });
      options.health.answered(performance.now() - started);
      return file;
    } catch (error) {
      options.health.failed(performance.now() - started, (error as Error).message);
      throw new UpstreamUnavailable((error as Error).message);
    }
  }

  /** A sold transaction's label: its file, and what it cost (the rate in the answer, else GET /rates/{id}). */
  async function labelOf(txn: Transaction): Promise<LabelReady> {
    if (!txn.labelUrl) throw new UpstreamUnavailable('Shippo answered a sold label without its file');
    const embedded = typeof txn.rate === 'object' && txn.rate?.amount ? txn.rate : null;
    const rateId = typeof txn.rate === 'string' ? txn.rate : txn.rate?.objectId;
    const [pdf, rate] = await Promise.all([
      fileAt(txn.labelUrl),
      embedded
        ? { amount: embedded.amount, provider: embedded.provider, token: embedded.servicelevelToken }
        : rateId
          ? call((sdk) => sdk.rates.get(rateId)).then((r) => ({ amount: r.amount, provider: r.provider, token: r.servicelevel?.token }))
          : null,
    ]);
    return {
      status: 'completed',
      tracking: String(txn.trackingNumber ?? ''),
      pdf,
      ...(rate
        ? { bought: { costCents: Math.round(Number(rate.amount) * 100), carrier: String(rate.provider ?? ''), service: String(rate.token ?? '') } }
        : {}),
    };
  }

  /** A transaction as the order's outcome: the label, Processing while Shippo works on it, or its refusal. */
  async function outcome(txn: Transaction): Promise<LabelReady | LabelPending> {
    if (txn.status && SOLD.has(txn.status)) return labelOf(txn);
    if (txn.status && QUEUED.has(txn.status)) return { status: 'processing', providerRef: `${TXN_PREFIX}${txn.objectId}` };
    const words = messagesOf(txn.messages);
    throw new LabelProviderError(words ? `${REFUSED_PREFIX}${words}` : 'the carrier refused the label');
  }

  async function buy(request: LabelRequest): Promise<LabelReady | LabelPending> {
    const rateId = request.chosen?.rateId;
    if (!rateId) throw new LabelProviderError(`${request.serviceName} is not offered at the moment`);
    const txn = await call((sdk) => sdk.transactions.create({ rate: rateId, async: false, labelFileType: 'PDF_4x6', metadata: request.orderId }), true);
    if (txn.status === 'SUCCESS') options.health.purchased();
    return outcome(txn);
  }

  /** The transaction Shippo made for this order's chosen rate: a sold one first, else one still queued; null: none. */
  async function transactionOf(orderId: string, rateId: string | null | undefined): Promise<Transaction | null> {
    if (!rateId) return null;
    const list = await call((sdk) => sdk.transactions.list({ rate: rateId, results: 100 }));
    // A quote's rate may be bought by more than one order: only this order's (metadata = our order id) counts.
    const mine = (list.results ?? []).filter((t) => t.metadata === orderId);
    return mine.find((t) => t.status && SOLD.has(t.status)) ?? mine.find((t) => t.status && QUEUED.has(t.status)) ?? null;
  }

  /** The label Shippo sold for the order, Processing while it is queued, or null (none, or only ERRORs: nothing sold). */
  async function found(request: LabelRequest): Promise<LabelReady | LabelPending | null> {
    const txn = await transactionOf(request.orderId, request.chosen?.rateId);
    return txn ? outcome(txn) : null;
  }

  /** A manifest as our answer: its PDF fetched once SUCCESS, asked again while QUEUED, refused with Shippo's errors. */
  async function formAnswer(manifest: Manifest): Promise<ScanFormAnswer> {
    if (manifest.status === 'ERROR') return { status: 'failed', message: `${FORM_REFUSED_PREFIX}${(manifest.errors ?? []).join('; ') || 'no reason given'}` };
    if (manifest.status === 'SUCCESS' && manifest.documents[0]) return { status: 'created', ref: manifest.objectId, pdf: await fileAt(manifest.documents[0]) };
    return { status: 'creating', ref: manifest.objectId, checkInMs: options.refundPollMs };
  }

  /**
   * The form's labels as Shippo knows them: each one's sold transaction, and the one carrier account they were bought
   * under (a manifest is one account's); a string says why no manifest can hold them.
   */
  async function soldLabels(request: ScanFormRequest): Promise<{ transactions: string[]; carrierAccount: string } | string> {
    const sold = await Promise.all(
      request.labels.map(async (label) => {
        const txn = await transactionOf(label.orderId, label.rateRef);
        if (txn?.status !== 'SUCCESS') return null;
        const rate = typeof txn.rate === 'object' && txn.rate?.carrierAccount ? txn.rate : await call((sdk) => sdk.rates.get(String(label.rateRef)));
        return { transaction: String(txn.objectId), carrierAccount: String(rate.carrierAccount) };
      }),
    );
    const missing = request.labels.filter((_, i) => !sold[i]).map((label) => label.tracking || label.orderId);
    if (missing.length) return `Shippo holds no bought label for ${missing.join(', ')}`;
    const accounts = new Set(sold.map((s) => s!.carrierAccount));
    if (accounts.size > 1) return `the labels were bought under ${accounts.size} Shippo carrier accounts; a manifest takes one`;
    return { transactions: sold.map((s) => s!.transaction), carrierAccount: [...accounts][0] };
  }

  /** POST /manifests with the labels' transactions; a refusal (400: another address, day or account...) fails the form. */
  async function createScanForm(request: ScanFormRequest): Promise<ScanFormAnswer> {
    const labels = await soldLabels(request);
    if (typeof labels === 'string') return { status: 'failed', message: FORM_REFUSED_PREFIX + labels };
    try {
      const manifest = await call((sdk) =>
        sdk.manifests.create({
          carrierAccount: labels.carrierAccount,
          // The day the labels were rated for (quote's shipmentDate), as Shippo's ISO 8601.
          shipmentDate: `${request.shipDate}T12:00:00Z`,
          addressFrom: addressOf(request.from),
          transactions: labels.transactions,
          async: false,
        }),
      );
      return await formAnswer(manifest);
    } catch (error) {
      if (error instanceof LabelProviderError) return { status: 'failed', message: error.message.replace(REFUSED_PREFIX, FORM_REFUSED_PREFIX) };
      throw error;
    }
  }

  /**
   * A form asked before: the manifest by its id, or (its answer was lost) the newest manifest holding these labels'
   * transactions. Shippo keeps each transaction on one manifest, so that manifest is ours.
   */
  async function findScanForm(request: ScanFormRequest, ref: string | null): Promise<ScanFormAnswer | null> {
    if (ref) return formAnswer(await call((sdk) => sdk.manifests.get(ref)));
    const labels = await soldLabels(request);
    if (typeof labels === 'string') return null;
    const ours = new Set(labels.transactions);
    const page = await call((sdk) => sdk.manifests.list(1, 100));
    const manifest = (page.results ?? []).find((m) => m.status !== 'ERROR' && (m.transactions ?? []).some((t) => ours.has(t)));
    return manifest ? formAnswer(manifest) : null;
  }

  const pastLimit = (request: LabelRequest) => Date.now() - Date.parse(request.createdAt) > options.processingLimitMinutes * 60_000;

  async function checkLabel(request: LabelRequest, providerRef: string): Promise<LabelReady | LabelPending | LabelFailed> {
    try {
      if (providerRef.startsWith(TXN_PREFIX)) {
        // A queued purchase: Shippo decides it (SUCCESS or ERROR); nothing more is bought meanwhile.
        const txn = await call((sdk) => sdk.transactions.get(providerRef.slice(TXN_PREFIX.length)));
        if (txn.status === 'SUCCESS') options.health.purchased();
        return await outcome(txn);
      }
      const existing = await found(request);
      if (existing) return existing;
      // Past the limit nothing more is bought: the order is refunded.
      if (pastLimit(request)) return { status: 'failed', message: processingLimitMessage(options.processingLimitMinutes) };
      return await buy(request);
    } catch (error) {
      if (error instanceof UpstreamUnavailable) return retryLater(RETRY_PREFIX, error, providerRef);
      if (error instanceof LabelProviderError) return { status: 'failed', message: error.message };
      throw error;
    }
  }

  /** A transaction's status as a refund's answer; null: no refund asked. */
  function refundOf(status: string | undefined): RefundAnswer | null {
    switch (status) {
      case 'REFUNDPENDING':
        return { status: 'submitted', checkInMs: options.refundPollMs };
      case 'REFUNDED':
        return { status: 'refunded' };
      case 'REFUNDREJECTED':
        return { status: 'rejected', reason: 'the carrier rejected the refund' };
      default:
        return null;
    }
  }

  async function quote(request: QuoteRequest): Promise<QuoteAnswer> {
    const ounces = request.weightUnit === 'lb' ? request.weight * 16 : request.weight;
    const sides =
      request.length && request.width && request.height
        ? { length: String(request.length), width: String(request.width), height: String(request.height) }
        : DEFAULT_SIDES_IN;
    const extra = {
      ...(request.reference ? { reference1: request.reference } : {}),
      ...(request.reference2 ? { reference2: request.reference2 } : {}),
      ...(request.isReturn ? { isReturn: true } : {}),
    };
    // A return is sent with the original shipment's addresses and extra.is_return: Shippo swaps them on the label.
    const [to, from] = request.isReturn ? [request.from, request.to] : [request.to, request.from];
    const shipment = await call((sdk) =>
      sdk.shipments.create({
        async: false,
        metadata: request.quoteId,
        addressFrom: addressOf(from),
        addressTo: addressOf(to),
        parcels: [{ ...sides, distanceUnit: 'in', weight: String(Math.round(ounces * 10) / 10), massUnit: 'oz' }],
        shipmentDate: `${request.shipDate}T12:00:00Z`,
        ...(Object.keys(extra).length ? { extra } : {}),
      }),
    );
    const carriersInError = new Set((shipment.messages ?? []).map((m) => m.source));
    const rateFor = (mapped: UpstreamService) =>
      shipment.rates.find(
        (r) =>
          r.provider === mapped.carrier && r.servicelevel?.token === mapped.service && (!mapped.carrierAccount || r.carrierAccount === mapped.carrierAccount),
      );
    return {
      shipmentRef: shipment.objectId,
      rates: request.wanted.map(({ uid, upstream }) => {
        const rate = upstream ? rateFor(upstream) : undefined;
        if (!rate) return { uid, status: upstream && carriersInError.has(upstream.carrier) ? 'unavailable' : 'route' };
        const days = Number(rate.estimatedDays);
        return {
          uid,
          status: 'rated',
          costCents: Math.round(Number(rate.amount) * 100),
          days: Number.isFinite(days) && days > 0 ? days : null,
          rateId: rate.objectId,
        };
      }),
      offered: uniqueServices(shipment.rates.map((r) => ({ carrier: r.provider, service: String(r.servicelevel?.token ?? '') }))),
    };
  }

  return {
    name: 'shippo',
    freeLabels: false,
    mapsServices: true,
    insures: false,
    purchaseWaitMs: () => limit.purchaseWaitMs(),
    concurrency: options.concurrency,
    quote,
    async createLabel(request) {
      try {
        return await buy(request);
      } catch (error) {
        if (error instanceof UpstreamUnavailable) return retryLater(RETRY_PREFIX, error);
        throw error;
      }
    },
    async findLabel(request) {
      try {
        return await found(request);
      } catch (error) {
        // Shippo could not be asked: not known to be unsold, so the order stays Processing.
        if (error instanceof UpstreamUnavailable) return retryLater(RETRY_PREFIX, error);
        throw error;
      }
    },
    checkLabel,
    async verifyAddress(party): Promise<AddressCheck> {
      try {
        const address = await call((sdk) => sdk.addresses.create({ ...addressOf(party), validate: true }));
        const results = address.validationResults;
        if (!results?.isValid) {
          const words = (results?.messages ?? [])
            .map((m) => m.text)
            .filter(Boolean)
            .join('; ');
          return { verified: false, message: words || 'the address could not be verified' };
        }
        const text = (value: unknown) => (typeof value === 'string' ? value : '');
        return {
          verified: true,
          address: {
            ...party,
            street: text(address.street1),
            street2: text(address.street2),
            city: text(address.city),
            state: text(address.state),
            zip: text(address.zip),
          },
        };
      } catch (error) {
        if (error instanceof LabelProviderError) return { verified: false, message: error.message.replace(REFUSED_PREFIX, '') };
        throw error;
      }
    },
    async requestRefund(request) {
      const txn = await transactionOf(request.orderId, request.chosen?.rateId);
      if (!txn || txn.status !== 'SUCCESS') return refundOf(txn?.status) ?? { status: 'rejected', reason: 'no label was bought upstream for this order' };
      try {
        const refund = await call((sdk) => sdk.refunds.create({ transaction: String(txn.objectId), async: false }));
        if (refund.status === 'SUCCESS') return { status: 'refunded' };
        if (refund.status === 'ERROR') return { status: 'rejected', reason: 'the carrier rejected the refund' };
        return { status: 'submitted', checkInMs: options.refundPollMs };
      } catch (error) {
        // A 4xx is Shippo's refusal (already refunded, not refundable...): the refund is rejected with its words.
        if (error instanceof LabelProviderError) return { status: 'rejected', reason: error.message.replace(REFUSED_PREFIX, '') };
        throw error;
      }
    },
    async checkRefund(request) {
      const txn = await transactionOf(request.orderId, request.chosen?.rateId);
      return refundOf(txn?.status) ?? { status: 'none' };
    },
    async parseWebhook(rawBody, _headers, query): Promise<WebhookNews> {
      const secret = options.webhookSecret;
      if (!secret) throw new WebhookRefused(401, 'no Shippo webhook secret is configured');
      const given = Buffer.from(String(query.token ?? ''));
      const wanted = Buffer.from(secret);
      if (given.length !== wanted.length || !crypto.timingSafeEqual(given, wanted)) throw new WebhookRefused(401, 'the webhook token is wrong or missing');
      let event: any;
      try {
        event = JSON.parse(rawBody.toString('utf8'));
      } catch {
        throw new WebhookRefused(400, 'the body is not JSON');
      }
      if (!event || typeof event !== 'object' || typeof event.event !== 'string') throw new WebhookRefused(400, 'the body is not a Shippo event');
      if (event.event !== 'track_updated') return null;
      const trackingNumber = event.data?.tracking_number;
      const status = event.data?.tracking_status?.status;
      if (typeof trackingNumber !== 'string' || typeof status !== 'string')
        throw new WebhookRefused(400, 'the tracking event has no tracking number or status');
      // Shippo's events carry no id: the body's hash is the event's (a replay is the same event).
      const eventId = `shippo:${crypto.createHash('sha256').update(rawBody).digest('hex')}`;
      return { eventId, tracking: { trackingNumber, status: TRACKING[status] ?? 'unknown' } };
    },
    createScanForm,
    findScanForm,
    async close() {
      await options.rate?.close();
    },
  };
}
