import {
  USPS_V9_DIMENSION,
  countryFor,
  labelFailedMessage,
  orderIssues,
  orderIssuesMessage,
  orderRuleViolations,
  templateRequired,
  LABEL_TYPE_REQUIRED,
  ORDER_NOT_FOUND,
  weightFor,
  shopDay,
  type CreateOrderInput,
  type CreateOrderRequest,
  type OrderIssue,
  RETURN_EXISTS,
  RETURN_OF_RETURN,
  RETURN_ONLY_COMPLETED,
  RETURN_REFUNDED,
  centsToDollars,
  dollarsToCents,
  formatDollars,
} from '@portal/contract';
import type { Trx } from '../../db/database.ts';
import { HttpError, conflict, notFound, paymentRequired } from '../../lib/http-errors.ts';
import { batchedReads } from '../../lib/batched-reads.ts';
import { isoIn, newId, nowIso, nowIsoIncreasing, randomToken } from '../../lib/ids.ts';
import { idleOutbox, type ShopEventRow } from '../../lib/shop-events.ts';
import { INSUFFICIENT_BALANCE, changeBalance } from '../billing/service.ts';
import { insurancePriceFor, priceFor, type CatalogService, type CatalogType, type Quote } from '../catalog/service.ts';
import type { QuotedChoice, RatesService } from '../rates/service.ts';
import { LabelProviderError } from '../../providers/labels/label-provider.ts';
import * as repo from './repository.ts';
import { labelRequestFor } from './label-request.ts';
import type { LabelOutcome, LabelPipeline, LabelPipelineDeps } from './label-pipeline.ts';

/** A 400 naming every problem of an order: { message, errors: [{ field, message }] }. */
export const invalidOrder = (issues: OrderIssue[]) => new HttpError(400, orderIssuesMessage(issues), { details: { errors: issues } });

/** The payload that orders the same thing again (a return's addresses as its outbound parcel had them, and Return). */
const inputFrom = (row: repo.OrderRow): CreateOrderInput => {
  const input = storedInput(row);
  return row.is_return ? { ...swapParties(input), Return: true } : input;
};

/** The order's fields as stored. */
const storedInput = (row: repo.OrderRow): CreateOrderInput => ({
  labelType: row.label_type_id,
  design: (row.design ?? undefined) as CreateOrderInput['design'],
  Weight: row.weight,
  Length: row.length ?? undefined,
  Width: row.width ?? undefined,
  Height: row.height ?? undefined,
  FromName: row.from_name,
  FromCompany: row.from_company,
  FromStreet: row.from_street,
  FromStreet2: row.from_street2,
  FromCity: row.from_city,
  FromState: row.from_state,
  FromZip: row.from_zip,
  FromCountry: row.from_country,
  FromPhone: row.from_phone,
  ToName: row.to_name,
  ToCompany: row.to_company,
  ToStreet: row.to_street,
  ToStreet2: row.to_street2,
  ToCity: row.to_city,
  ToState: row.to_state,
  ToZip: row.to_zip,
  ToCountry: row.to_country,
  ToPhone: row.to_phone,
  ToEmail: row.to_email ?? undefined,
  Insurance: row.insured_cents ? centsToDollars(row.insured_cents) : undefined,
  // A ship date now past is not repeated: the duplicate ships today.
  ShipDate: row.ship_date && row.ship_date >= shopDay() ? row.ship_date : undefined,
  Reference: row.reference1,
  Reference2: row.reference2,
});

const PARTY_FIELDS = ['Name', 'Company', 'Street', 'Street2', 'City', 'State', 'Zip', 'Country', 'Phone'] as const;

/** The input with its sender and receiver swapped: a return label's. */
function swapParties(input: CreateOrderInput): CreateOrderInput {
  const swapped: Record<string, unknown> = { ...input };
  for (const field of PARTY_FIELDS) {
    swapped[`From${field}`] = input[`To${field}`];
    swapped[`To${field}`] = input[`From${field}`];
  }
  return swapped as CreateOrderInput;
}

/** Why an order gets no return label now (409: not completed or one made; 422: a return, or refunded); null when it can. */
function returnRefusal(order: repo.OrderRow): HttpError | null {
  if (order.status !== 'completed') return conflict(RETURN_ONLY_COMPLETED);
  if (order.return_order_id) return conflict(RETURN_EXISTS);
  if (order.is_return) return new HttpError(422, RETURN_OF_RETURN);
  if (order.refund_status === 'requested' || order.refund_status === 'refunded') return new HttpError(422, RETURN_REFUNDED);
  return null;
}

/** What placing an order came to: the label is made (or on its way), or the provider refused it and the order was refunded. */
export type PlaceResult = ({ ok: true } | { ok: false; message: string }) & { orderId: string; labelType: string };

/**
 * The paid order row of an input, priced by the caller: single orders and every row of a bulk
 * order are written the same way. Country comes from the type; phone is kept for fedex_ground only;
 * USPS v9 is always 15 x 15 x 15.
 */
export function orderRowFor(
  userId: string,
  input: CreateOrderInput,
  type: { id: string; uid: string; name: string },
  priceCents: number,
  extra: {
    provider: string;
    createdAt: string;
    bulkOrderId?: string;
    bulkRow?: number;
    claimedUntil?: string;
    /** The quote it is bought under, and the quote's upstream shipment and rate when the order can reuse them. */
    quoteId?: string;
    quoted?: { upstream: string; shipmentRef: string; rateId: string } | null;
    /** The order this one returns (a return label). */
    returnOf?: string;
    /** What the insurance of input.Insurance costs (cents), charged with the label (insurancePriceFor). */
    insuranceCents?: number;
  },
): repo.OrderRow {
  // A return's label goes from the outbound parcel's receiver back to its sender: stored as it prints.
  if (input.Return) input = swapParties(input);
  const country = countryFor(type.uid);
  const v9 = type.uid === 'uspsv9';
  const keepPhone = type.uid === 'fedex_ground';
  return {
    id: newId(),
    user_id: userId,
    label_type_id: type.id,
    label_type_uid: type.uid,
    label_type_name: type.name,
    design: templateRequired(type.uid) ? (input.design ?? null) : null,
    weight: input.Weight,
    length: v9 ? USPS_V9_DIMENSION : (input.Length ?? null),
    width: v9 ? USPS_V9_DIMENSION : (input.Width ?? null),
    height: v9 ? USPS_V9_DIMENSION : (input.Height ?? null),
    from_name: input.FromName,
    from_company: input.FromCompany,
    from_street: input.FromStreet,
    from_street2: input.FromStreet2,
    from_city: input.FromCity,
    from_state: input.FromState,
    from_zip: input.FromZip,
    from_country: country,
    from_phone: keepPhone ? input.FromPhone : '',
    to_name: input.ToName,
    to_company: input.ToCompany,
    to_street: input.ToStreet,
    to_street2: input.ToStreet2,
    to_city: input.ToCity,
    to_state: input.ToState,
    to_zip: input.ToZip,
    to_country: country,
    to_phone: keepPhone ? input.ToPhone : '',
    // The label and its insurance are one charge: every refund of the order gives both back.
    price_cents: priceCents + (extra.insuranceCents ?? 0),
    insured_cents: input.Insurance ? dollarsToCents(input.Insurance) : null,
    insurance_cents: extra.insuranceCents ?? 0,
    insurance_cost_cents: null,
    status: 'pending',
    tracking: null,
    pdf_key: null,
    // The quote's upstream, or the preferred one until the label's upstream is chosen.
    provider: extra.quoted?.upstream ?? extra.provider,
    provider_ref: null,
    note: null,
    created_at: extra.createdAt,
    updated_at: extra.createdAt,
    bulk_order_id: extra.bulkOrderId ?? null,
    bulk_row: extra.bulkRow ?? null,
    claimed_until: extra.claimedUntil ?? null,
    // Written held (by the request that places it): its first take.
    claims: extra.claimedUntil ? 1 : 0,
    upstream_ref: extra.quoted?.shipmentRef ?? null,
    upstream_asked_at: null,
    upstream_rate_id: extra.quoted?.rateId ?? null,
    quote_id: extra.quoteId ?? null,
    upstream_cost_cents: null,
    upstream_carrier: null,
    upstream_service: null,
    tracking_status: null,
    refund_status: null,
    refund_note: null,
    refund_requested_at: null,
    refund_updated_at: null,
    refund_due_at: null,
    refund_claims: 0,
    scan_form_id: null,
    pickup_id: null,
    refund_upstream: null,
    refund_auto: 0,
    return_of: extra.returnOf ?? null,
    is_return: input.Return ? 1 : 0,
    return_order_id: null,
    // An order given no ship date ships on the day it is placed, a day of the shop's time zone (SHOP_TIME_ZONE).
    ship_date: input.ShipDate ?? shopDay(0, Date.parse(extra.createdAt)),
    reference1: input.Reference,
    reference2: input.Reference2,
    // Its public tracking page's link (shown once the label is made): 128 random bits, the page is found by it alone.
    tracking_token: randomToken(16),
    to_email: input.ToEmail ?? null,
  };
}

/** Called inside the transaction that charges an order, with its id (the reseller API records an idempotency key with the charge). */
export type OnCharged = (trx: Trx, resourceId: string) => Promise<void>;

export type PlacingDeps = Omit<LabelPipelineDeps, 'files'> & {
  catalog: CatalogService;
  /** Orders bought under a quote or a strategy (cheapest, fastest). */
  rates: RatesService;
  /**
   * How long a single order's request waits for a label bought upstream (LABEL_WAIT_MS): past it the order is answered
   * Processing and its purchase goes on in the background, still under the request's claim. Unset: it waits.
   */
  labelWaitMs?: number;
};

/**
 * Placing a single order: priced (under a quote, a strategy or the catalog), written with its charge in one transaction,
 * and its label asked of the label pipeline.
 */
export function createPlacing(deps: PlacingDeps, pipeline: LabelPipeline) {
  const { db, catalog, labels, log, pollMs, claimMs, metrics } = deps;
  const outbox = deps.outbox ?? idleOutbox;
  const { makeLabel, unsure, cancelAndRefund, packLabel, completedEvent } = pipeline;

  /** A customer's balance as it is now; the reads of orders placed at the same moment are one statement. Only a hint: the charge decides. */
  const balanceOf = batchedReads(async (userIds) => new Map((await repo.balancesOf(db, userIds)).map((u) => [u.id, Number(u.balance_cents)])));

  /**
   * Buys the label of a paid order, waiting for it at most labelWaitMs: past that the order shows Processing (spec
   * status flow: the history polls it) and the purchase, still holding the order's claim, records what it comes to.
   */
  async function fulfil(order: repo.OrderRow): Promise<PlaceResult> {
    // Charged: whatever fails now, the answer is the order (Processing), never an error a client would retry and pay again.
    const making = makeLabel(order).catch((error) => unsure(order, error));
    if (deps.labelWaitMs === undefined) return placed(order, await making);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(resolve, deps.labelWaitMs, null)));
    const outcome = await Promise.race([making, late]).finally(() => clearTimeout(timer));
    if (outcome) return placed(order, outcome);
    await repo
      .markStillBuying(db, order.id, nowIso())
      .catch((error) => log.error({ err: error, orderId: order.id }, 'the order could not be shown Processing; its purchase goes on'));
    return placed(order, { status: 'processing' });
  }

  const placed = (order: repo.OrderRow, outcome: LabelOutcome): PlaceResult =>
    outcome.status === 'cancelled'
      ? { ok: false, orderId: order.id, labelType: order.label_type_uid, message: labelFailedMessage(outcome.message) }
      : { ok: true, orderId: order.id, labelType: order.label_type_uid };

  /**
   * The order's type and price, or a 400 naming every broken rule of its type at once, a weight outside its tiers among
   * them. Under a quote (or a strategy) the type is the one chosen and the price the quote's.
   */
  async function quote(input: CreateOrderInput, chosen: QuotedChoice | null): Promise<Quote & { insuranceCents: number }> {
    const type = chosen?.type ?? (await catalog.orderableType(input.labelType));
    const issues = orderRuleViolations(input, type.uid);
    const price = chosen ? ({ ok: true, priceCents: chosen.priceCents } as const) : priceFor(type, input.Weight);
    if (!price.ok) issues.push({ field: 'Weight', message: price.message });
    const insurance = insuranceOf(input);
    if (!insurance.ok) issues.push({ field: 'Insurance', message: insurance.message });
    if (!price.ok || !insurance.ok || issues.length > 0) throw invalidOrder(issues);
    return { type, priceCents: price.priceCents, insuranceCents: insurance.priceCents };
  }

  /** The price of the order's insurance (0 without one), or why it is not sold. */
  const insuranceOf = (input: CreateOrderInput) =>
    input.Insurance ? insurancePriceFor(catalog.insurance, dollarsToCents(input.Insurance)) : ({ ok: true, priceCents: 0 } as const);

  const inTypeUnit = async (input: CreateOrderInput & { WeightUnit: 'lb' | 'oz' }): Promise<CreateOrderInput> => ({
    ...input,
    Weight: weightFor((await catalog.orderableType(input.labelType)).uid, input.Weight, input.WeightUnit),
  });

  /**
   * The 400 of a body that failed createOrderBody: every bad field, then the rules of its label type
   * (when it names one that can be ordered) over the fields that passed, and the weight's price.
   */
  async function invalidBody(body: unknown): Promise<HttpError> {
    const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const ref = typeof fields.labelType === 'string' ? fields.labelType.trim() : '';
    let type: CatalogType | undefined;
    let typeIssue: OrderIssue | undefined;
    if (ref) {
      try {
        type = await catalog.orderableType(ref);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        typeIssue = { field: 'labelType', message: error.message };
      }
    }
    const checked = orderIssues(fields, type?.uid);
    // A quote or a strategy chooses the type: none is missing.
    const chosen = Boolean(fields.quoteId || fields.strategy);
    const issues = checked.ok ? [] : checked.issues.filter((issue) => !(chosen && issue.field === 'labelType'));
    if (typeIssue) issues.unshift(typeIssue);
    const weight = Number(fields.Weight);
    if (type && !issues.some((i) => i.field === 'Weight') && weight > 0) {
      const price = priceFor(type, weight);
      if (!price.ok) issues.push({ field: 'Weight', message: price.message });
    }
    return invalidOrder(issues.length > 0 ? issues : [{ field: null, message: 'The order is not valid' }]);
  }

  /**
   * Prices the order itself, then writes it with its charge and ledger row (all or nothing: changeBalance, whose one
   * conditional update refuses an order the balance cannot cover). A provider whose labels cost nothing is asked
   * first, and the order written once, as its answer left it: the customer's balance is read before (balanceOf), so a
   * customer who cannot pay never has labels rendered and stored. Any other provider is asked once the order is paid.
   */
  async function place(userId: string, request: CreateOrderRequest, options: { onCharged?: OnCharged; returnOf?: string } = {}): Promise<PlaceResult> {
    const chosen = request.quoteId || request.strategy ? await deps.rates.forOrder(userId, request) : null;
    if (!chosen && !request.labelType) throw invalidOrder([{ field: 'labelType', message: LABEL_TYPE_REQUIRED }]);
    // A weight given in another unit than the type's (a saved package's, in ounces for a type in pounds) is converted.
    const input =
      chosen?.input ?? (request.WeightUnit ? await inTypeUnit(request as CreateOrderInput & { WeightUnit: 'lb' | 'oz' }) : (request as CreateOrderInput));
    const { type, priceCents, insuranceCents } = await quote(input, chosen);
    // Strictly increasing, so orders placed in one burst list in the order they were placed.
    const order = orderRowFor(userId, input, type, priceCents, {
      provider: labels.name,
      createdAt: nowIsoIncreasing(),
      claimedUntil: isoIn(claimMs),
      quoteId: chosen?.quoteId,
      // An insured order or a return is rated again at purchase, its price the quote's: the quote's shipment is neither a
      // return nor, maybe, at an upstream that buys insurance with the label.
      quoted: input.Insurance || input.Return ? null : chosen?.quoted,
      returnOf: options.returnOf,
      insuranceCents,
    });
    // The quote is the order's in the transaction that charges it, so two orders never buy one quote.
    const onCharged: OnCharged | undefined = chosen
      ? async (trx, orderId) => {
          await deps.rates.use(trx, chosen.quoteId, orderId);
          await options.onCharged?.(trx, orderId);
        }
      : options.onCharged;
    const pay = (row: repo.OrderRow) => charge(row, onCharged);
    if (!labels.freeLabels) {
      await pay(order);
      return fulfil(order);
    }
    if (((await balanceOf(userId)) ?? 0) < order.price_cents) throw paymentRequired(INSUFFICIENT_BALANCE);
    let result;
    try {
      // No order is written before this ask, so none can be resumed to buy its label again: a crash here leaves a free
      // label made for no order, nothing charged. The one statement of a single order stays one.
      result = await labels.createLabel(labelRequestFor(order));
    } catch (error) {
      // Any other fault (the renderer's queue full: a 503 with Retry-After): nothing is written nor charged, and the
      // customer may send the order again.
      if (!(error instanceof LabelProviderError)) throw error;
      // Paid, then cancelled and refunded, as a refusal after payment is: the order and its reason stay in the history.
      await pay(order);
      return placed(order, await cancelAndRefund(order, error.message));
    }
    if (result.status === 'processing') {
      await pay({ ...order, status: 'processing', provider_ref: result.providerRef, claimed_until: isoIn(pollMs) });
      return placed(order, { status: 'processing' });
    }
    // A label stored for an order that then cannot be paid is never referenced: bytes left in a pack, no postage.
    const pdfKey = await packLabel(result.pdf);
    const completed = completedEvent(order, order.created_at);
    await charge({ ...order, status: 'completed', tracking: result.tracking, pdf_key: pdfKey, claimed_until: null }, onCharged, [completed]);
    metrics?.labels.inc({ type: order.label_type_uid, outcome: 'made' });
    outbox.committed([completed]);
    return placed(order, { status: 'processing' });
  }

  /**
   * Writes the order (and the events given: its completion) with its charge, and the caller's onCharged, in one
   * transaction: without the charge there is no order. The debit is one conditional update (changeBalance), which
   * refuses an order the balance cannot cover.
   */
  async function charge(order: repo.OrderRow, onCharged?: OnCharged, events: ShopEventRow[] = []): Promise<void> {
    const change = {
      userId: order.user_id,
      amountCents: -Number(order.price_cents),
      kind: 'order_charge',
      reference: order.id,
      note: `Order ${order.id.slice(0, 8).toUpperCase()}${order.insurance_cents ? `, with insurance of $${formatDollars(centsToDollars(order.insurance_cents))}` : ''}`,
    } as const;
    const rows = { orders: [order], shop_events: events };
    // The charge last: on PostgreSQL it locks the customer's row until commit, the next round trip.
    if (onCharged) {
      await db.transaction().execute(async (trx) => {
        await onCharged(trx, order.id);
        await changeBalance(trx, change, rows);
      });
    } else {
      await changeBalance(db, change, rows);
    }
  }

  return {
    place,
    invalidBody,

    async duplicate(userId: string, orderId: string, onCharged?: OnCharged): Promise<PlaceResult> {
      const original = await repo.findOwnOrder(db, userId, orderId);
      if (!original) throw notFound(ORDER_NOT_FOUND);
      return place(userId, inputFrom(original), { onCharged });
    },

    /**
     * A return label of the user's completed order: the same type, parcel and references, the addresses swapped (the
     * recipient sends it back to the sender), priced and charged like any label of its type. The original names its
     * return in the return's charge transaction, by a conditional update: a second return of one order is a 409 and
     * charges nothing. An upstream is asked for it as a return (EasyPost and Shippo: is_return, the addresses as the
     * original had them).
     */
    async placeReturn(userId: string, orderId: string, onCharged?: OnCharged): Promise<PlaceResult> {
      const original = await repo.findOwnOrder(db, userId, orderId);
      if (!original) throw notFound(ORDER_NOT_FOUND);
      const refused = returnRefusal(original);
      if (refused) throw refused;
      const link: OnCharged = async (trx, returnId) => {
        if (!(await repo.linkReturn(trx, original.id, returnId))) throw conflict(RETURN_EXISTS);
        await onCharged?.(trx, returnId);
      };
      // The original's recipient email is the return's sender's: the return mails no one.
      // Nor is it insured unless asked again: the insurance was the outbound parcel's.
      return place(userId, { ...inputFrom(original), Return: true, ToEmail: undefined, Insurance: undefined }, { onCharged: link, returnOf: original.id });
    },

    /** Writes paid order rows in the caller's transaction: a bulk order writes its rows with its charge. */
    insertRows: (trx: Trx, rows: repo.OrderRow[]) => repo.insertOrders(trx, rows),
  };
}
export type Placing = ReturnType<typeof createPlacing>;
