import { AsyncLocalStorage } from 'node:async_hooks';
import type EasyPostClient from '@easypost/api';
import { isRefusedConnection, limiter, processingLimitMessage, retryLater, upstreamCall, UpstreamUnavailable, type UpstreamOptions } from './upstream-call.ts';
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
  type PickupOffer,
  type PickupRequest,
  type PickupState,
  type ScanFormAnswer,
  type ScanFormRequest,
  type UpstreamService,
  type WebhookNews,
  WebhookRefused,
  uniqueServices,
} from './label-provider.ts';

/** The answer of the upstream call under way, as its response hook saw it. */
const callUnderWay = new AsyncLocalStorage<{ retryAfter?: string }>();

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
  // A return is sent with the original shipment's addresses and is_return: EasyPost swaps them on the label.
  const [to, from] = request.isReturn ? [request.from, request.to] : [request.to, request.from];
  return {
    reference,
    ...(request.isReturn ? { is_return: true } : {}),
    to_address: addressOf(to),
    from_address: addressOf(from),
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
function plainMessage(error: { message?: string; errors?: unknown }, what = 'the label'): string {
  const details = Array.isArray(error.errors)
    ? error.errors.map((e: { field?: string; message?: string }) => (e && e.message ? (e.field ? `${e.field}: ${e.message}` : e.message) : '')).filter(Boolean)
    : [];
  const text = [error.message, ...details].filter(Boolean).join('; ');
  return text ? `the carrier refused ${what}: ${text}` : `the carrier refused ${what}`;
}

export type EasyPostOptions = UpstreamOptions;

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
 * Real postage through EasyPost's official client. The upstream list chooses and records what an order buys before it
 * is bought: `quote` makes a Shipment (reference = our order id) and rates it; `createLabel` buys the chosen rate of
 * that Shipment and fetches its label file. Whatever ran before (a retry, a process that died), `findLabel` retrieves
 * the chosen Shipment and answers its postage_label if it has one, so a label is never bought twice.
 * Upstream 4xx answers refuse the label (LabelProviderError: cancelled and refunded); timeouts, 5xx and network
 * errors leave it Processing, asked about again by the completion sweep; a 429 is waited out as its Retry-After asks.
 */
export function createEasyPostLabelProvider(options: EasyPostOptions): LabelProvider {
  const limit = limiter(options.concurrency, options.rate);
  const health = options.health;

  let shared: Promise<InstanceType<typeof EasyPostClient>> | undefined;
  /**
   * The client every call of this provider shares. Loaded with the first call: the client and its HTTP library are
   * 22 MB of a process's memory, which a shop on the sandbox never needs. The client keeps its `timeout` option but does
   * not apply it (8.9): each request's deadline is set here.
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

  /** One API call, timed for the health view; a 429 is waited out as its Retry-After asks (upstream-call.ts). */
  async function call<T>(work: (client: InstanceType<typeof EasyPostClient>) => Promise<T>, purchase = false, what = 'the label'): Promise<T> {
    const easypost = await client();
    const answered: { retryAfter?: string } = {};
    const answer = await upstreamCall({
      limit,
      health,
      purchase,
      work: () => callUnderWay.run(answered, () => work(easypost)),
      failure: (error) => ({
        status: (error as { statusCode?: number }).statusCode,
        retryAfter: answered.retryAfter,
        refusedConnection: isRefusedConnection(error),
      }),
      refusal: (error) => new LabelProviderError(plainMessage(error as { message?: string }, what)),
    });
    if (purchase) health.purchased();
    return answer;
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

  /** The bought Shipment's label, with what the purchase cost. */
  async function labelOf(shipment: any): Promise<LabelReady> {
    const postage = shipment.postage_label;
    const rate = shipment.selected_rate ?? {};
    // What the insurance cost, from the Shipment's fees (an InsuranceFee when it was insured).
    const insuranceFee = ((shipment.fees ?? []) as { type?: string; amount?: string }[]).find((fee) => fee.type === 'InsuranceFee')?.amount;
    return {
      status: 'completed',
      tracking: String(shipment.tracking_code),
      pdf: await fileAt(postage.label_pdf_url || postage.label_url),
      bought: {
        costCents: Math.round(Number(rate.rate) * 100),
        carrier: String(rate.carrier ?? ''),
        service: String(rate.service ?? ''),
        insuranceCostCents: insuranceFee === undefined ? undefined : Math.round(Number(insuranceFee) * 100),
      },
    };
  }

  /** The order's chosen Shipment as EasyPost has it now, or null when none was chosen. */
  const recorded = (request: LabelRequest): Promise<any | null> =>
    request.chosen ? call((client) => client.Shipment.retrieve(request.chosen!.shipmentRef)) : Promise.resolve(null);

  /** Buys the chosen rate of the chosen Shipment (EASYPOST_MAX_PER_SECOND counts purchases, the limit kept to upstream). */
  async function buy(request: LabelRequest): Promise<LabelReady> {
    const chosen = request.chosen;
    if (!chosen?.rateId) throw new Error('no EasyPost rate was chosen for this order');
    // Insurance is bought with the label (EasyPost's `insurance` on buy, dollars as text as its reference sends it; the
    // client's types say number): one purchase or none.
    const insurance = request.insuredCents ? (request.insuredCents / 100).toFixed(2) : undefined;
    return labelOf(await call((client) => client.Shipment.buy(chosen.shipmentRef, chosen.rateId!, insurance as unknown as number), true));
  }

  /** The label, or Processing while the upstream cannot be reached. */
  async function attempt(work: () => Promise<LabelReady>, providerRef?: string): Promise<LabelReady | LabelPending> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof UpstreamUnavailable) return retryLater('easypost', error, providerRef);
      throw error;
    }
  }

  /** A retry: the Shipment retrieved first (a lost answer may have bought it), bought only if it has no postage. */
  async function findOrBuy(request: LabelRequest): Promise<LabelReady> {
    const shipment = await recorded(request);
    return shipment?.postage_label ? labelOf(shipment) : buy(request);
  }

  /** The bought label converted to ZPL by EasyPost (GET shipments/:id/label?file_format=ZPL) and its file fetched. */
  async function zplLabel(request: LabelRequest): Promise<Uint8Array> {
    if (!request.chosen) throw new LabelProviderError('the upstream has no shipment for this order');
    const shipment: any = await call((client) => client.Shipment.convertLabelFormat(request.chosen!.shipmentRef, 'ZPL'));
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
   * One Shipment (reference = our quote or order id) prices every type asked: each type's mapped rate with its days,
   * 'route' for a service the carrier does not rate here, 'unavailable' for a carrier that answered a rate error.
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

  /** A ScanForm as our answer: its PDF fetched once created. */
  async function formAnswer(form: any): Promise<ScanFormAnswer> {
    if (form.status === 'failed') return { status: 'failed', message: `the carrier refused the SCAN form${form.message ? `: ${form.message}` : ''}` };
    if (form.status === 'created' && form.form_url) return { status: 'created', ref: form.id, pdf: await fileAt(form.form_url) };
    return { status: 'creating', ref: form.id, checkInMs: options.refundPollMs };
  }

  /** POST /scan_forms with the labels' Shipments; a refusal (422: two from addresses, a refunded label...) fails the form. */
  async function createScanForm(request: ScanFormRequest): Promise<ScanFormAnswer> {
    const shipments = request.labels.map((label) => label.shipmentRef).filter((ref): ref is string => Boolean(ref));
    try {
      return await formAnswer(await call((client) => client.ScanForm.create({ shipments } as any), false, 'the SCAN form'));
    } catch (error) {
      if (error instanceof LabelProviderError) return { status: 'failed', message: error.message };
      throw error;
    }
  }

  /**
   * A form asked before: retrieved by its id, or (its answer was lost) found among the newest ScanForms as the one whose
   * tracking codes are these labels'. EasyPost keeps each Shipment on one form, so that form is ours.
   */
  async function findScanForm(request: ScanFormRequest, ref: string | null): Promise<ScanFormAnswer | null> {
    if (ref) return formAnswer(await call((client) => client.ScanForm.retrieve(ref)));
    const page: any = await call((client) => client.ScanForm.all({ page_size: 100 } as any));
    const ours = new Set(request.labels.map((label) => label.tracking));
    const form = ((page.scan_forms ?? []) as any[]).find((f) => Array.isArray(f.tracking_codes) && f.tracking_codes.some((code: string) => ours.has(code)));
    return form ? formAnswer(form) : null;
  }

  /** An EasyPost Pickup's state: scheduled (booked, its confirmation), canceled, or not bought. */
  const pickupState = (pickup: any): PickupState =>
    pickup.status === 'scheduled'
      ? { status: 'booked', confirmation: String(pickup.confirmation ?? '') }
      : pickup.status === 'canceled'
        ? { status: 'cancelled' }
        : { status: 'unbooked' };

  async function ratePickup(request: PickupRequest): Promise<PickupOffer> {
    const shipment = request.labels.find((label) => label.shipmentRef)?.shipmentRef;
    const pickup: any = await call(
      (client) =>
        client.Pickup.create({
          reference: request.pickupId,
          address: addressOf(request.from),
          shipment: { id: shipment },
          min_datetime: request.minDatetime,
          max_datetime: request.maxDatetime,
          instructions: request.instructions || undefined,
          is_account_address: false,
        } as any),
      false,
      'the pickup',
    );
    return {
      ref: pickup.id,
      rates: ((pickup.pickup_rates ?? []) as any[])
        .filter((rate) => rate.carrier === request.carrier)
        .map((rate) => ({ service: String(rate.service), feeCents: Math.round(Number(rate.rate) * 100) })),
    };
  }

  return {
    name: 'easypost',
    quote,
    ratePickup,
    buyPickup: async (ref, carrier, service) => pickupState(await call((client) => client.Pickup.buy(ref, carrier, service), false, 'the pickup')),
    findPickup: async (ref) => pickupState(await call((client) => client.Pickup.retrieve(ref))),
    cancelPickup: async (ref) => pickupState(await call((client) => client.Pickup.cancel(ref), false, 'the cancel')),
    createScanForm,
    findScanForm,
    zplLabel,
    async requestRefund(request) {
      if (!request.chosen) return { status: 'rejected', reason: 'no label was bought upstream for this order' };
      try {
        const shipment = await call((client) => client.Shipment.refund(request.chosen!.shipmentRef));
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
    mapsServices: true,
    purchaseWaitMs: () => limit.purchaseWaitMs(),
    concurrency: options.concurrency,
    createLabel: (request) => attempt(() => buy(request)),
    async findLabel(request) {
      try {
        const shipment = await recorded(request);
        return shipment?.postage_label ? await labelOf(shipment) : null;
      } catch (error) {
        if (error instanceof UpstreamUnavailable) return retryLater('easypost', error);
        throw error;
      }
    },
    async checkLabel(request, providerRef) {
      try {
        if (Date.now() - Date.parse(request.createdAt) > options.processingLimitMinutes * 60_000) {
          // Past the limit nothing more is bought: the label is used if the upstream has it, else the order is refunded.
          const shipment = await recorded(request);
          return shipment?.postage_label ? await labelOf(shipment) : { status: 'failed', message: processingLimitMessage(options.processingLimitMinutes) };
        }
        return await attempt(() => findOrBuy(request), providerRef);
      } catch (error) {
        if (error instanceof UpstreamUnavailable) return retryLater('easypost', error, providerRef);
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
    parseWebhook: (rawBody, headers) => parseEasyPostEvent(rawBody, headers, options.webhookSecret),
    async close() {
      await options.rate?.close();
    },
  };
}

export const EASYPOST_WEBHOOK_OFF = 'EasyPost webhooks are not set up (EASYPOST_WEBHOOK_SECRET)';
export const EASYPOST_SIGNATURE_INVALID = 'The webhook signature does not match';

const REFUND_STATUSES = ['submitted', 'refunded', 'rejected', 'not_applicable'];

/** The Shipment and refund status an event's result tells, if it is about a refund. */
function refundOf(result: any): { shipmentRef: string; status: string } | null {
  if (result?.object === 'Refund' && typeof result.shipment_id === 'string' && REFUND_STATUSES.includes(result.status))
    return { shipmentRef: result.shipment_id, status: result.status };
  if (result?.object === 'Shipment' && typeof result.id === 'string' && REFUND_STATUSES.includes(result.refund_status))
    return { shipmentRef: result.id, status: result.refund_status };
  return null;
}

/**
 * An EasyPost webhook event. The X-Hmac-Signature over the raw body is checked by the official client's
 * validateWebhook (NFKD-normalised secret, constant time): a forged event is refused (401) before anything is read.
 * A refund's word (a Refund object, or a Shipment with its refund_status), or a tracker.updated's status of the
 * Shipment it tracks; anything else is news of nothing.
 */
async function parseEasyPostEvent(rawBody: Buffer, headers: Record<string, unknown>, secret: string | undefined): Promise<WebhookNews> {
  if (!secret) throw new WebhookRefused(401, EASYPOST_WEBHOOK_OFF);
  let event: any;
  try {
    // validateWebhook needs a client only for its Utils; no call is made. Loaded with the first event: the client is
    // 22 MB of a process that may never receive one.
    const { default: Client } = await import('@easypost/api');
    event = new Client('webhook-check').Utils.validateWebhook(rawBody, headers as Record<string, string>, secret);
  } catch {
    throw new WebhookRefused(401, EASYPOST_SIGNATURE_INVALID);
  }
  if (!event || typeof event.id !== 'string') throw new WebhookRefused(400, 'The event has no id');
  const refund = refundOf(event.result);
  if (refund) return { eventId: event.id, refund };
  const tracker = event.result;
  if (event.description !== 'tracker.updated' || typeof tracker?.status !== 'string' || typeof tracker.shipment_id !== 'string') return null;
  return { eventId: event.id, tracking: { shipmentRef: tracker.shipment_id, status: tracker.status } };
}
