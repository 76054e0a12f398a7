import {
  CANADIAN_POSTAL_CODE,
  NOT_AVAILABLE_RIGHT_NOW,
  NO_TYPE_TAKES_PACKAGE,
  QUOTE_EXPIRED,
  QUOTE_NOT_FOUND,
  QUOTE_PACKAGE_CHANGED,
  QUOTE_TTL_MS,
  QUOTE_TYPE_NOT_QUOTED,
  QUOTE_USED,
  US_ZIP,
  USPS_V9_DIMENSION,
  centsToDollars,
  countryFor,
  countryNamed,
  deliveryDate,
  sizeLimitOf,
  sizeProblem,
  weightFor,
  type CreateOrderInput,
  type CreateOrderRequest,
  type Rate,
  type RatesInput,
  type RatesResponse,
  type Strategy,
  type UnavailableReason,
  shopDay,
} from '@portal/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Trx } from '../../db/database.ts';
import { badRequest, conflict, notFound } from '../../lib/http-errors.ts';
import { isoIn, newId, nowIso, sha256Hex } from '../../lib/ids.ts';
import { LabelProviderError, type LabelParty, type LabelProvider, type QuoteRequest } from '../../providers/labels/label-provider.ts';
import { priceFor, type CatalogService, type CatalogType } from '../catalog/service.ts';
import * as repo from './repository.ts';

/** One label type's answer for a quoted package, as a quote keeps it (its cost and upstream rate stay in the shop). */
export type RateRecord = {
  uid: string;
  name: string;
  carrier: string;
  service: string;
  priceCents: number | null;
  costCents: number | null;
  days: number | null;
  rateId: string | null;
  /** The upstream the rate was found at and its shipment (unset in quotes kept before several upstreams: the quote row's). */
  upstream?: string | null;
  shipmentRef?: string | null;
  reason: UnavailableReason | null;
  message: string | null;
};

/** The package a quote priced: weight in `weightUnit`, dimensions in inches, the two ZIP codes' countries, the ship date. */
export type QuotedPackage = {
  weight: number;
  weightUnit: 'lb' | 'oz';
  length: number | null;
  width: number | null;
  height: number | null;
  fromZip: string;
  toZip: string;
  shipDate: string;
};

/** What an order bought under a quote or a strategy is: its label type, price, and the quote's upstream rate when it can reuse it. */
export type QuotedChoice = {
  input: CreateOrderInput;
  type: CatalogType;
  priceCents: number;
  quoteId: string;
  /** The quote's upstream, shipment and rate, when the order is what the shipment was made with. */
  quoted: { upstream: string; shipmentRef: string; rateId: string } | null;
};

/** The country a ZIP code is of, by its shape, or the one named beside it. */
export function countryOf(zip: string, named: string | undefined): 'United States' | 'Canada' | null {
  const given = named ? countryNamed(named) : undefined;
  if (given) return given;
  if (US_ZIP.test(zip)) return 'United States';
  if (CANADIAN_POSTAL_CODE.test(zip)) return 'Canada';
  return null;
}

/** A side of the package as the upstream is asked: the whole address when given, else its ZIP code and country. */
const partyOf = (input: Partial<CreateOrderInput>, side: 'From' | 'To', country: string): LabelParty => ({
  name: input[`${side}Name`] ?? '',
  company: input[`${side}Company`] ?? '',
  street: input[`${side}Street`] ?? '',
  street2: input[`${side}Street2`] ?? '',
  city: input[`${side}City`] ?? '',
  state: input[`${side}State`] ?? '',
  zip: input[`${side}Zip`] ?? '',
  country,
  phone: '',
});

/**
 * What an upstream shipment is made of (the parties without phones, the parcel in ounces, the ship date): an order
 * whose own is the same is bought on its quote's shipment; any other gets a shipment of its own.
 */
function fingerprintOf(
  from: LabelParty,
  to: LabelParty,
  ounces: number,
  dims: (number | null)[],
  shipDate: string,
  references: (string | undefined)[],
): string {
  const side = (p: LabelParty) => [p.name, p.company, p.street, p.street2, p.city, p.state, p.zip, p.country];
  return sha256Hex(JSON.stringify([side(from), side(to), Math.round(ounces * 10) / 10, dims, shipDate, references.map((r) => r ?? '')]));
}
const ouncesOf = (weight: number, unit: 'lb' | 'oz') => (unit === 'lb' ? weight * 16 : weight);

/** Why the type cannot take the package before anyone is asked (weight, size, route), or its price. */
export function localAnswer(
  type: CatalogType,
  pkg: Pick<QuotedPackage, 'weight' | 'weightUnit' | 'length' | 'width' | 'height'>,
  countries: string[],
): { reason: UnavailableReason; message: string } | { priceCents: number } {
  const country = countryFor(type.uid);
  if (countries.some((c) => c !== country))
    return { reason: 'route', message: `${type.name} ships only inside ${country === 'Canada' ? 'Canada' : 'the United States'}` };
  const price = priceFor(type, weightFor(type.uid, pkg.weight, pkg.weightUnit));
  if (!price.ok) return { reason: 'weight', message: price.message };
  const dims = { length: pkg.length, width: pkg.width, height: pkg.height };
  if (type.uid === 'uspsv9' && [pkg.length, pkg.width, pkg.height].some((d) => d !== null && d > USPS_V9_DIMENSION))
    return { reason: 'size', message: `${type.name} takes a box of at most ${USPS_V9_DIMENSION} x ${USPS_V9_DIMENSION} x ${USPS_V9_DIMENSION} in` };
  const size = sizeProblem(type.uid, dims);
  if (size) return { reason: 'size', message: size };
  return { priceCents: price.priceCents };
}

/** Cheapest: lowest price, then fewer days, then uid. Fastest: fewer days (unknown last), then uid. */
function choose(records: RateRecord[], strategy: Strategy): RateRecord | undefined {
  const days = (r: RateRecord) => r.days ?? Number.POSITIVE_INFINITY;
  const byUid = (a: RateRecord, b: RateRecord) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
  const order =
    strategy === 'cheapest'
      ? (a: RateRecord, b: RateRecord) => a.priceCents! - b.priceCents! || days(a) - days(b) || byUid(a, b)
      : (a: RateRecord, b: RateRecord) => days(a) - days(b) || byUid(a, b);
  return records.filter((r) => r.reason === null).sort(order)[0];
}

export const toRate = (record: RateRecord, shipDate: string): Rate => ({
  labelType: { uid: record.uid, name: record.name },
  carrier: record.carrier,
  service: record.service,
  available: record.reason === null,
  price: record.priceCents === null ? null : centsToDollars(record.priceCents),
  days: record.days,
  deliveryDate: record.days === null ? null : deliveryDate(shipDate, record.days),
  reason: record.reason,
  message: record.message,
});

/**
 * Rates: every enabled label type priced for one package, with its delivery estimate or why it cannot take it, in
 * one ask of the label provider; kept as a quote that one order may buy at its prices for QUOTE_TTL_MS.
 * maxCostRatio (LABEL_MAX_COST_RATIO): a type whose upstream rate is above its price times this is 'not available
 * right now', as buying it would be refused.
 */
export function createRatesService(deps: {
  db: Db;
  catalog: CatalogService;
  labels: LabelProvider & { names: string[] };
  log: FastifyBaseLogger;
  maxCostRatio: number;
}) {
  const { db, catalog, labels, log, maxCostRatio } = deps;
  /** The type's mapping at the first of the shop's upstreams that maps it (what a rate row names before it is rated). */
  const firstMapping = (type: CatalogType) => labels.names.map((name) => type.upstreams[name]).find(Boolean) ?? null;

  /** Quotes nobody used are deleted a day after they expired, by a quote made at most once an hour (a used one stays with its order). */
  let lastPurge = 0;
  function purgeExpiredQuotes(): void {
    if (Date.now() - lastPurge < 3600_000) return;
    lastPurge = Date.now();
    repo.deleteExpiredQuotes(db, isoIn(-24 * 3600_000)).catch((error) => log.warn({ err: error }, 'expired quotes could not be deleted'));
  }

  /** Prices the package for every enabled type and keeps the quote. */
  async function quote(userId: string, input: Partial<CreateOrderInput> & Pick<RatesInput, 'Weight' | 'WeightUnit' | 'FromZip' | 'ToZip'>) {
    const fromCountry = countryOf(input.FromZip, input.FromCountry);
    const toCountry = countryOf(input.ToZip, input.ToCountry);
    if (!fromCountry) throw badRequest('From ZIP must be a US ZIP code or a Canadian postal code');
    if (!toCountry) throw badRequest('To ZIP must be a US ZIP code or a Canadian postal code');
    const pkg: QuotedPackage = {
      weight: input.Weight,
      weightUnit: input.WeightUnit ?? 'lb',
      length: input.Length ?? null,
      width: input.Width ?? null,
      height: input.Height ?? null,
      fromZip: input.FromZip,
      toZip: input.ToZip,
      shipDate: input.ShipDate ?? shopDay(),
    };
    const id = newId();
    const types = await catalog.enabledTypes();
    const records: RateRecord[] = [];
    const wanted: QuoteRequest['wanted'] = [];
    for (const type of types) {
      const answer = localAnswer(type, pkg, [fromCountry, toCountry]);
      const record: RateRecord = {
        uid: type.uid,
        name: type.name,
        carrier: firstMapping(type)?.carrier ?? sizeLimitOf(type.uid).carrier,
        service: firstMapping(type)?.service ?? type.name,
        priceCents: null,
        costCents: null,
        days: null,
        rateId: null,
        reason: null,
        message: null,
      };
      if ('reason' in answer) Object.assign(record, answer);
      else {
        record.priceCents = answer.priceCents;
        wanted.push({ uid: type.uid, upstream: null, priceCents: answer.priceCents });
      }
      records.push(record);
    }
    const from = partyOf(input, 'From', fromCountry);
    const to = partyOf(input, 'To', toCountry);
    const dims = [pkg.length, pkg.width, pkg.height];
    let shipmentRef: string | null = null;
    if (wanted.length > 0) {
      const byUid = new Map(records.map((r) => [r.uid, r]));
      const unavailable = (record: RateRecord, message = NOT_AVAILABLE_RIGHT_NOW) =>
        Object.assign(record, { reason: 'unavailable', message, priceCents: null });
      try {
        const answer = await labels.quote({
          quoteId: id,
          reference: input.Reference,
          reference2: input.Reference2,
          from,
          to,
          weight: pkg.weight,
          weightUnit: pkg.weightUnit,
          length: pkg.length,
          width: pkg.width,
          height: pkg.height,
          shipDate: pkg.shipDate,
          wanted,
        });
        shipmentRef = answer.shipmentRef;
        for (const rate of answer.rates) {
          const record = byUid.get(rate.uid)!;
          if (rate.status === 'rated') {
            if (rate.costCents > record.priceCents! * maxCostRatio) unavailable(record);
            else {
              const mapped = rate.upstream ? types.find((t) => t.uid === rate.uid)?.upstreams[rate.upstream] : undefined;
              Object.assign(record, {
                costCents: rate.costCents,
                days: rate.days,
                rateId: rate.rateId,
                upstream: rate.upstream ?? labels.name,
                shipmentRef: rate.shipmentRef ?? answer.shipmentRef,
                ...(mapped && { carrier: mapped.carrier, service: mapped.service }),
              });
            }
          } else if (rate.status === 'route')
            Object.assign(record, { reason: 'route', message: `${record.carrier} does not offer ${record.service} for this route`, priceCents: null });
          else unavailable(record, rate.message);
        }
      } catch (error) {
        // A refusal of the package (an unknown ZIP) in the upstream's words; anything else: not right now.
        if (!(error instanceof LabelProviderError)) log.warn({ err: error }, 'the label provider could not price a package');
        for (const { uid } of wanted) unavailable(byUid.get(uid)!, error instanceof LabelProviderError ? error.message : NOT_AVAILABLE_RIGHT_NOW);
      }
    }
    const row: repo.QuoteRow = {
      id,
      user_id: userId,
      created_at: nowIso(),
      expires_at: isoIn(QUOTE_TTL_MS),
      package_json: JSON.stringify(pkg),
      fingerprint: fingerprintOf(from, to, ouncesOf(pkg.weight, pkg.weightUnit), dims, pkg.shipDate, [input.Reference, input.Reference2]),
      shipment_ref: shipmentRef,
      rates_json: JSON.stringify(records),
      order_id: null,
    };
    await repo.insertQuote(db, row);
    purgeExpiredQuotes();
    return { row, pkg, records };
  }

  const answerOf = ({ row, pkg, records }: Awaited<ReturnType<typeof quote>>): RatesResponse => ({
    quoteId: row.id,
    expiresAt: row.expires_at,
    shipDate: pkg.shipDate,
    sandbox: labels.freeLabels === true,
    cheapest: choose(records, 'cheapest')?.uid ?? null,
    fastest: choose(records, 'fastest')?.uid ?? null,
    rates: records.map((r) => toRate(r, pkg.shipDate)),
  });

  /** The quote's record of the type an order names (or its strategy chooses), or why it cannot be bought. */
  function pick(records: RateRecord[], request: CreateOrderRequest): RateRecord {
    if (request.labelType) {
      const record = records.find((r) => r.uid === request.labelType || r.name === request.labelType);
      if (!record || record.reason !== null) throw badRequest(record?.message ?? QUOTE_TYPE_NOT_QUOTED);
      return record;
    }
    const chosen = choose(records, request.strategy ?? 'cheapest');
    if (!chosen) throw badRequest(NO_TYPE_TAKES_PACKAGE);
    return chosen;
  }

  /**
   * An order bought under a quote (quoteId) or a strategy: its type, the quote's price, and the order's fields with the
   * type filled in and the weight in the type's unit. A quote must be the user's, unexpired, unused, and of the same
   * package; a strategy quotes the package now.
   */
  async function forOrder(userId: string, request: CreateOrderRequest): Promise<QuotedChoice> {
    const unit = request.WeightUnit ?? 'lb';
    let row: repo.QuoteRow;
    let records: RateRecord[];
    let pkg: QuotedPackage;
    if (request.quoteId) {
      const found = await repo.findOwnQuote(db, userId, request.quoteId);
      if (!found) throw notFound(QUOTE_NOT_FOUND);
      if (found.order_id) throw conflict(QUOTE_USED);
      if (found.expires_at <= nowIso()) throw conflict(QUOTE_EXPIRED);
      row = found;
      records = JSON.parse(found.rates_json) as RateRecord[];
      pkg = JSON.parse(found.package_json) as QuotedPackage;
    } else {
      ({ row, records, pkg } = await quote(userId, { ...request, WeightUnit: unit }));
    }
    const record = pick(records, request);
    if (request.quoteId) {
      // USPS v9's box is always 15 x 15 x 15, whatever dimensions the order or the quote gave.
      const v9 = record.uid === 'uspsv9';
      const same =
        Math.abs(ouncesOf(request.Weight, unit) - ouncesOf(pkg.weight, pkg.weightUnit)) < 0.01 &&
        (v9 || ((request.Length ?? null) === pkg.length && (request.Width ?? null) === pkg.width && (request.Height ?? null) === pkg.height)) &&
        request.FromZip === pkg.fromZip &&
        request.ToZip === pkg.toZip &&
        (request.ShipDate ?? pkg.shipDate) === pkg.shipDate;
      if (!same) throw badRequest(QUOTE_PACKAGE_CHANGED);
    }
    const type = await catalog.orderableType(record.uid);
    const input: CreateOrderInput = {
      ...request,
      labelType: type.uid,
      Weight: weightFor(type.uid, request.Weight, unit),
      // A strategy may choose Priority, whose label needs a template: the plain one unless the order names one.
      design: request.design ?? (type.uid === 'priority' ? 'normal' : undefined),
      // USPS v9 is always declared 15 x 15 x 15 (the order row's), whatever box the quote was asked for.
      ...(type.uid === 'uspsv9' && { Length: undefined, Width: undefined, Height: undefined }),
    };
    const fromCountry = countryOf(pkg.fromZip, request.FromCountry)!;
    const toCountry = countryOf(pkg.toZip, request.ToCountry)!;
    // A record kept before several upstreams names its shipment on the quote row.
    const shipmentRef = record.shipmentRef ?? row.shipment_ref;
    const sameShipment =
      shipmentRef !== null &&
      record.rateId !== null &&
      type.uid !== 'uspsv9' &&
      fingerprintOf(
        partyOf(request, 'From', fromCountry),
        partyOf(request, 'To', toCountry),
        ouncesOf(request.Weight, unit),
        [request.Length ?? null, request.Width ?? null, request.Height ?? null],
        pkg.shipDate,
        [request.Reference, request.Reference2],
      ) === row.fingerprint;
    return {
      input,
      type,
      priceCents: record.priceCents!,
      quoteId: row.id,
      quoted: sameShipment ? { upstream: record.upstream ?? labels.name, shipmentRef: shipmentRef!, rateId: record.rateId! } : null,
    };
  }

  return {
    /** POST /order/rates: every enabled type for the package, kept as a quote. */
    rates: async (userId: string, input: RatesInput) => answerOf(await quote(userId, input)),
    forOrder,
    /** Gives the quote to the order in the transaction that charges it: 409 when another order took it or it expired meanwhile. */
    async use(trx: Trx, quoteId: string, orderId: string): Promise<void> {
      if (!(await repo.useQuote(trx, quoteId, orderId, nowIso()))) throw conflict(QUOTE_USED);
    },
    /** The day a label bought under a quote is expected delivered: its type's days in the quote from `shipDate`; null when the quote named none. */
    async deliveryDateOf(userId: string, quoteId: string, uid: string, shipDate: string): Promise<string | null> {
      const row = await repo.findOwnQuote(db, userId, quoteId);
      const days = row ? (JSON.parse(row.rates_json) as RateRecord[]).find((record) => record.uid === uid)?.days : null;
      return typeof days === 'number' ? deliveryDate(shipDate, days) : null;
    },
  };
}
export type RatesService = ReturnType<typeof createRatesService>;
