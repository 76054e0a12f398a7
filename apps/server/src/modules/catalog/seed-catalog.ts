import type { LabelTypeUid } from '@portal/contract';
import type { Db } from '../../db/database.ts';
import { newId, nowIso } from '../../lib/ids.ts';
import { DEFAULT_UPSTREAM_SERVICES } from '../../providers/labels/default-services.ts';

type SeedType = { uid: LabelTypeUid; name: string; maxWeight: number; tiers: [from: number, to: number, dollars: number][] };

/** The nine label types a new shop starts with; weights in pounds, ground_oz in ounces. */
export const SEED_LABEL_TYPES: SeedType[] = [
  {
    uid: 'priority',
    name: 'USPS Priority Mail',
    maxWeight: 70,
    tiers: [
      [0, 1, 4.5],
      [1, 5, 6.75],
      [5, 10, 9.5],
      [10, 20, 13.25],
      [20, 40, 18.5],
      [40, 70, 26],
    ],
  },
  {
    uid: 'uspsv9',
    name: 'USPS Priority Mail V9 (15x15x15)',
    maxWeight: 70,
    tiers: [
      [0, 5, 7.25],
      [5, 20, 11.5],
      [20, 40, 16.75],
      [40, 70, 23.5],
    ],
  },
  {
    uid: 'ground_oz',
    name: 'USPS Ground Advantage (oz)',
    maxWeight: 15.99,
    tiers: [
      [0, 4, 2.75],
      [4, 8, 3.25],
      [8, 12, 3.75],
      [12, 15.99, 4.25],
    ],
  },
  {
    uid: 'fedex_ground',
    name: 'FedEx Ground',
    maxWeight: 150,
    tiers: [
      [0, 5, 6.5],
      [5, 20, 10.5],
      [20, 50, 16.5],
      [50, 100, 26],
      [100, 150, 38],
    ],
  },
  {
    uid: 'ups_standard',
    name: 'UPS Standard (Canada)',
    maxWeight: 150,
    tiers: [
      [0, 5, 9.5],
      [5, 20, 14.5],
      [20, 50, 22],
      [50, 150, 36],
    ],
  },
  {
    uid: 'ups_express',
    name: 'UPS Express (Canada)',
    maxWeight: 150,
    tiers: [
      [0, 5, 19],
      [5, 20, 27.5],
      [20, 50, 41],
      [50, 150, 62],
    ],
  },
  {
    uid: 'ups_express_saver',
    name: 'UPS Express Saver (Canada)',
    maxWeight: 150,
    tiers: [
      [0, 5, 16.5],
      [5, 20, 24],
      [20, 50, 36.5],
      [50, 150, 55],
    ],
  },
  {
    uid: 'ups_express_early',
    name: 'UPS Express Early (Canada)',
    maxWeight: 150,
    tiers: [
      [0, 5, 31],
      [5, 20, 41.5],
      [20, 50, 58],
      [50, 150, 86],
    ],
  },
  {
    uid: 'ups_expedited',
    name: 'UPS Expedited (Canada)',
    maxWeight: 150,
    tiers: [
      [0, 5, 12.5],
      [5, 20, 18.5],
      [20, 50, 28.5],
      [50, 150, 45],
    ],
  },
];

/** Adds any seed type the shop does not have yet, with its tiers; an operator's edits are never overwritten. */
export async function seedCatalog(db: Db): Promise<void> {
  const existing = new Set((await db.selectFrom('label_types').select('uid').execute()).map((r) => r.uid));
  const missing = SEED_LABEL_TYPES.filter((t) => !existing.has(t.uid));
  if (missing.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const type of missing) {
      const id = newId();
      const inserted = await trx
        .insertInto('label_types')
        .values({
          id,
          uid: type.uid,
          name: type.name,
          max_weight: type.maxWeight,
          status: 1,
          position: SEED_LABEL_TYPES.indexOf(type),
          created_at: nowIso(),
        })
        .onConflict((oc) => oc.column('uid').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) continue; // another process seeded it first
      const mapped = Object.entries(DEFAULT_UPSTREAM_SERVICES).flatMap(([upstream, services]) =>
        services[type.uid]
          ? [{ label_type_id: id, upstream, carrier: services[type.uid].carrier, service: services[type.uid].service, carrier_account: null }]
          : [],
      );
      if (mapped.length) await trx.insertInto('upstream_services').values(mapped).execute();
      await trx
        .insertInto('label_type_prices')
        .values(
          type.tiers.map(([from, to, dollars]) => ({
            id: newId(),
            label_type_id: id,
            from_weight: from,
            to_weight: to,
            price_cents: Math.round(dollars * 100),
          })),
        )
        .execute();
    }
  });
}
