import { z } from 'zod';
import { TRACKING_STATUSES } from './orders-values.ts';
import { TRACKING_LINK_INVALID, TRACKING_TOKEN_PATTERN } from './tracking-page-values.ts';

/** The token of a tracking page, checked before anything is looked up (a 400 for anything that cannot be one). */
export const trackingTokenParams = z.object({ token: z.string().max(64, TRACKING_LINK_INVALID).regex(TRACKING_TOKEN_PATTERN, TRACKING_LINK_INVALID) });

/** Only the city and state of an address: the page shows nothing more of either side. */
const place = z.object({ city: z.string(), state: z.string() });

/**
 * GET /track/:token: what anyone holding a label's link may see. No names, streets, ZIP codes, phones, prices or
 * order numbers: the carrier, the service, where the parcel is and has been, and the two cities.
 */
export const trackingPageResponse = z.object({
  carrier: z.string(),
  service: z.string(),
  trackingNumber: z.string().nullable(),
  /** Where the parcel is now (TRACKING_STATUSES), null before the carrier's first word. */
  status: z.enum(TRACKING_STATUSES).nullable(),
  /** The label was voided (refunded): it will not travel. */
  voided: z.boolean(),
  from: place,
  to: place,
  /** The day it ships (YYYY-MM-DD). */
  shipDate: z.string().nullable(),
  /** The day the shop expects it delivered (YYYY-MM-DD), when it knows one; else null. */
  estimatedDelivery: z.string().nullable(),
  /** Each status once, when it was first told, oldest first. */
  history: z.array(z.object({ status: z.enum(TRACKING_STATUSES), at: z.string() })),
});
export type TrackingPage = z.infer<typeof trackingPageResponse>;
