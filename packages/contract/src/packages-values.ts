// Saved packages (named presets of weight and dimensions), their limits and messages, without zod (see index.ts).

export const PACKAGE_CREATED = 'Package created successfully';
export const PACKAGE_UPDATED = 'Package updated successfully';
export const PACKAGE_DELETED = 'Package deleted successfully';
export const PACKAGE_NOT_FOUND = 'Package not found';
export const PACKAGE_NAMED_NOT_FOUND = (name: string) => `No saved package is named "${name}"`;
/** How many packages one customer may keep. */
export const PACKAGE_LIMIT = 100;
export const PACKAGE_LIMIT_REACHED = `You can save at most ${PACKAGE_LIMIT} packages`;
export const PACKAGE_NAME_MAX = 40;
/** Names are told apart without regard to case: "Small box" and "small BOX" are one package. */
export const packageNameTaken = (name: string) => `A package named "${name}" is already saved`;

/** A saved package is weighed in pounds or ounces (ground_oz's unit). */
export const PACKAGE_WEIGHT_UNITS = ['lb', 'oz'] as const;
export type PackageWeightUnit = (typeof PACKAGE_WEIGHT_UNITS)[number];
/** The heaviest package: 150 lb, the same in ounces. */
export const PACKAGE_MAX_WEIGHT = { lb: 150, oz: 2400 } as const satisfies Record<PackageWeightUnit, number>;
export const packageWeightTooHigh = (unit: PackageWeightUnit) => `Weight must be at most ${PACKAGE_MAX_WEIGHT[unit]} ${unit}`;
/** Dimensions are inches, each at most this. */
export const PACKAGE_MAX_DIMENSION = 200;
export const PACKAGE_DIMENSIONS_PARTIAL = 'Give all three dimensions (Length, Width and Height) or none';

const OUNCES_PER_POUND = 16;

/**
 * A package's weight in the unit a label type weighs in (weightUnitFor), rounded to the 2 decimals a weight may have.
 * 24 oz is 1.5 lb; 1.5 lb is 24 oz.
 */
export function packageWeightIn(saved: { weight: number; weightUnit: PackageWeightUnit }, unit: PackageWeightUnit): number {
  if (saved.weightUnit === unit) return saved.weight;
  const converted = unit === 'oz' ? saved.weight * OUNCES_PER_POUND : saved.weight / OUNCES_PER_POUND;
  return Math.round(converted * 100) / 100;
}

/** How a package is shown in a list or picker: 'Small box · 2 lb · 10 × 8 × 4 in'. */
export function describePackage(saved: {
  name: string;
  weight: number;
  weightUnit: PackageWeightUnit;
  length: number | null;
  width: number | null;
  height: number | null;
}): string {
  const size = saved.length !== null && saved.width !== null && saved.height !== null ? ` · ${saved.length} × ${saved.width} × ${saved.height} in` : '';
  return `${saved.name} · ${saved.weight} ${saved.weightUnit}${size}`;
}
