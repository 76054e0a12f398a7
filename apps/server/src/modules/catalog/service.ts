import {
  LABEL_TYPE_DISABLED,
  LABEL_TYPE_NOT_FOUND,
  WEIGHT_NOT_POSITIVE,
  INSURANCE_NOT_SOLD,
  insuranceAboveMaxMessage,
  centsToDollars,
  dollarsToCents,
  noPriceMessage,
  tierProblem,
  weightAboveMaxMessage,
  weightUnitFor,
  type LabelType,
  type PriceTier,
} from '@portal/contract';
import type { Db, DbOrTrx } from '../../db/database.ts';
import type { LabelTypePricesTable, LabelTypesTable, UpstreamServicesTable } from '../../db/schema.ts';
import type { AuditHook } from '../../lib/audit.ts';
import { badRequest, notFound } from '../../lib/http-errors.ts';
import { batchedReads } from '../../lib/batched-reads.ts';
import { newId } from '../../lib/ids.ts';
import * as repo from './repository.ts';

export type Tier = { fromWeight: number; toWeight: number; priceCents: number };
/** What a label type is bought as upstream (EasyPost's carrier and service names, and a carrier account or null for any). */
export type UpstreamService = { carrier: string; service: string; carrierAccount: string | null };
export type CatalogType = {
  id: string;
  uid: string;
  name: string;
  maxWeight: number;
  enabled: boolean;
  tiers: Tier[];
  /** What the type is bought as, by upstream name (a type no upstream maps is bought only by the sandbox). */
  upstreams: Record<string, UpstreamService>;
};
export type Quote = { type: CatalogType; priceCents: number };

const toTier = (price: Pick<LabelTypePricesTable, 'from_weight' | 'to_weight' | 'price_cents'>): Tier => ({
  fromWeight: price.from_weight,
  toWeight: price.to_weight,
  priceCents: Number(price.price_cents),
});

const toCatalogType = (row: LabelTypesTable, tiers: Tier[], mapped: UpstreamServicesTable[]): CatalogType => ({
  id: row.id,
  uid: row.uid,
  name: row.name,
  maxWeight: row.max_weight,
  enabled: row.status === 1,
  tiers,
  upstreams: Object.fromEntries(mapped.map((m) => [m.upstream, { carrier: m.carrier, service: m.service, carrierAccount: m.carrier_account }])),
});

export const toLabelType = (type: CatalogType): LabelType => ({
  _id: type.id,
  name: type.name,
  uid: type.uid,
  maxWeight: type.maxWeight,
  weightUnit: weightUnitFor(type.uid),
  status: type.enabled,
  prices: type.tiers.map((t) => ({ price: centsToDollars(t.priceCents), fromWeight: t.fromWeight, toWeight: t.toWeight })),
});

/** The tier holding the weight: from <= weight <= to, the lowest tier first where two meet. */
export const tierFor = (tiers: Tier[], weight: number): Tier | undefined =>
  [...tiers].sort((a, b) => a.fromWeight - b.fromWeight).find((t) => t.fromWeight <= weight && weight <= t.toWeight);

/** The price of one weight with a type already read (a bulk order prices thousands of rows with one read). */
export function priceFor(type: CatalogType, weight: number): { ok: true; priceCents: number } | { ok: false; message: string } {
  const unit = weightUnitFor(type.uid);
  if (!(weight > 0)) return { ok: false, message: WEIGHT_NOT_POSITIVE };
  if (weight > type.maxWeight) return { ok: false, message: weightAboveMaxMessage(type.maxWeight, unit, type.name) };
  const tier = tierFor(type.tiers, weight);
  if (!tier) return { ok: false, message: noPriceMessage(weight, unit, type.name) };
  return { ok: true, priceCents: tier.priceCents };
}

/**
 * The shop's insurance (INSURANCE_RATE_PERCENT, INSURANCE_MIN, INSURANCE_MAX): its price is ratePercent of the
 * declared value, at least minCents; a value above maxCents is refused, and with maxCents 0 none is sold.
 */
export type InsuranceRule = { ratePercent: number; minCents: number; maxCents: number };

/** What insuring a declared value (cents) costs, in cents, or why it is not sold. */
export function insurancePriceFor(rule: InsuranceRule, valueCents: number): { ok: true; priceCents: number } | { ok: false; message: string } {
  if (rule.maxCents === 0) return { ok: false, message: INSURANCE_NOT_SOLD };
  if (valueCents > rule.maxCents) return { ok: false, message: insuranceAboveMaxMessage(rule.maxCents / 100) };
  return { ok: true, priceCents: Math.max(rule.minCents, Math.round((valueCents * rule.ratePercent) / 100)) };
}

/** What an operator sets on a label type: the tiers' prices in dollars. */
export type LabelTypeChange = { name: string; maxWeight: number; status: boolean; prices: PriceTier[] };

/** The first problem of an operator's tiers: not contiguous (the contract's tierProblem), or a price with more than 2 decimals. */
export function tiersProblem(prices: PriceTier[], maxWeight: number): string | null {
  const problem = tierProblem(prices, maxWeight);
  if (problem) return problem;
  const sorted = [...prices].sort((a, b) => a.fromWeight - b.fromWeight);
  const index = sorted.findIndex((t) => Math.abs(t.price * 100 - Math.round(t.price * 100)) > 1e-6);
  return index < 0 ? null : `Tier ${index + 1} (${sorted[index].fromWeight}-${sorted[index].toWeight}): the price must have at most 2 decimal places`;
}

/**
 * mappedAt (the shop's upstreams that sell postage, when it has no sandbox among them): a type none of them maps is not
 * offered, as if disabled, since nothing could be bought for it.
 */
export function createCatalogService(db: Db, options: { mappedAt?: string[]; insurance?: InsuranceRule } = {}) {
  const mappedAt = options.mappedAt;
  const offered = (type: CatalogType) => type.enabled && (!mappedAt || mappedAt.some((name) => type.upstreams[name]));
  const withTiers = (rows: LabelTypesTable[]) => withTiersIn(db, rows);
  async function withTiersIn(from: DbOrTrx, rows: LabelTypesTable[]): Promise<CatalogType[]> {
    const ids = rows.map((r) => r.id);
    const [prices, mapped] = await Promise.all([repo.listPriceRows(from, ids), repo.listUpstreamServiceRows(from, ids)]);
    return rows.map((row) =>
      toCatalogType(
        row,
        prices.filter((p) => p.label_type_id === row.id).map(toTier),
        mapped.filter((m) => m.label_type_id === row.id),
      ),
    );
  }

  /**
   * Every label type with its tiers, in catalog order (position, name), kept while the catalog's version stays: every
   * order prices itself against it, and the version costs one row to read where the types and tiers cost a join.
   */
  let kept: { version: number; types: CatalogType[]; byRef: Map<string, CatalogType> } | null = null;
  // Orders placed in the same turn read the version once.
  const versionNow = batchedReads(async () => new Map([['version', await repo.catalogVersion(db)]]));
  async function catalogNow(): Promise<NonNullable<typeof kept>> {
    // The version first: a change made while the types are read moves it again, so the next call reads them anew.
    const version = (await versionNow('version'))!;
    if (kept?.version === version) return kept;
    const types = await withTiers(await repo.listLabelTypeRows(db));
    // Frozen: every caller shares them until the next change.
    for (const type of types) {
      type.tiers.forEach((tier) => Object.freeze(tier));
      Object.freeze(type.tiers);
      Object.values(type.upstreams).forEach((mapped) => Object.freeze(mapped));
      Object.freeze(type.upstreams);
      Object.freeze(type);
    }
    // By id and by uid; where an id of one names another's uid, the type with the lower id is taken.
    const byRef = new Map<string, CatalogType>();
    for (const type of [...types].sort((a, b) => (a.id < b.id ? -1 : 1))) {
      if (!byRef.has(type.id)) byRef.set(type.id, type);
      if (!byRef.has(type.uid)) byRef.set(type.uid, type);
    }
    return (kept = { version, types, byRef });
  }

  async function orderableType(ref: string): Promise<CatalogType> {
    const type = (await catalogNow()).byRef.get(ref);
    if (!type) throw badRequest(LABEL_TYPE_NOT_FOUND);
    if (!offered(type)) throw badRequest(LABEL_TYPE_DISABLED);
    return type;
  }

  return {
    async enabledTypes(): Promise<CatalogType[]> {
      return (await catalogNow()).types.filter(offered);
    },

    /** An enabled label type (id or uid) with its tiers; 400 when there is none. */
    orderableType,

    /** Every label type, enabled or not (the console). */
    async allTypes(): Promise<CatalogType[]> {
      return (await catalogNow()).types;
    },

    /**
     * An operator's edit of a label type (id or uid): name, max weight, on/off and the whole set of
     * tiers, which must be contiguous (400 naming the tier). New orders only: an order keeps the price
     * it was charged. 404 for an unknown type.
     */
    async updateType(ref: string, change: LabelTypeChange, audit: AuditHook): Promise<CatalogType> {
      const problem = tiersProblem(change.prices, change.maxWeight);
      if (problem) throw badRequest(problem);
      const tiers: Tier[] = [...change.prices]
        .sort((a, b) => a.fromWeight - b.fromWeight)
        .map((t) => ({ fromWeight: t.fromWeight, toWeight: t.toWeight, priceCents: dollarsToCents(t.price) }));
      return db.transaction().execute(async (trx) => {
        const row = await repo.findLabelTypeRow(trx, ref);
        if (!row) throw notFound(LABEL_TYPE_NOT_FOUND);
        const [before] = await withTiersIn(trx, [row]);
        await repo.updateLabelType(trx, row.id, { name: change.name, max_weight: change.maxWeight, status: change.status ? 1 : 0 });
        await repo.replacePriceRows(
          trx,
          row.id,
          tiers.map((t) => ({ id: newId(), label_type_id: row.id, from_weight: t.fromWeight, to_weight: t.toWeight, price_cents: t.priceCents })),
        );
        const after: CatalogType = { ...before, name: change.name, maxWeight: change.maxWeight, enabled: change.status, tiers };
        await audit(trx, { targetId: row.id, before: toLabelType(before), after: toLabelType(after) });
        return after;
      });
    },

    /** What the label type uid is bought as, by upstream name (none: no upstream maps it). */
    async mappingOf(uid: string): Promise<Record<string, UpstreamService>> {
      return (await catalogNow()).byRef.get(uid)?.upstreams ?? {};
    },

    /**
     * An operator's change of what a label type (id or uid) is bought as at one upstream; an empty carrier and service
     * unmaps it there (not bought there). Audited with the mapping before and after. 404 for an unknown type.
     */
    async updateUpstream(
      ref: string,
      upstream: string,
      change: { carrier: string; service: string; carrierAccount: string },
      audit: AuditHook,
    ): Promise<CatalogType> {
      const carrier = change.carrier.trim();
      const service = change.service.trim();
      if (Boolean(carrier) !== Boolean(service)) throw badRequest(`Set both the carrier and the service, or neither to stop buying the type at ${upstream}`);
      const mapped: UpstreamService | null = carrier ? { carrier, service, carrierAccount: change.carrierAccount.trim() || null } : null;
      return db.transaction().execute(async (trx) => {
        const row = await repo.findLabelTypeRow(trx, ref);
        if (!row) throw notFound(LABEL_TYPE_NOT_FOUND);
        const [before] = await withTiersIn(trx, [row]);
        await repo.setUpstream(trx, row.id, upstream, mapped);
        const upstreams = { ...before.upstreams };
        if (mapped) upstreams[upstream] = mapped;
        else delete upstreams[upstream];
        await audit(trx, {
          targetId: row.id,
          before: { uid: row.uid, upstream, mapping: before.upstreams[upstream] ?? null },
          after: { uid: row.uid, upstream, mapping: mapped },
        });
        return { ...before, upstreams };
      });
    },

    /** The shop's insurance rule (none sold unless configured). */
    insurance: options.insurance ?? { ratePercent: 0, minCents: 0, maxCents: 0 },

    /** The server's own price for a label type (id or uid) and weight; 400 with the reason when there is none. */
    async quote(ref: string, weight: number): Promise<Quote> {
      const type = await orderableType(ref);
      const price = priceFor(type, weight);
      if (!price.ok) throw badRequest(price.message);
      return { type, priceCents: price.priceCents };
    },
  };
}
export type CatalogService = ReturnType<typeof createCatalogService>;
