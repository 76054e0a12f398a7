import { z } from 'zod';
import { requiredText, stringField } from './common.ts';
import { CANADIAN_POSTAL_CODE, US_ZIP } from './orders.ts';

// The console's price check (/api/v1/admin/price-check, /admin/reference-packages): every enabled label type priced
// upstream for a few reference packages, against our price. Money crosses as dollars, two decimals.

/** A price check older than this is run again when the console asks for it. */
export const PRICE_CHECK_MAX_AGE_MS = 60 * 60_000;
export const REFERENCE_PACKAGES_MAX = 20;
export const REFERENCE_ZIPS_ONE_COUNTRY = 'From ZIP and To ZIP must both be US ZIP codes or both Canadian postal codes';

const zipField = (label: string) =>
  stringField(label)
    .trim()
    .toUpperCase()
    .max(10, `${label} must be at most 10 characters`)
    .refine((zip) => US_ZIP.test(zip) || CANADIAN_POSTAL_CODE.test(zip), `${label} must be a US ZIP code or a Canadian postal code`);
const inches = (label: string) =>
  z
    .number({ error: `${label} must be a number` })
    .positive(`${label} must be greater than 0`)
    .max(108, `${label} must be at most 108 in`)
    .nullable()
    .default(null);

/** POST /admin/reference-packages, PUT /admin/reference-packages/:id: a name, a weight, optional dimensions (all or none), two ZIPs of one country. */
export const referencePackageBody = z
  .object({
    name: requiredText('Name', 80),
    weight: z.number({ error: 'Weight must be a number' }).positive('Weight must be greater than 0').max(150, 'Weight must be at most 150'),
    weightUnit: z.enum(['lb', 'oz'], { error: 'Weight unit must be lb or oz' }),
    length: inches('Length'),
    width: inches('Width'),
    height: inches('Height'),
    fromZip: zipField('From ZIP'),
    toZip: zipField('To ZIP'),
  })
  .refine((p) => [p.length, p.width, p.height].every((d) => d === null) || [p.length, p.width, p.height].every((d) => d !== null), {
    message: 'Give the length, width and height, or none of them',
    path: ['length'],
  })
  .refine((p) => US_ZIP.test(p.fromZip) === US_ZIP.test(p.toZip), { message: REFERENCE_ZIPS_ONE_COUNTRY, path: ['toZip'] });
export type ReferencePackageBody = z.input<typeof referencePackageBody>;

export const referencePackageSchema = z.object({
  _id: z.string(),
  name: z.string(),
  weight: z.number(),
  weightUnit: z.enum(['lb', 'oz']),
  length: z.number().nullable(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  fromZip: z.string(),
  toZip: z.string(),
  /** The route its ZIP codes are on: the US types are checked with the US packages, the UPS (Canada) types with the Canadian ones. */
  country: z.enum(['United States', 'Canada']),
});
export type ReferencePackage = z.infer<typeof referencePackageSchema>;
/** GET /admin/reference-packages */
export const referencePackagesResponse = z.object({ packages: z.array(referencePackageSchema) });
export const referencePackageChangeResponse = z.object({ message: z.string(), package: referencePackageSchema });

/** One label type priced for one reference package. */
export const priceCheckRowSchema = z.object({
  labelType: z.object({ uid: z.string(), name: z.string() }),
  package: z.object({ _id: z.string(), name: z.string() }),
  /** The upstream whose rate is shown (the cheapest of the shop's), null with no rate. */
  upstream: z.string().nullable(),
  /** What the type is bought as there (its mapping; with no rate, at the first upstream that maps it), or null when it has none. */
  carrier: z.string().nullable(),
  service: z.string().nullable(),
  /** The upstream's rate (null when it gave none), our price for the package's weight, price - cost and its share of the price in %. */
  cost: z.number().nullable(),
  price: z.number(),
  margin: z.number().nullable(),
  marginPercent: z.number().nullable(),
  /** negative: sold below cost; notRated: the mapped service got no rate for this route; unavailable: a rate error or the upstream unreachable. */
  negative: z.boolean(),
  notRated: z.boolean(),
  unavailable: z.boolean(),
  message: z.string().nullable(),
});
export type PriceCheckRow = z.infer<typeof priceCheckRowSchema>;

/** GET /admin/price-check[?refresh=true]: the last check (run again when older than an hour, or on refresh). */
export const priceCheckQuery = z.object({ refresh: z.enum(['true', 'false']).optional() });
export const priceCheckResponse = z.object({
  checkedAt: z.string(),
  labelProvider: z.string(),
  /** The rates are the sandbox's, not a carrier's. */
  sandbox: z.boolean(),
  rows: z.array(priceCheckRowSchema),
  /** How many rows have each flag. */
  negative: z.number(),
  notRated: z.number(),
  unavailable: z.number(),
});
export type PriceCheck = z.infer<typeof priceCheckResponse>;
/** What the overview says of the last price check (null: none has run). */
export const priceCheckSummarySchema = z.object({ checkedAt: z.string(), negative: z.number(), notRated: z.number(), unavailable: z.number() }).nullable();

/** A carrier and service the upstream rated for a route, as the mapping editor offers it. */
export const offeredServiceSchema = z.object({ carrier: z.string(), service: z.string() });
