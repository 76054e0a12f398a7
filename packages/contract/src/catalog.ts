import { z } from 'zod';
import { LABEL_TYPE_REQUIRED, LABEL_TYPE_NOT_FOUND, WEIGHT_REQUIRED, WEIGHT_NOT_NUMBER, WEIGHT_NOT_POSITIVE } from './catalog-values.ts';

/** A number sent as a JSON number, or as numeric text from a form; errors name the field. */
export const numberField = (label: string, requiredMessage = `${label} is required`, notNumberMessage = `${label} must be a number`) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v === '' ? undefined : v),
    z.number({ error: (issue) => (issue.input === undefined || issue.input === null ? requiredMessage : notNumberMessage) }),
  );

export const weightSchema = numberField('Weight', WEIGHT_REQUIRED, WEIGHT_NOT_NUMBER).pipe(z.number().positive(WEIGHT_NOT_POSITIVE));

/** The label type's _id (its uid is accepted too). */
export const labelTypeRef = z.string({ error: LABEL_TYPE_REQUIRED }).trim().min(1, LABEL_TYPE_REQUIRED).max(64, LABEL_TYPE_NOT_FOUND);

export const priceTier = z.object({
  /** Dollars. */
  price: z.number(),
  /** A weight w is in the tier when fromWeight <= w <= toWeight; where two tiers meet, the lower one wins. */
  fromWeight: z.number(),
  toWeight: z.number(),
});
export type PriceTier = z.infer<typeof priceTier>;

export const labelTypeSchema = z.object({
  _id: z.string(),
  name: z.string(),
  uid: z.string(),
  maxWeight: z.number(),
  /** 'lb' or 'oz' (ground_oz). */
  weightUnit: z.enum(['lb', 'oz']),
  status: z.boolean(),
  prices: z.array(priceTier),
});
export type LabelType = z.infer<typeof labelTypeSchema>;

/** GET /labeltype/read: the enabled label types. */
export const labelTypesResponse = z.object({ labelTypes: z.array(labelTypeSchema) });

/** POST /order/price */
export const priceBody = z.object({ labelType: labelTypeRef, weight: weightSchema });
export type PriceBody = z.input<typeof priceBody>;
/** Dollars with two decimals. */
export const priceResponse = z.object({ price: z.number() });
