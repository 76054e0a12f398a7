import { z } from 'zod';
import { labelTypeRef, weightSchema } from './catalog.ts';
import { createOrderBody } from './orders.ts';
import { STRATEGIES, UNAVAILABLE_REASONS } from './rates-values.ts';
import { PACKAGE_NAME_MAX } from './packages-values.ts';

const WEIGHT_UNITS = ['lb', 'oz'] as const;
const weightUnit = z.enum(WEIGHT_UNITS, { error: 'WeightUnit must be lb or oz' });
/** A saved package's name: its weight (and unit) and dimensions fill the fields left out (see withSavedPackage). */
const savedPackageName = z.string().trim().min(1).max(PACKAGE_NAME_MAX).optional();

/**
 * POST /order/rates: a package (its weight, in WeightUnit, pounds by default, and optional dimensions) between two ZIP
 * codes, on a ship date. The addresses may be given whole, as create-order takes them: an order that then matches the
 * quote is bought on the quote's own upstream shipment.
 */
export const ratesBody = createOrderBody.omit({ labelType: true, design: true }).partial().extend({
  Weight: weightSchema,
  WeightUnit: weightUnit.optional(),
  FromZip: createOrderBody.shape.FromZip,
  ToZip: createOrderBody.shape.ToZip,
  package: savedPackageName,
});
export type RatesBody = z.input<typeof ratesBody>;
export type RatesInput = z.output<typeof ratesBody>;

/** One label type's answer for a package: its price and delivery estimate, or why it cannot take it. */
export const rateSchema = z.object({
  labelType: z.object({ uid: z.string(), name: z.string() }),
  carrier: z.string(),
  service: z.string(),
  available: z.boolean(),
  /** Our price in dollars (null when the type cannot take the package). */
  price: z.number().nullable(),
  /** Estimated business days in transit, and the day it arrives counted from the ship date (null when unknown). */
  days: z.number().nullable(),
  deliveryDate: z.string().nullable(),
  reason: z.enum(UNAVAILABLE_REASONS).nullable(),
  message: z.string().nullable(),
});
export type Rate = z.infer<typeof rateSchema>;

export const ratesResponse = z.object({
  quoteId: z.string(),
  expiresAt: z.string(),
  shipDate: z.string(),
  /** The rates are the sandbox's (no postage is bought). */
  sandbox: z.boolean(),
  /** The uids create-order's `strategy` would choose, or null when no type can take the package. */
  cheapest: z.string().nullable(),
  fastest: z.string().nullable(),
  rates: z.array(rateSchema),
});
export type RatesResponse = z.infer<typeof ratesResponse>;

/**
 * POST /order/create's body with a quote: a label type, or a `quoteId` from /order/rates (bought at the quoted price),
 * or a `strategy` (cheapest or fastest of the types that can take the package). With a quote or a strategy the weight
 * is in WeightUnit (pounds by default).
 */
export const createOrderRequest = createOrderBody.extend({
  labelType: labelTypeRef.optional(),
  quoteId: z.string().trim().min(1).max(64).optional(),
  strategy: z.enum(STRATEGIES, { error: 'strategy must be cheapest or fastest' }).optional(),
  WeightUnit: weightUnit.optional(),
  package: savedPackageName,
});
export type CreateOrderRequest = z.output<typeof createOrderRequest>;

/** A placed order: its id and the label type it was bought as (the one a quote or strategy chose). */
export const placedResponse = z.object({ message: z.string(), orderId: z.string().optional(), labelType: z.string().optional() });
