import { AsyncLocalStorage } from 'node:async_hooks';
import type EasyPostClient from '@easypost/api';
import { NOT_AVAILABLE_RIGHT_NOW } from '@portal/contract';
import type { CallRate } from '../../lib/call-rate.ts';
import {
  LabelProviderError,
  type AddressCheck,
  type LabelParty,
  type LabelPending,
  type LabelProvider,
  type LabelReady,
  type LabelRequest,
  type QuoteAnswer,
  type QuoteRequest,
  type RefundAnswer,
  type UpstreamService,
  uniqueServices,
} from './label-provider.ts';

/**
 * The defaults, by spec label type uid; a type missing here is not offered while the provider is EasyPost. The UPS
 * types ship inside Canada: EasyPost's Canadian UPS services (its US names, Ground, NextDayAir..., get no rate there).
 */
export const DEFAULT_EASYPOST_SERVICES: Record<string, UpstreamService> = {
  priority: { carrier: 'USPS', service: 'Priority' },
  uspsv9: { carrier: 'USPS', service: 'Priority' },
  ground_oz: { carrier: 'USPS', service: 'GroundAdvantage' },
  fedex_ground: { carrier: 'FedEx', service: 'FEDEX_GROUND' },
  ups_standard: { carrier: 'UPS', service: 'UPSStandard' },
  ups_express: { carrier: 'UPS', service: 'Express' },
  ups_express_saver: { carrier: 'UPS', service: 'UPSSaver' },
  ups_express_early: { carrier: 'UPS', service: 'ExpressPlus' },
  ups_expedited: { carrier: 'UPS', service: 'Expedited' },
};

/** Where the adapter keeps, by our order id, the Shipment it made (before buying it) and what the purchase cost. */
export type ShipmentStore = {
  shipmentOf(orderId: string): Promise<string | null>;
  recordShipment(orderId: string, shipmentId: string): Promise<void>;
  recordPurchase(orderId: string, purchase: { costCents: number; carrier: string; service: string }): Promise<void>;
};

/** A rate above what the shop may pay is refused in the customer's words: nothing about costs reaches them (the audit row has it). */
export const COST_ABOVE_PRICE = NOT_AVAILABLE_RIGHT_NOW;
export const processingLimitMessage = (minutes: number) => `the label was not made within ${minutes} minutes; the order was refunded`;

/** A fault worth trying again later (timeout, 5xx, network, a 429 still there): the order stays Processing. */
class UpstreamUnavailable extends Error {
  constructor(
    message: string,
    /** What a 429's Retry-After asked for. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Retries of an upstream fault back off: 1 s, 2 s, 4 s... at most 5 minutes (the reference counts the tries). */
const RETRY_BASE_MS = 1000;
const RETRY_MAX_MS = 5 * 60_000;
const triesIn = (providerRef: string | undefined) => Number(/^easypost:retry:(\d+)$/.exec(providerRef ?? '')?.[1] ?? 0);
function later(error: UpstreamUnavailable, providerRef?: string): LabelPending {
  const tries = triesIn(providerRef) + 1;
  return {
    status: 'processing',
    providerRef: `easypost:retry:${tries}`,
    retryInMs: Math.max(error.retryAfterMs ?? 0, Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (tries - 1))),
  };
}

/** The answer of the upstream call under way, as its response hook saw it. */
const callUnderWay = new AsyncLocalStorage<{ retryAfter?: string }>();

/** How a 429 is waited out in the call that met it before the order is left Processing. */
const RATE_LIMITED_TRIES = 3;
const MAX_RETRY_AFTER_MS = 30_000;

const COUNTRY_CODES: Record<string, string> = { 'United States': 'US', Canada: 'CA' };

/** A party as EasyPost takes it; a quote's party may hold only its ZIP and country (EasyPost rates on those). */
const addressOf = (party: LabelParty) => ({
  name: party.name || undefined,
  company: party.company || undefined,
  street1: party.street || undefined,
  street2: party.street2 || undefined,
  city: party.city || undefined,
  state: party.state || undefined,
  zip: party.zip,
  country: COUNTRY_CODES[party.country] ?? party.country,
  phone: party.phone || undefined,
});

/** The Shipment of a label or a quote: its reference (our order or quote id), parties and parcel (weight in ounces). */
function shipmentParams(reference: string, request: QuoteRequest | LabelRequest) {
  const ounces = request.weightUnit === 'lb' ? request.weight * 16 : request.weight;
  return {
    reference,
    to_address: addressOf(request.to),
    from_address: addressOf(request.from),
    parcel: {
      weight: Math.round(ounces * 10) / 10,
      ...(request.length && request.width && request.height ? { length: request.length, width: request.width, height: request.height } : {}),
    },
    options: shipmentOptions(request),
  };
}

/** The rate of a Shipment that buys a type's mapped carrier and service (and carrier account, when set). */
const rateFor = (shipment: any, mapped: UpstreamService) =>
  (shipment.rates ?? []).find(
    (r: any) => r.carrier === mapped.carrier && r.service === mapped.service && (!mapped.carrierAccount || r.carrier_account_id === mapped.carrierAccount),
  );

/** A refusal's message as the customer reads it: the upstream's words, with the fields it names. */
function plainMessage(error: { message?: string; errors?: unknown }): string {
  const details = Array.isArray(error.errors)
    ? error.errors.map((e: { field?: string; message?: string }) => (e && e.message ? (e.field ? `${e.field}: ${e.message}` : e.message) : '')).filter(Boolean)
    : [];
  const text = [error.message, ...details].filter(Boolean).join('; ');
  return text ? `the carrier refused the label: ${text}` : 'the carrier refused the label';
}

/** At most `concurrency` calls at once in this process; a purchase starts when the shared rate (if any) lets it. */
function limiter(concurrency: number, rate?: CallRate) {
  let running = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    running--;
    queue.shift()?.();
  };
  return async <T>(work: () => Promise<T>, purchase = false): Promise<T> => {
    if (running >= concurrency) await new Promise<void>((resolve) => queue.push(resolve));
    running++;
    try {
      if (purchase) await rate?.take();
      return await work();
    } finally {
      release();
    }
  };
}

export type EasyPostOptions = {
  apiKey: string;
  apiUrl: string;
  timeoutMs: number;
  concurrency: number;
  /** EASYPOST_MAX_PER_SECOND: purchases a second, shared by every process (lib/call-rate); none: no limit. */
  rate?: CallRate;
  maxCostRatio: number;
  processingLimitMinutes: number;
  /** How long after a refund is submitted it is asked about again (REFUND_POLL_INTERVAL_MS); webhooks usually tell first. */
  refundPollMs?: number;
  store: ShipmentStore;
  services: (uid: string) => Promise<UpstreamService | null>;
  /** Told of a rate refused for its cost (the operator's audit row). */
  onCostRefused?: (request: LabelRequest, costCents: number) => Promise<void>;
};

/**
 * A Shipment's options: the label as a PDF, dated with the ship date (label_date, an ISO date-time: noon UTC of that
 * day), with the reference lines printed on it (print_custom_1 and _2; their carrier's length limits are checked when
 * the order is made).
 */
export function shipmentOptions(request: Pick<LabelRequest, 'shipDate' | 'reference' | 'reference2'>): Record<string, string> {
  return {
    label_format: 'PDF',
    ...(request.shipDate ? { label_date: `${request.shipDate}T12:00:00Z` } : {}),
    ...(request.reference ? { print_custom_1: request.reference } : {}),
    ...(request.reference2 ? { print_custom_2: request.reference2 } : {}),
  };
}

/**
 * Real postage through EasyPost's official client. A label is bought in three steps: a Shipment made with reference =
 * our order id and its id recorded on the order; the rate of the type's mapped carrier and service chosen; the
 * Shipment bought and its label file fetched. Whatever ran before (a retry, a process that died), a recorded
 * Shipment is retrieved first and its postage_label used if it has one, so a label is never bought twice.
 * Upstream 4xx answers refuse the label (LabelProviderError: cancelled and refunded); timeouts, 5xx and network
 * errors leave it Processing, asked about again by the completion sweep; a 429 is waited out as its Retry-After asks.
 */
export function createEasyPostLabelProvider(options: EasyPostOptions): LabelProvider {
  const limit = limiter(options.concurrency, options.rate);

  let shared: Promise<InstanceType<typeof EasyPostClient>> | undefined;
  /**
   * The client every call of this provider shares. Loaded with the first call: the client and its HTTP library are
   * 22 MB of a process's memory, which a shop on the sandbox never needs (catalog seeding imports this file for its
   * defaults). The client keeps its `timeout` option but does not apply it (8.9): each request's deadline is set here.
   */
  function client() {
    shared ??= import('@easypost/api').then(({ default: Client }) => {
      const made = new Client(options.apiKey, {
        baseUrl: options.apiUrl,
        timeout: options.timeoutMs,
        requestMiddleware: (request: any) => request.timeout({ deadline: options.timeoutMs }),
      } as any);
      // The hook runs in the async context of the call that was answered, so each call hears its own Retry-After.
      made.addResponseHook((answer) => {
        const call = callUnderWay.getStore();
        if (call && answer.httpStatus === 429) call.retryAfter = (answer.headers as Record<string, string>)['retry-after'];
      });
      return made;
    });
    return shared;
  }

  /** One API call; a 429 is waited out as its Retry-After asks, RATE_LIMITED_TRIES times at most. */
  async function call<T>(work: (client: InstanceType<typeof EasyPostClient>) => Promise<T>, purchase = false): Promise<T> {
    const easypost = await client();
    for (let tries = 1; ; tries++) {
      const answered: { retryAfter?: string } = {};
      try {
        return await callUnderWay.run(answered, () => limit(() => work(easypost), purchase));
      } catch (error) {
        const status = (error as { statusCode?: number }).statusCode;
        const seconds = Number(answered.retryAfter);
        const waitMs = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000;
        if (status === 429 && tries < RATE_LIMITED_TRIES && waitMs <= MAX_RETRY_AFTER_MS) {
          await new Promise((r) => setTimeout(r, waitMs));
          continue;
        }
        if (status === 429) throw new UpstreamUnavailable((error as Error).message, waitMs);
        if (typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429)
          throw new LabelProviderError(plainMessage(error as { message?: string }));
        throw new UpstreamUnavailable((error as Error).message);
      }
    }
  }

  /** A label file the upstream links to. */
  async function fileAt(url: string): Promise<Uint8Array> {
    try {
      const answer = await limit(() => fetch(url, { signal: AbortSignal.timeout(options.timeoutMs) }));
      if (!answer.ok) throw new Error(`label file answered ${answer.status}`);
      return new Uint8Array(await answer.arrayBuffer());
    } catch (error) {
      throw new UpstreamUnavailable((error as Error).message);
    }
  }

  /** The bought Shipment's label: its file fetched while the purchase is kept on the order (made whether the file comes or not). */
  async function labelOf(request: LabelRequest, shipment: any): Promise<LabelReady> {
    const postage = shipment.postage_label;
    const rate = shipment.selected_rate ?? {};
    const [pdf] = await Promise.all([
      fileAt(postage.label_pdf_url || postage.label_url),
      options.store.recordPurchase(request.orderId, {
        costCents: Math.round(Number(rate.rate) * 100),
        carrier: String(rate.carrier ?? ''),
        service: String(rate.service ?? ''),
      }),
    ]);
    return { status: 'completed', tracking: String(shipment.tracking_code), pdf };
  }

  /** The recorded Shipment of the order, or null when none was made. */
  async function recorded(request: LabelRequest): Promise<any | null> {
    const id = await options.store.shipmentOf(request.orderId);
    return id ? call((client) => client.Shipment.retrieve(id)) : null;
  }

  async function buy(request: LabelRequest): Promise<LabelReady> {
    // A quote's Shipment, recorded on the order with its charge, and its rate (priced against the order's price then):
    // bought at once, no second rating call.
    if (request.quoted) return labelOf(request, await call((client) => client.Shipment.buy(request.quoted!.shipmentRef, request.quoted!.rateId), true));
    const mapped = await options.services(request.uid);
    if (!mapped) throw new LabelProviderError(`${request.serviceName} is not offered at the moment`);
    let shipment = await recorded(request);
    if (shipment?.postage_label) return labelOf(request, shipment);
    if (!shipment) {
      shipment = await call((client) => client.Shipment.create(shipmentParams(request.orderId, request) as any));
      // Recorded before it is bought: a retry retrieves it, and finds the label if the purchase went through.
      await options.store.recordShipment(request.orderId, shipment.id);
    }
    const rate = rateFor(shipment, mapped);
    if (!rate) throw new LabelProviderError(`${mapped.carrier} ${mapped.service} is not available for this shipment`);
    const costCents = Math.round(Number(rate.rate) * 100);
    if (request.priceCents !== undefined && costCents > request.priceCents * options.maxCostRatio) {
      await options.onCostRefused?.(request, costCents);
      throw new LabelProviderError(COST_ABOVE_PRICE);
    }
    // EASYPOST_MAX_PER_SECOND counts purchases, the limit a shop keeps to upstream (a label takes three calls).
    return labelOf(request, await call((client) => client.Shipment.buy(shipment.id, rate.id), true));
  }

  /** The label, or Processing while the upstream cannot be reached. */
  async function attempt(request: LabelRequest, providerRef?: string): Promise<LabelReady | LabelPending> {
    try {
      return await buy(request);
    } catch (error) {
      if (error instanceof UpstreamUnavailable) return later(error, providerRef);
      throw error;
    }
  }

  /** The bought label converted to ZPL by EasyPost (GET shipments/:id/label?file_format=ZPL) and its file fetched. */
  async function zplLabel(request: LabelRequest): Promise<Uint8Array> {
    const id = await options.store.shipmentOf(request.orderId);
    if (!id) throw new LabelProviderError('the upstream has no shipment for this order');
    const shipment: any = await call((client) => client.Shipment.convertLabelFormat(id, 'ZPL'));
    const url: string | undefined = shipment.postage_label?.label_zpl_url;
    if (!url) throw new UpstreamUnavailable('the upstream gave no ZPL file');
    return fileAt(url);
  }

  /** EasyPost's refund_status as our answer; null: no refund asked. */
  function refundAnswer(shipment: any): RefundAnswer | null {
    switch (shipment?.refund_status) {
      case 'submitted':
        return { status: 'submitted', checkInMs: options.refundPollMs };
      case 'refunded':
        return { status: 'refunded' };
      case 'rejected':
        return { status: 'rejected', reason: 'the carrier rejected the refund' };
      case 'not_applicable':
        return { status: 'rejected', reason: 'the carrier does not refund this label' };
      default:
        return null;
    }
  }

  /**
   * One Shipment (reference = our quote id) prices every type asked: each type's mapped rate with its days, 'route' for
   * a service the carrier does not rate here, 'unavailable' for a carrier that answered a rate error.
   */
  async function quote(request: QuoteRequest): Promise<QuoteAnswer> {
    const shipment: any = await call((client) => client.Shipment.create(shipmentParams(request.quoteId, request) as any));
    const carriersInError = new Set(((shipment.messages ?? []) as { carrier?: string }[]).map((m) => m.carrier));
    return {
      shipmentRef: shipment.id,
      rates: request.wanted.map(({ uid, upstream }) => {
        const rate = upstream ? rateFor(shipment, upstream) : undefined;
        if (!rate) return { uid, status: upstream && carriersInError.has(upstream.carrier) ? 'unavailable' : 'route' };
        const days = Number(rate.est_delivery_days ?? rate.delivery_days);
        return { uid, status: 'rated', costCents: Math.round(Number(rate.rate) * 100), days: Number.isFinite(days) && days > 0 ? days : null, rateId: rate.id };
      }),
      offered: uniqueServices(((shipment.rates ?? []) as { carrier: string; service: string }[]).map((r) => ({ carrier: r.carrier, service: r.service }))),
    };
  }

  return {
    name: 'easypost',
    quote,
    zplLabel,
    async requestRefund(request) {
      const id = await options.store.shipmentOf(request.orderId);
      if (!id) return { status: 'rejected', reason: 'no label was bought upstream for this order' };
      try {
        const shipment = await call((client) => client.Shipment.refund(id));
        return refundAnswer(shipment) ?? { status: 'submitted', checkInMs: options.refundPollMs };
      } catch (error) {
        // A 4xx is EasyPost's refusal (already refunded, no postage...): the refund is rejected with its words.
        if (error instanceof LabelProviderError) return { status: 'rejected', reason: error.message };
        throw error;
      }
    },
    async checkRefund(request) {
      const shipment = await recorded(request);
      if (!shipment) return { status: 'none' };
      return refundAnswer(shipment) ?? { status: 'none' };
    },
    freeLabels: false,
    concurrency: options.concurrency,
    createLabel: (request) => attempt(request),
    async findLabel(request) {
      try {
        const shipment = await recorded(request);
        return shipment?.postage_label ? await labelOf(request, shipment) : null;
      } catch (error) {
        if (error instanceof UpstreamUnavailable) return later(error);
        throw error;
      }
    },
    async checkLabel(request, providerRef) {
      try {
        if (Date.now() - Date.parse(request.createdAt) > options.processingLimitMinutes * 60_000) {
          // Past the limit nothing more is bought: the label is used if the upstream has it, else the order is refunded.
          const shipment = await recorded(request);
          return shipment?.postage_label
            ? await labelOf(request, shipment)
            : { status: 'failed', message: processingLimitMessage(options.processingLimitMinutes) };
        }
        return await attempt(request, providerRef);
      } catch (error) {
        if (error instanceof UpstreamUnavailable) return later(error, providerRef);
        if (error instanceof LabelProviderError) return { status: 'failed', message: error.message };
        throw error;
      }
    },
    async verifyAddress(party): Promise<AddressCheck> {
      try {
        const address: any = await call((client) => client.Address.createAndVerify(addressOf(party) as any));
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
        // A 4xx (ADDRESS.VERIFY.FAILURE): the carrier does not know it, in its words without the refusal's preamble.
        if (error instanceof LabelProviderError) return { verified: false, message: error.message.replace(/^the carrier refused the label: /, '') };
        throw error;
      }
    },
    async close() {
      await options.rate?.close();
    },
  };
}
