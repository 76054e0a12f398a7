import { z } from 'zod';
import { weightSchema, measureField } from './catalog.ts';
import { printedLine } from './common.ts';
import {
  PACKAGE_DIMENSIONS_PARTIAL,
  PACKAGE_MAX_DIMENSION,
  PACKAGE_MAX_WEIGHT,
  PACKAGE_NAME_MAX,
  PACKAGE_WEIGHT_UNITS,
  packageWeightTooHigh,
} from './packages-values.ts';

/** A dimension in inches, or none: absent, null and '' (an empty form field) are none. */
const dimension = (label: string) =>
  z
    .preprocess(
      (v) => (v === '' || v === null ? undefined : v),
      measureField(label)
        .pipe(z.number().max(PACKAGE_MAX_DIMENSION, `${label} must be at most ${PACKAGE_MAX_DIMENSION}`))
        .optional(),
    )
    .transform((v) => v ?? null);

const DIMENSIONS = ['length', 'width', 'height'] as const;

/**
 * POST /packages and PUT /packages/{id} (the web's and the reseller API's): a name of 1-40 characters, unique per
 * customer without regard to case; a weight above 0, at most 150 lb or 2400 oz; all three dimensions (inches, each
 * above 0 and at most 200) or none.
 */
export const packageBody = z
  .object({
    name: printedLine('Name', PACKAGE_NAME_MAX).min(1, 'Name is required'),
    weight: weightSchema,
    weightUnit: z.enum(PACKAGE_WEIGHT_UNITS, { error: 'Weight unit must be lb or oz' }).default('lb'),
    length: dimension('Length'),
    width: dimension('Width'),
    height: dimension('Height'),
  })
  .superRefine((body, ctx) => {
    if (body.weight > PACKAGE_MAX_WEIGHT[body.weightUnit]) ctx.addIssue({ code: 'custom', path: ['weight'], message: packageWeightTooHigh(body.weightUnit) });
    const missing = DIMENSIONS.filter((d) => body[d] === null);
    if (missing.length > 0 && missing.length < DIMENSIONS.length) ctx.addIssue({ code: 'custom', path: [missing[0]], message: PACKAGE_DIMENSIONS_PARTIAL });
  });
export type PackageBody = z.input<typeof packageBody>;
export type PackageInput = z.output<typeof packageBody>;

export const packageSchema = z.object({
  _id: z.string(),
  name: z.string(),
  weight: z.number(),
  weightUnit: z.enum(PACKAGE_WEIGHT_UNITS),
  length: z.number().nullable(),
  width: z.number().nullable(),
  height: z.number().nullable(),
});
export type SavedPackage = z.infer<typeof packageSchema>;

/** GET /packages: the customer's packages by name. */
export const packageListResponse = z.object({ packages: z.array(packageSchema) });
/** POST /packages and PUT /packages/{id}: the package as saved. */
export const packageSavedResponse = z.object({ message: z.string(), package: packageSchema });
