/** Printed on every sandbox label, in every format, so it can never pass as postage. */
export const SAMPLE_MARK = 'SAMPLE - NOT VALID FOR POSTAGE';

/** One side of a shipment as the label prints it. */
export type LabelParty = {
  name: string;
  company: string;
  street: string;
  street2: string;
  city: string;
  state: string;
  zip: string;
  country: string;
  phone: string;
};

export type LabelRequest = {
  /** Our order id; adapters pass it upstream as the idempotency key, so a retry never buys twice. */
  orderId: string;
  uid: string;
  serviceName: string;
  design: string | null;
  weight: number;
  weightUnit: 'lb' | 'oz';
  length: number | null;
  width: number | null;
  height: number | null;
  from: LabelParty;
  to: LabelParty;
  createdAt: string;
  /** What the customer pays for it: an upstream rate above it (times LABEL_MAX_COST_RATIO) is refused before buying. */
  priceCents?: number;
  /**
   * The upstream the order is bought at (orders.provider): where it was bought, or is being bought, once `chosen` is
   * set; before that, the shop's preferred upstream. Refunds, ZPL and tracking go to it.
   */
  upstream: string;
  /**
   * The upstream shipment and rate this order buys, recorded on the order before it is bought (orders.upstream_ref and
   * upstream_rate_id): after a crash or a lost answer only that upstream is asked what became of it. Null while no
   * upstream was chosen (nothing can have been bought). The sandbox's shipmentRef is its own name, its rateId null.
   */
  chosen: ChosenRate | null;
  /** The day the parcel ships (YYYY-MM-DD); unset for orders made before ship dates: the day it was made. */
  shipDate?: string | null;
  /** The reference lines the label prints ('' or unset: none). */
  reference?: string;
  reference2?: string;
  /**
   * A return label: `from` is the original receiver sending it back, `to` the original sender. An upstream that swaps
   * the addresses itself (EasyPost, Shippo: is_return) is sent them as the original shipment had them.
   */
  isReturn?: boolean;
  /** The declared value insured with the label (cents), bought with it; unset: none. */
  insuredCents?: number;
};

/** The shipment and rate an order buys at its upstream. */
export type ChosenRate = { shipmentRef: string; rateId: string | null };

/** What a label type is bought as upstream: a carrier, a service and (optionally) a carrier account. */
export type UpstreamService = { carrier: string; service: string; carrierAccount?: string | null };

/** A package to price: the parties (whole, or only ZIP and country), the parcel and its ship date, for each type wanted. */
export type QuoteRequest = Pick<
  LabelRequest,
  'weight' | 'weightUnit' | 'length' | 'width' | 'height' | 'from' | 'to' | 'reference' | 'reference2' | 'isReturn' | 'insuredCents'
> & {
  /** Our quote id (the upstream shipment's reference). */
  quoteId: string;
  /** YYYY-MM-DD. */
  shipDate: string;
  wanted: { uid: string; upstream: UpstreamService | null; priceCents: number }[];
};
/** One type's upstream rate: its cost, business days in transit when known, and the rate to buy. */
export type UpstreamRate = {
  uid: string;
  status: 'rated';
  costCents: number;
  days: number | null;
  rateId: string | null;
  /** Where the rate was found and the shipment it belongs to (set by the upstream list, which asks each upstream). */
  upstream?: string;
  shipmentRef?: string | null;
};
/** No rate for the type: the upstream does not offer its service on this route, or the carrier cannot rate it now. */
export type NoRate = { uid: string; status: 'route' | 'unavailable'; message?: string };
/** A carrier and service an upstream rated (the upstream list tags each with its upstream). */
export type OfferedService = { carrier: string; service: string; upstream?: string };
export type QuoteAnswer = {
  /** The upstream shipment the rates belong to (bought later by an order that matches it), or null. */
  shipmentRef: string | null;
  rates: (UpstreamRate | NoRate)[];
  /**
   * Every carrier and service the upstream rated for this package (whether a type wants it or not): the names the
   * console's mapping editor offers. The sandbox rates whatever it is asked, so it names the services asked for.
   */
  offered: OfferedService[];
};

export type LabelReady = {
  status: 'completed';
  tracking: string;
  pdf: Uint8Array;
  /** What the purchase cost upstream, and the carrier and service it bought (an upstream that sells; not the sandbox). */
  bought?: { costCents: number; carrier: string; service: string; insuranceCostCents?: number };
};
/** The upstream accepted the order and will have the label later; `providerRef` is how to ask again. */
export type LabelPending = {
  status: 'processing';
  providerRef: string;
  /** When to ask again (an upstream fault backs off); the order poll interval when unset. */
  retryInMs?: number;
  /**
   * The ask never reached the upstream (a refused connection), so nothing can have been bought: the order may be
   * bought elsewhere at once. Unset: the upstream may have sold the label, and only it is asked again.
   */
  notSold?: boolean;
};
export type LabelFailed = { status: 'failed'; message: string };

/** What the upstream says of an address: known (with its corrected form), or not, in its words. */
export type AddressCheck = { verified: true; address: LabelParty } | { verified: false; message: string };
/**
 * What the provider says of a label's refund (void): asked and not decided yet (`checkInMs`: when to ask again),
 * refunded, or rejected with the reason. An upstream that cannot be reached throws; the sweep asks again later.
 */
export type RefundAnswer = { status: 'submitted'; checkInMs?: number } | { status: 'refunded' } | { status: 'rejected'; reason: string };

/** What an upstream's webhook tells, once verified: a tracking status or a refund's word about one of its labels. */
export type WebhookNews = {
  /** The upstream's event id (each is taken once). */
  eventId: string;
  tracking?: { shipmentRef?: string; trackingNumber?: string; status: string };
  refund?: { shipmentRef: string; status: string };
} | null;

/** A webhook refused before anything is read: a forged or unsigned event (401), or one that is not an event (400). */
export class WebhookRefused extends Error {
  constructor(
    readonly statusCode: 401 | 400,
    message: string,
  ) {
    super(message);
  }
}

/** A SCAN form to make: our form id (the upstream's reference where it keeps one), its from address, day and labels. */
export type ScanFormRequest = {
  formId: string;
  from: LabelParty;
  shipDate: string;
  carrier: string;
  /** Each label's upstream shipment and rate (Shippo finds the label's transaction by its rate) and tracking number. */
  labels: { orderId: string; shipmentRef: string | null; rateRef: string | null; tracking: string }[];
};
/** What the upstream says of a form: still being made (ask again later), made (its PDF), or refused with its reason. */
export type ScanFormAnswer =
  { status: 'creating'; ref: string; checkInMs?: number } | { status: 'created'; ref: string; pdf: Uint8Array } | { status: 'failed'; message: string };

/** A pickup to rate or book: our pickup id (the upstream's reference), where and when, and the labels it takes. */
export type PickupRequest = {
  pickupId: string;
  from: LabelParty;
  carrier: string;
  minDatetime: string;
  maxDatetime: string;
  instructions: string;
  labels: { orderId: string; shipmentRef: string | null; tracking: string }[];
};
/** The upstream's pickup (`ref`) and its offers for the carrier, each with its fee. */
export type PickupOffer = { ref: string; rates: { service: string; feeCents: number }[] };
/** Where a pickup stands at the upstream: booked (its confirmation), cancelled, or not booked. */
export type PickupState = { status: 'booked'; confirmation: string } | { status: 'cancelled' } | { status: 'unbooked' };

/** A refusal the user may read (bad address, service unavailable...); the order is cancelled and refunded. */
export class LabelProviderError extends Error {}

/** Where labels come from: the sandbox renderer by default, an upstream label API in production. */
export interface LabelProvider {
  readonly name: string;
  /**
   * True when a label costs nothing upstream (the sandbox renders it here): an order then asks for its label first
   * and is written once, with its charge, as the label left it. Otherwise (postage bought upstream) the order is
   * charged before it asks, so no label is bought for a customer who cannot pay.
   */
  readonly freeLabels?: boolean;
  /**
   * True when each label type is bought as a carrier service the console maps at this upstream (EasyPost, Shippo): a
   * type it has no mapping for is not bought there. Unset: it makes every type as it is (the sandbox).
   */
  readonly mapsServices?: boolean;
  /**
   * False for an upstream that cannot buy insurance with a label (Shippo here: its insurance goes on the shipment a
   * quote has already made): an insured order is bought elsewhere. Unset: it can (EasyPost on buy; the sandbox sells none).
   */
  readonly insures?: boolean;
  /**
   * How long a purchase asked now would wait for its slot under the upstream's purchase rate (its backlog): the upstream
   * list buys elsewhere when the cheapest upstream is saturated. Unset: never waits.
   */
  purchaseWaitMs?(): number;
  /** How many labels a bulk order asks for at once (an upstream's bounded concurrency); unset: the bulk default. */
  readonly concurrency?: number;
  /**
   * Prices a package for several label types in one ask (EasyPost: one Shipment and its rates[]). Throws when the
   * upstream cannot be asked (every type is then 'not available right now').
   */
  quote(request: QuoteRequest): Promise<QuoteAnswer>;
  /** Buys the label. Throws LabelProviderError when the upstream refuses it. */
  createLabel(request: LabelRequest): Promise<LabelReady | LabelPending>;
  /**
   * The label an earlier createLabel bought for this order (`request.orderId`), or null when none was bought. Asked
   * before buying again for an order a process took before: that process may have died between the purchase and its
   * record, and the label must not be bought twice. So an adapter remembers each purchase by our order id, durably,
   * before it buys: the sandbox in its own store; an upstream API by a record made before its purchase (EasyPost: the
   * Shipment created with reference = our order id, its id kept by order id before it is bought; the lookup
   * retrieves that Shipment and answers its postage_label if it has one, else null, and the next buy reuses it).
   */
  findLabel(request: LabelRequest): Promise<LabelReady | LabelPending | null>;
  /** Asks again about a label that was 'processing'. */
  checkLabel(request: LabelRequest, providerRef: string): Promise<LabelReady | LabelPending | LabelFailed>;
  /**
   * The label of a completed order as ZPL II (4x6, 203 dpi) for thermal printers: the sandbox renders it, an upstream
   * converts the label it sold (EasyPost: GET shipments/:id/label?file_format=ZPL). Unset: ZPL is not offered.
   */
  zplLabel?(request: LabelRequest): Promise<Uint8Array>;
  /** Asks the upstream whether it knows an address (EasyPost's create_and_verify); throws when it cannot be asked. */
  verifyAddress?(party: LabelParty): Promise<AddressCheck>;
  /** Asks the upstream to void the bought label of `request.orderId` and refund its postage. */
  requestRefund?(request: LabelRequest): Promise<RefundAnswer>;
  /**
   * What became of a refund asked before, or 'none' when the upstream has none (a process died before asking): the
   * caller asks then. Asked first by a process that takes a refund another took, so a refund is never asked twice.
   */
  checkRefund?(request: LabelRequest): Promise<RefundAnswer | { status: 'none' }>;
  /**
   * Verifies and reads one of the upstream's webhook events (POST /api/v1/labels/webhook/:upstream): null for an event
   * the shop does not act on. Throws WebhookRefused for a forged one. Unset: the upstream sends none.
   */
  parseWebhook?(rawBody: Buffer, headers: Record<string, string | string[] | undefined>, query: Record<string, string>): Promise<WebhookNews>;
  /**
   * Makes a SCAN form (USPS Form 5630, a manifest) of bought labels. Throws UpstreamUnavailable when the upstream cannot
   * be asked (asked again later) and LabelProviderError when it refuses the form. Unset: the upstream makes none.
   */
  createScanForm?(request: ScanFormRequest): Promise<ScanFormAnswer>;
  /**
   * What became of a form asked before: by its reference when the upstream answered one, else (the answer was lost) the
   * upstream's form that holds these labels; null when it has none, and the form is asked for again.
   */
  findScanForm?(request: ScanFormRequest, ref: string | null): Promise<ScanFormAnswer | null>;
  /** The upstream's pickup offers for these labels (EasyPost: a Pickup and its pickup_rates). Unset: no pickups. */
  ratePickup?(request: PickupRequest): Promise<PickupOffer>;
  /** Books one offer; throws LabelProviderError when refused, UpstreamUnavailable when it cannot be asked. */
  buyPickup?(ref: string, carrier: string, service: string): Promise<PickupState>;
  /** Where the pickup stands now (asked before buying or cancelling again). */
  findPickup?(ref: string): Promise<PickupState>;
  /** Cancels a booked pickup; throws LabelProviderError when refused (its window started). */
  cancelPickup?(ref: string): Promise<PickupState>;
  /** Lets go of what it holds open (files, connections); called as the services close. */
  close?(): Promise<void>;
}

/** A party's lines as a label prints them (the PDF's and the ZPL's): name, company, street, city line, country, phone. */
const cityLine = (p: LabelParty) => `${p.city} ${p.state} ${p.zip}`;
/** The reference lines an order's label prints, in order (none when the order has none). */
export const referenceLines = (request: LabelRequest): string[] => [request.reference ?? '', request.reference2 ?? ''].filter((line) => line !== '');

export function addressLines(p: LabelParty, withPhone: boolean, withCountry: boolean): string[] {
  const lines = [p.name];
  if (p.company) lines.push(p.company);
  lines.push(p.street);
  if (p.street2) lines.push(p.street2);
  lines.push(cityLine(p));
  if (withCountry) lines.push(p.country.toUpperCase());
  if (withPhone && p.phone) lines.push(`PH ${p.phone}`);
  return lines;
}

/** Each carrier and service once, in the order first met. */
export function uniqueServices(services: { carrier: string; service: string }[]): { carrier: string; service: string }[] {
  const seen = new Set<string>();
  return services.filter((s) => {
    const key = `${s.carrier}\n${s.service}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
