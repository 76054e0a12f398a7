import {
  LABEL_TYPE_DISABLED,
  LABEL_TYPE_NOT_FOUND,
  WEIGHT_NOT_POSITIVE,
  centsToDollars,
  noPriceMessage,
  weightAboveMaxMessage,
  weightUnitFor,
  type LabelType,
} from '@portal/contract';
import type { Db } from '../../db/database.ts';
import type { LabelTypesTable } from '../../db/schema.ts';
import { badRequest } from '../../lib/http-errors.ts';
import * as repo from './repository.ts';

export type Tier = { fromWeight: number; toWeight: number; priceCents: number };
export type CatalogType = { id: string; uid: string; name: string; maxWeight: number; enabled: boolean; tiers: Tier[] };
export type Quote = { type: CatalogType; priceCents: number };

const toCatalogType = (row: LabelTypesTable, tiers: Tier[]): CatalogType => ({
  id: row.id,
  uid: row.uid,
  name: row.name,
  maxWeight: row.max_weight,
  enabled: row.status === 1,
  tiers,
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

export function createCatalogService(db: Db) {
  async function withTiers(rows: LabelTypesTable[]): Promise<CatalogType[]> {
    const prices = await repo.listPriceRows(db, rows.map((r) => r.id));
    return rows.map((row) =>
      toCatalogType(
        row,
        prices.filter((p) => p.label_type_id === row.id).map((p) => ({ fromWeight: p.from_weight, toWeight: p.to_weight, priceCents: Number(p.price_cents) })),
      ),
    );
  }

  async function orderableType(ref: string): Promise<CatalogType> {
    const row = await repo.findLabelTypeRow(db, ref);
    if (!row) throw badRequest(LABEL_TYPE_NOT_FOUND);
    if (row.status !== 1) throw badRequest(LABEL_TYPE_DISABLED);
    const [type] = await withTiers([row]);
    return type;
  }

  return {
    async enabledTypes(): Promise<CatalogType[]> {
      return withTiers(await repo.listLabelTypeRows(db, true));
    },

    /** An enabled label type (id or uid) with its tiers; 400 when there is none. */
    orderableType,

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
