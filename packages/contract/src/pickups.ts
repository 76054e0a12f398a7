import { z } from 'zod';
import { idText } from './common.ts';
import { PICKUP_INSTRUCTIONS_MAX, PICKUP_LABELS_MAX, PICKUP_STATUSES } from './pickups-values.ts';
import { scanFormFromSchema } from './scan-forms.ts';

const isoMoment = z.iso.datetime({ offset: true });

/** POST /pickup/rates: the labels to pick up (one carrier, one from address), the window and the instructions. */
export const pickupRatesBody = z.object({
  orderIds: z.array(idText()).min(1, 'Select at least one label').max(PICKUP_LABELS_MAX),
  minDatetime: isoMoment,
  maxDatetime: isoMoment,
  instructions: z.string().trim().max(PICKUP_INSTRUCTIONS_MAX).default(''),
});
export type PickupRatesBody = z.input<typeof pickupRatesBody>;

export const pickupRateSchema = z.object({ service: z.string(), fee: z.number().describe('Dollars') });

export const pickupSchema = z.object({
  _id: z.string(),
  status: z.enum(PICKUP_STATUSES),
  carrier: z.string(),
  from: scanFormFromSchema,
  minDatetime: z.string(),
  maxDatetime: z.string(),
  instructions: z.string(),
  labelCount: z.number().int(),
  /** The upstream's offers (rated), each with its fee. */
  rates: z.array(pickupRateSchema),
  /** The service booked (or being booked), its fee and the carrier's confirmation number. */
  service: z.string().nullable(),
  fee: z.number().nullable(),
  confirmation: z.string().nullable(),
  /** Why it failed or could not be cancelled, in the upstream's words. */
  message: z.string().nullable(),
  createdAt: z.string(),
});
export type Pickup = z.infer<typeof pickupSchema>;

/** POST /pickup: books one of a rated pickup's services, charging its fee. */
export const pickupBuyBody = z.object({ pickupId: idText(), service: z.string().min(1).max(100) });
export type PickupBuyBody = z.infer<typeof pickupBuyBody>;

export const pickupAnswerSchema = z.object({ message: z.string(), pickup: pickupSchema });
export type PickupAnswer = z.infer<typeof pickupAnswerSchema>;
export const pickupListResponse = z.object({ pickups: z.array(pickupSchema) });
export type PickupListResponse = z.infer<typeof pickupListResponse>;

/** GET /admin/pickups: every customer's newest pickups, or one customer's (`userId`, their page in the console). */
export const adminPickupsQuery = z.object({ userId: idText().optional() });
export type AdminPickupsQuery = z.infer<typeof adminPickupsQuery>;
/** GET /admin/pickups: every customer's newest pickups, with the owner (a failed one with the upstream's reason). */
export const adminPickupsResponse = z.object({
  pickups: z.array(pickupSchema.extend({ owner: z.object({ _id: z.string(), tgId: z.string(), username: z.string() }) })),
});
export type AdminPickupsResponse = z.infer<typeof adminPickupsResponse>;
