// Rates and quotes: why a label type cannot take a package, the size limits of each carrier, delivery dates. No zod (see index.ts).
import { isUpsLabelType, weightUnitFor } from './catalog-values.ts';
import { packageWeightIn } from './packages-values.ts';

/** How long a quote's prices hold: create-order with its quoteId buys at exactly that price until then. */
export const QUOTE_TTL_MS = 15 * 60_000;
export const QUOTE_EXPIRED = 'This quote expired; ask for rates again';
export const QUOTE_USED = 'This quote was already used for an order; ask for rates again';
export const QUOTE_NOT_FOUND = 'Quote not found';
export const QUOTE_TYPE_NOT_QUOTED = 'This label type cannot take the quoted package';
export const QUOTE_PACKAGE_CHANGED = 'The order does not match its quote: send the same weight, dimensions, ZIP codes and ship date, or ask for rates again';
export const NO_TYPE_TAKES_PACKAGE = 'No label type can take this package on this route right now';
/** What a customer reads when the upstream's rate of a type is above what the shop may pay for it: nothing about costs. */
export const NOT_AVAILABLE_RIGHT_NOW = 'This service is not available for this package right now';

/** Buy the cheapest label type that can take the package, or the fastest. */
export const STRATEGIES = ['cheapest', 'fastest'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** Why a label type cannot take a package. */
export const UNAVAILABLE_REASONS = ['weight', 'size', 'route', 'unavailable'] as const;
export type UnavailableReason = (typeof UNAVAILABLE_REASONS)[number];
export const UNAVAILABLE_LABELS: Record<UnavailableReason, string> = {
  weight: 'Over its weight',
  size: 'Over its size',
  route: 'Not offered for this route',
  unavailable: 'Not available right now',
};

/** The carriers' size limits, in inches: the longest side, and length plus girth (2 x (width + height)). */
type SizeLimit = { carrier: string; longest: number; lengthPlusGirth: number };
const USPS_PRIORITY: SizeLimit = { carrier: 'USPS', longest: 108, lengthPlusGirth: 108 };
const USPS_GROUND: SizeLimit = { carrier: 'USPS', longest: 108, lengthPlusGirth: 130 };
const FEDEX_UPS: (carrier: string) => SizeLimit = (carrier) => ({ carrier, longest: 108, lengthPlusGirth: 165 });

/** The carrier behind a label type uid and its size limits. */
export function sizeLimitOf(uid: string): SizeLimit {
  if (uid === 'ground_oz') return USPS_GROUND;
  if (uid === 'fedex_ground') return FEDEX_UPS('FedEx');
  if (isUpsLabelType(uid)) return FEDEX_UPS('UPS');
  return USPS_PRIORITY;
}

/** Why a parcel is over the type's carrier's size, or null when it fits (or has no dimensions). */
export function sizeProblem(uid: string, dims: { length?: number | null; width?: number | null; height?: number | null }): string | null {
  const sides = [dims.length, dims.width, dims.height];
  if (sides.some((s) => !s)) return null;
  const [longest, a, b] = (sides as number[]).sort((x, y) => y - x);
  const limit = sizeLimitOf(uid);
  if (longest > limit.longest) return `${limit.carrier} takes a longest side of at most ${limit.longest} in`;
  const lengthPlusGirth = longest + 2 * (a + b);
  if (lengthPlusGirth > limit.lengthPlusGirth)
    return `${limit.carrier} takes at most ${limit.lengthPlusGirth} in of length plus girth (this is ${lengthPlusGirth} in)`;
  return null;
}

/** A weight given in `unit` in the unit a label type is priced in (ounces for ground_oz, pounds otherwise), to 2 decimals. */
export const weightFor = (uid: string, weight: number, unit: 'lb' | 'oz'): number => packageWeightIn({ weight, weightUnit: unit }, weightUnitFor(uid));

/** The day a parcel shipped on `shipDate` arrives after `days` business days (Monday to Friday), as YYYY-MM-DD. */
export function deliveryDate(shipDate: string, days: number): string {
  const date = new Date(`${shipDate}T12:00:00Z`);
  for (let left = days; left > 0;) {
    date.setUTCDate(date.getUTCDate() + 1);
    const weekday = date.getUTCDay();
    if (weekday !== 0 && weekday !== 6) left--;
  }
  return date.toISOString().slice(0, 10);
}
