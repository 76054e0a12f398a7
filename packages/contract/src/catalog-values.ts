// Label type uids and their rules, templates and weight messages, without zod (see index.ts).
import { CANADA_REGIONS, US_REGIONS, type Region } from './regions.ts';

/** Every label type the shop knows, by uid. */
export const LABEL_TYPE_UIDS = [
  'priority',
  'uspsv9',
  'fedex_ground',
  'ups_standard',
  'ups_express',
  'ups_express_saver',
  'ups_express_early',
  'ups_expedited',
  'ground_oz',
] as const;
export type LabelTypeUid = (typeof LABEL_TYPE_UIDS)[number];

/** UPS types ship inside Canada; every other type inside the United States. */
export const isUpsLabelType = (uid: string): boolean => uid.startsWith('ups_');
export const countryFor = (uid: string): 'Canada' | 'United States' => (isUpsLabelType(uid) ? 'Canada' : 'United States');
/** The state list the order form offers for this label type. */
export const regionsFor = (uid: string): readonly Region[] => (isUpsLabelType(uid) ? CANADA_REGIONS : US_REGIONS);

/** ground_oz is weighed in ounces, every other type in pounds. */
export const weightUnitFor = (uid: string): 'oz' | 'lb' => (uid === 'ground_oz' ? 'oz' : 'lb');

/** The priority type's templates: value sent as `design`, label shown in the Template select. */
export const PRIORITY_TEMPLATES = [
  { value: 'pitney', label: 'Pitney Bowes' },
  { value: 'normal', label: 'Normal' },
  { value: 'evs', label: 'EVS' },
] as const;
export const TEMPLATE_VALUES = ['pitney', 'normal', 'evs'] as const;
export type LabelTemplate = (typeof TEMPLATE_VALUES)[number];
export const templateRequired = (uid: string): boolean => uid === 'priority';

/** USPS v9 parcels are always declared 15 x 15 x 15 inches. */
export const USPS_V9_DIMENSION = 15;

export const LABEL_TYPE_REQUIRED = 'Label type is required';
export const LABEL_TYPE_NOT_FOUND = 'Label type not found';
export const LABEL_TYPE_DISABLED = 'This label type is not available at the moment';
export const WEIGHT_REQUIRED = 'Weight is required';
export const WEIGHT_NOT_NUMBER = 'Weight must be a number';
export const WEIGHT_NOT_POSITIVE = 'Weight must be greater than 0';
export const weightAboveMaxMessage = (maxWeight: number, unit: string, typeName: string) => `Weight must be at most ${maxWeight} ${unit} for ${typeName}`;
export const noPriceMessage = (weight: number, unit: string, typeName: string) => `No price is set for ${weight} ${unit} with ${typeName}`;

/** The lightest weight a form names when the first tier starts at 0 (a weight must be above 0). */
const LIGHTEST_SHOWN = 0.1;

/**
 * Why a weight has no price with this label type, as the order forms say it beside Weight
 * ('USPS Priority Mail takes 0.1-70 lb'), or null when one of its tiers holds the weight.
 */
export function weightOutsideTiers(
  type: { name: string; uid: string; prices: readonly { fromWeight: number; toWeight: number }[] },
  weight: number,
): string | null {
  if (type.prices.length === 0) return `${type.name} has no prices yet`;
  if (weight > 0 && type.prices.some((t) => t.fromWeight <= weight && weight <= t.toWeight)) return null;
  const lowest = Math.min(...type.prices.map((t) => t.fromWeight));
  const highest = Math.max(...type.prices.map((t) => t.toWeight));
  return `${type.name} takes ${lowest > 0 ? lowest : LIGHTEST_SHOWN}-${highest} ${weightUnitFor(type.uid)}`;
}
