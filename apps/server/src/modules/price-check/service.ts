import {
  NOT_AVAILABLE_RIGHT_NOW,
  PRICE_CHECK_MAX_AGE_MS,
  REFERENCE_PACKAGES_MAX,
  centsToDollars,
  countryFor,
  shopDay,
  type PriceCheck,
  type PriceCheckRow,
  type ReferencePackage,
  type ReferencePackageBody,
} from '@portal/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTrx } from '../../db/database.ts';
import type { AuditHook } from '../../lib/audit.ts';
import { badRequest, notFound } from '../../lib/http-errors.ts';
import { newId, nowIso, nowIsoIncreasing } from '../../lib/ids.ts';
import { LabelProviderError, type LabelParty, type LabelProvider, type OfferedService, type QuoteRequest } from '../../providers/labels/label-provider.ts';
import type { CatalogService, CatalogType } from '../catalog/service.ts';
import { countryOf, localAnswer } from '../rates/service.ts';
import * as repo from './repository.ts';

export const REFERENCE_PACKAGE_NOT_FOUND = 'Reference package not found';
export const TOO_MANY_REFERENCE_PACKAGES = `At most ${REFERENCE_PACKAGES_MAX} reference packages`;

type Country = ReferencePackage['country'];
type Service = OfferedService;
/** What is kept of a check: its answer, and the carrier and service pairs the upstream rated on each route (null: not asked). */
export type StoredPriceCheck = PriceCheck & { offered: Record<Country, Service[] | null> };

const toReferencePackage = (row: repo.ReferencePackageRow): ReferencePackage => ({
  _id: row.id,
  name: row.name,
  weight: row.weight,
  weightUnit: row.weight_unit,
  length: row.length,
  width: row.width,
  height: row.height,
  fromZip: row.from_zip,
  toZip: row.to_zip,
  country: countryOf(row.from_zip, undefined) ?? 'United States',
});

/** A side of a reference package as the upstream is asked: its ZIP code and country. */
const partyAt = (zip: string, country: Country): LabelParty => ({
  name: '',
  company: '',
  street: '',
  street2: '',
  city: '',
  state: '',
  zip,
  country,
  phone: '',
});

/** Price - cost as a share of the price, in % with one decimal. */
const percentOf = (marginCents: number, priceCents: number) => (priceCents > 0 ? Math.round((marginCents * 1000) / priceCents) / 10 : null);

/**
 * The console's price check: every enabled label type priced upstream, with one quote a reference package of its route
 * (the US types with the US packages, the UPS (Canada) types with the Canadian ones), against our price for the
 * package's weight. The last answer is kept, so the overview reads it without asking the upstream.
 */
export function createPriceCheckService(deps: { db: Db; catalog: CatalogService; labels: LabelProvider & { names: string[] }; log: FastifyBaseLogger }) {
  const { db, catalog, labels, log } = deps;
  const upstreamNames = labels.names;
  let running: Promise<StoredPriceCheck> | null = null;
  // Moved by every change that makes a check under way out of date: its answer is then not kept.
  let generation = 0;

  /** The type's mapping at the first of the shop's upstreams that maps it. */
  const firstMapping = (type: CatalogType) => upstreamNames.map((name) => type.upstreams[name]).find(Boolean) ?? null;

  /** One package's rows: one upstream quote for every type of its route that can take it (weight, size). */
  async function checkPackage(pkg: ReferencePackage, types: CatalogType[]): Promise<{ rows: PriceCheckRow[]; offered: Service[] | null }> {
    const wanted: (QuoteRequest['wanted'][number] & { type: CatalogType })[] = [];
    for (const type of types) {
      if (countryFor(type.uid) !== pkg.country) continue;
      const answer = localAnswer(type, pkg, [pkg.country, pkg.country]);
      // A type that does not take the package (too heavy, too big) has no price for it to compare.
      if ('priceCents' in answer) wanted.push({ uid: type.uid, upstream: null, priceCents: answer.priceCents, type });
    }
    const row = (want: (typeof wanted)[number]): PriceCheckRow => ({
      labelType: { uid: want.uid, name: want.type.name },
      package: { _id: pkg._id, name: pkg.name },
      upstream: null,
      carrier: firstMapping(want.type)?.carrier ?? null,
      service: firstMapping(want.type)?.service ?? null,
      cost: null,
      price: centsToDollars(want.priceCents),
      margin: null,
      marginPercent: null,
      negative: false,
      notRated: false,
      unavailable: false,
      message: null,
    });
    try {
      const answer = await labels.quote({
        quoteId: `price-check-${newId()}`,
        from: partyAt(pkg.fromZip, pkg.country),
        to: partyAt(pkg.toZip, pkg.country),
        weight: pkg.weight,
        weightUnit: pkg.weightUnit,
        length: pkg.length,
        width: pkg.width,
        height: pkg.height,
        shipDate: shopDay(),
        wanted: wanted.map(({ uid, upstream, priceCents }) => ({ uid, upstream, priceCents })),
      });
      const rates = new Map(answer.rates.map((r) => [r.uid, r]));
      const rows = wanted.map((want) => {
        const shown = row(want);
        const rate = rates.get(want.uid);
        if (rate?.status === 'rated') {
          const marginCents = want.priceCents - rate.costCents;
          const at = rate.upstream ?? labels.name;
          return {
            ...shown,
            // Where the rate was found (the cheapest of the upstreams), as that upstream names its service.
            upstream: at,
            carrier: want.type.upstreams[at]?.carrier ?? shown.carrier,
            service: want.type.upstreams[at]?.service ?? shown.service,
            cost: centsToDollars(rate.costCents),
            margin: centsToDollars(marginCents),
            marginPercent: percentOf(marginCents, want.priceCents),
            negative: marginCents < 0,
          };
        }
        if (rate?.status === 'unavailable') return { ...shown, unavailable: true, message: rate.message ?? NOT_AVAILABLE_RIGHT_NOW };
        const mapping = firstMapping(want.type);
        const mapped = mapping ? `${mapping.carrier} ${mapping.service}` : 'No upstream service';
        return { ...shown, notRated: true, message: `${mapped} is not rated for this route` };
      });
      return { rows, offered: answer.offered };
    } catch (error) {
      if (!(error instanceof LabelProviderError)) log.warn({ err: error }, 'the price check could not price a reference package');
      const message = error instanceof LabelProviderError ? error.message : NOT_AVAILABLE_RIGHT_NOW;
      return { rows: wanted.map((want) => ({ ...row(want), unavailable: true, message })), offered: null };
    }
  }

  async function run(): Promise<StoredPriceCheck> {
    const startedIn = generation;
    const [types, packages] = await Promise.all([catalog.enabledTypes(), repo.listReferencePackages(db)]);
    const shown = packages.map(toReferencePackage);
    const checked = await Promise.all(shown.map((pkg) => checkPackage(pkg, types)));
    const order = new Map(types.map((t, i) => [t.uid, i]));
    // By type in catalog order, then by package.
    const rows = checked
      .flatMap((c, p) => c.rows.map((row) => ({ row, p })))
      .sort((a, b) => order.get(a.row.labelType.uid)! - order.get(b.row.labelType.uid)! || a.p - b.p)
      .map((x) => x.row);
    const offered: StoredPriceCheck['offered'] = { 'United States': null, Canada: null };
    shown.forEach((pkg, i) => {
      const services = checked[i].offered;
      if (!services) return;
      const known = offered[pkg.country] ?? [];
      for (const s of services) if (!known.some((k) => k.carrier === s.carrier && k.service === s.service)) known.push(s);
      offered[pkg.country] = known;
    });
    const result: StoredPriceCheck = {
      checkedAt: nowIso(),
      labelProvider: labels.names.join(', '),
      sandbox: labels.freeLabels === true,
      rows,
      negative: rows.filter((r) => r.negative).length,
      notRated: rows.filter((r) => r.notRated).length,
      unavailable: rows.filter((r) => r.unavailable).length,
      offered,
    };
    if (startedIn === generation) await repo.keepPriceCheck(db, result.checkedAt, JSON.stringify(result));
    return result;
  }

  /** Runs a check, or joins the one under way. */
  const runShared = () => (running ??= run().finally(() => (running = null)));

  async function stored(): Promise<StoredPriceCheck | null> {
    const row = await repo.lastPriceCheck(db);
    return row ? (JSON.parse(row.result_json) as StoredPriceCheck) : null;
  }
  const stale = (check: StoredPriceCheck | null) => !check || Date.parse(check.checkedAt) < Date.now() - PRICE_CHECK_MAX_AGE_MS;

  /** A change of packages, prices or mappings: the last check no longer says what the next one would. */
  async function forget(trx: DbOrTrx = db): Promise<void> {
    generation++;
    await repo.forgetPriceCheck(trx);
  }

  async function existing(trx: DbOrTrx, id: string) {
    const row = await repo.findReferencePackage(trx, id);
    if (!row) throw notFound(REFERENCE_PACKAGE_NOT_FOUND);
    return row;
  }
  const rowOf = (body: ReferencePackageBody) => ({
    name: body.name,
    weight: body.weight,
    weight_unit: body.weightUnit,
    length: body.length ?? null,
    width: body.width ?? null,
    height: body.height ?? null,
    from_zip: body.fromZip,
    to_zip: body.toZip,
  });

  return {
    /** The last check; run anew when asked (refresh), when there is none, or when it is older than PRICE_CHECK_MAX_AGE_MS. */
    async latest(refresh = false): Promise<StoredPriceCheck> {
      const last = refresh ? null : await stored();
      return last && !stale(last) ? last : runShared();
    },
    /**
     * The last check as it is (the overview): a stale or missing one is run again in the background, for the next
     * visit, so the overview never waits for the upstream.
     */
    async lastKept(): Promise<StoredPriceCheck | null> {
      const last = await stored();
      if (stale(last) && !running) runShared().catch((error: unknown) => log.warn({ err: error }, 'the price check failed'));
      return last;
    },
    forget,
    /** Waits for a check under way (the services close). */
    async settle(): Promise<void> {
      await running?.catch(() => undefined);
    },

    async referencePackages(): Promise<ReferencePackage[]> {
      return (await repo.listReferencePackages(db)).map(toReferencePackage);
    },
    async addReferencePackage(body: ReferencePackageBody, audit: AuditHook): Promise<ReferencePackage> {
      return db.transaction().execute(async (trx) => {
        if ((await repo.countReferencePackages(trx)) >= REFERENCE_PACKAGES_MAX) throw badRequest(TOO_MANY_REFERENCE_PACKAGES);
        const row: repo.ReferencePackageRow = { id: newId(), created_at: nowIsoIncreasing(), ...rowOf(body) };
        await repo.insertReferencePackage(trx, row);
        await forget(trx);
        const shown = toReferencePackage(row);
        await audit(trx, { targetId: row.id, before: null, after: shown });
        return shown;
      });
    },
    async updateReferencePackage(id: string, body: ReferencePackageBody, audit: AuditHook): Promise<ReferencePackage> {
      return db.transaction().execute(async (trx) => {
        const before = await existing(trx, id);
        const after = { ...before, ...rowOf(body) };
        await repo.updateReferencePackage(trx, id, rowOf(body));
        await forget(trx);
        await audit(trx, { targetId: id, before: toReferencePackage(before), after: toReferencePackage(after) });
        return toReferencePackage(after);
      });
    },
    async deleteReferencePackage(id: string, audit: AuditHook): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const before = await existing(trx, id);
        await repo.deleteReferencePackage(trx, id);
        await forget(trx);
        await audit(trx, { targetId: id, before: toReferencePackage(before), after: null });
      });
    },
  };
}
export type PriceCheckService = ReturnType<typeof createPriceCheckService>;
