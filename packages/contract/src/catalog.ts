import { z } from 'zod';
import { LABEL_TYPE_REQUIRED, LABEL_TYPE_NOT_FOUND, WEIGHT_REQUIRED, WEIGHT_NOT_NUMBER, WEIGHT_NOT_POSITIVE } from './catalog-values.ts';
import { dollars } from './common.ts';
import { INSURANCE_VALUE_CEILING, insuranceAboveMaxMessage } from './orders-values.ts';

/** A number sent as a JSON number, or as numeric text from a form; errors name the field. */
export const numberField = (label: string, requiredMessage = `${label} is required`, notNumberMessage = `${label} must be a number`) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v === '' ? undefined : v),
    z.number({ error: (issue) => (issue.input === undefined || issue.input === null ? requiredMessage : notNumberMessage) }),
  );

/** A number written plainly: digits with an optional point and more digits ('2', '2.50', '.5', '-1'); no exponent, hex, Infinity. */
export const PLAIN_DECIMAL = /^-?(\d+(\.\d+)?|\.\d+)$/;
/** Weights and dimensions have at most this many decimals: 0.01 is the least there is. */
export const MEASURE_DECIMALS = 2;
/** Whether a finite number has at most MEASURE_DECIMALS decimals (1e-300 and 1.234 do not). */
export const hasMeasureDecimals = (n: number): boolean => Math.round(n * 10 ** MEASURE_DECIMALS) / 10 ** MEASURE_DECIMALS === n;

/**
 * A weight or a dimension: a JSON number, or a plain decimal as text (a form, a CSV cell); greater than 0 with at most
 * 2 decimals. Text in any other notation ('0x2', '1e-300', 'Infinity') is not a number here, though JavaScript reads it as one.
 */
export const measureField = (
  label: string,
  requiredMessage = `${label} is required`,
  notNumberMessage = `${label} must be a number`,
  notPositiveMessage = `${label} must be greater than 0`,
) =>
  z.preprocess(
    (v) => {
      if (typeof v !== 'string') return v;
      const text = v.trim();
      return text === '' ? undefined : PLAIN_DECIMAL.test(text) ? Number(text) : v;
    },
    z
      .number({ error: (issue) => (issue.input === undefined || issue.input === null ? requiredMessage : notNumberMessage) })
      .positive(notPositiveMessage)
      .refine(hasMeasureDecimals, `${label} must have at most ${MEASURE_DECIMALS} decimal places`),
  );

export const weightSchema = measureField('Weight', WEIGHT_REQUIRED, WEIGHT_NOT_NUMBER, WEIGHT_NOT_POSITIVE);

/**
 * The declared value of the parcel's contents to insure (Insurance), dollars: optional ('' , null or 0 is none). Its
 * price is the shop's (INSURANCE_RATE_PERCENT of it, at least INSURANCE_MIN), charged with the label.
 */
export const insuranceValue = z.preprocess(
  (v) => {
    const given = typeof v === 'string' ? v.trim() : v;
    return given === null || Number(given) === 0 ? undefined : given;
  },
  dollars('Insurance')
    .pipe(z.number().positive('Insurance must be greater than 0').max(INSURANCE_VALUE_CEILING, insuranceAboveMaxMessage(INSURANCE_VALUE_CEILING)))
    .optional(),
);

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
export const priceBody = z.object({ labelType: labelTypeRef, weight: weightSchema, insurance: insuranceValue });
export type PriceBody = z.input<typeof priceBody>;
/** Dollars with two decimals. */
export const priceResponse = z.object({
  price: z.number(),
  /** With a declared value asked (insurance): what insuring it costs, dollars, on top of the price. */
  insurance: z.number().optional(),
});
