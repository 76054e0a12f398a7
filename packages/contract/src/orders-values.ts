// Address limits, order messages, statuses and list sizes, without zod (see index.ts).
import { USPS_V9_DIMENSION } from './catalog-values.ts';
import { REGIONS } from './regions.ts';
import { refundOnScanForm } from './scan-forms-values.ts';

export const STREET_MAX = 35;
export const NAME_MAX = 100;
export const COMPANY_MAX = 100;
export const CITY_MAX = 50;
export const STATE_MAX = 40;
export const ZIP_MAX = 10;
export const COUNTRY_MAX = 40;
export const PHONE_MAX = 30;
/** A recipient's email (ToEmail), as mail addresses go. */
export const TO_EMAIL_MAX = 254;
/** The declared value the contract takes at most (dollars); the shop's own limit (INSURANCE_MAX, default 5,000) is checked when priced. */
export const INSURANCE_VALUE_CEILING = 100_000;
export const INSURANCE_NOT_SOLD = 'Insurance is not sold with labels here';
export const insuranceAboveMaxMessage = (maxDollars: number) => `Insurance must be at most ${maxDollars.toLocaleString('en-US')} dollars`;

/** A reference line printed on the label: at most this many characters for any carrier (UPS), fewer for some (referenceMaxFor). */
export const REFERENCE_MAX = 35;
/** The longest reference line each carrier prints: USPS 25 characters, FedEx 30, UPS 35. */
export const referenceMaxFor = (uid: string): number => (uid.startsWith('ups_') ? 35 : uid.startsWith('fedex') ? 30 : 25);
/** A ship date may be today (a day of the shop's time zone) up to this many days ahead. */
export const SHIP_DATE_DAYS_AHEAD = 7;

let shopTimeZone = 'UTC';
/** The formatter of the shop's days: made once a zone (a new Intl.DateTimeFormat costs about a millisecond, and a form asks often). */
let shopDayFormat: Intl.DateTimeFormat | undefined;
const UTC_ZONES = new Set(['UTC', 'Etc/UTC', 'Etc/GMT', 'GMT']);
/**
 * The shop's time zone (SHOP_TIME_ZONE, an IANA name), whose days ship dates are: the server sets it as it starts, the web
 * app from the access check's answer. One shop a process, so one zone.
 */
export function setShopTimeZone(zone: string): void {
  shopTimeZone = zone;
  shopDayFormat = undefined;
}
export const getShopTimeZone = (): string => shopTimeZone;

/**
 * A day of the shop's time zone as YYYY-MM-DD: today, or `days` from today. A shop on UTC needs no Intl: a page's first
 * Intl formatter loads the locale data, 36 ms of main thread in headless Chromium here (four times that under Lighthouse's mobile CPU), in Create Order's first render.
 */
export function shopDay(days = 0, now = Date.now()): string {
  const today = UTC_ZONES.has(shopTimeZone)
    ? new Date(now).toISOString().slice(0, 10)
    : (shopDayFormat ??= new Intl.DateTimeFormat('en-CA', { timeZone: shopTimeZone, year: 'numeric', month: '2-digit', day: '2-digit' })).format(now);
  return days ? new Date(Date.parse(`${today}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10) : today;
}
export const shipDateRangeMessage = (now = Date.now()) =>
  `Ship Date must be from today to ${SHIP_DATE_DAYS_AHEAD} days ahead (${shopDay(0, now)} to ${shopDay(SHIP_DATE_DAYS_AHEAD, now)}, ${shopTimeZone})`;

export const ORDER_CREATED = 'Order created successfully';
export const ORDER_DUPLICATED = 'Order duplicated successfully';
export const RETURN_CREATED = 'Return label created';
export const RETURN_EXISTS = 'A return label was already made for this order';
export const RETURN_ONLY_COMPLETED = 'Only a completed label gets a return label';
export const RETURN_OF_RETURN = 'A return label gets no return label of its own';
export const RETURN_REFUNDED = 'A refunded label gets no return label';
export const ORDER_NOT_FOUND = 'Order not found';
export const LABEL_NOT_READY = 'The label is not ready yet';
export const ORDER_CANCELLED_NO_LABEL = 'This order was cancelled and has no label';
export const TEMPLATE_REQUIRED = 'Template is required for Priority labels';
export const TEMPLATE_INVALID = 'Template must be Pitney Bowes, Normal or EVS';
export const USPS_V9_DIMENSIONS_MESSAGE = `Length, Width and Height must be ${USPS_V9_DIMENSION} x ${USPS_V9_DIMENSION} x ${USPS_V9_DIMENSION} inches for USPS v9`;
/** What the user is told when the label provider refuses an order (answer 502); the order is cancelled and refunded. */
export const labelFailedMessage = (reason: string) =>
  `The label could not be created: ${reason}. The order was cancelled and its price refunded to your balance.`;

export const ORDER_STATUSES = ['pending', 'processing', 'completed', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
/** Spec section 4: any status containing 'processing' shows the light badge and makes the list poll. */
export const isProcessingStatus = (status: string): boolean => status.includes('processing');
export const ORDER_POLL_MS = 5000;

/** Where a label's parcel is, as the carrier tracks it (EasyPost's tracker statuses; the sandbox walks the first four). */
export const TRACKING_STATUSES = [
  'pre_transit',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'available_for_pickup',
  'return_to_sender',
  'failure',
  'cancelled',
  'error',
  'unknown',
] as const;
export type TrackingStatus = (typeof TRACKING_STATUSES)[number];
export const TRACKING_STATUS_LABELS: Record<TrackingStatus, string> = {
  pre_transit: 'Label created',
  in_transit: 'In transit',
  out_for_delivery: 'Out for delivery',
  delivered: 'Delivered',
  available_for_pickup: 'Available for pickup',
  return_to_sender: 'Returned to sender',
  failure: 'Delivery failed',
  cancelled: 'Shipment cancelled',
  error: 'Tracking error',
  unknown: 'Unknown',
};
export const DASHBOARD_PAGE_SIZE = 10;

/** A region by its two-letter ID or its full name; answers the ID. */
export const regionIdFor = (value: string): string | undefined => {
  const v = value.trim().toLowerCase();
  return REGIONS.find((r) => r.ID.toLowerCase() === v || r.Name.toLowerCase() === v)?.ID;
};

/**
 * A completed label's refund (void), beside its status (which stays 'completed', so the spec's status flows are
 * unchanged): requested, then refunded (the price credited) or rejected (with the reason). null: never asked.
 */
export const REFUND_STATUSES = ['requested', 'refunded', 'rejected'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];
export const REFUND_STATUS_LABELS: Record<RefundStatus, string> = {
  requested: 'Refund requested',
  refunded: 'Refunded',
  rejected: 'Refund rejected',
};
export const REFUND_REQUESTED = 'Refund requested';
export const REFUND_ONLY_COMPLETED = 'Only a completed label can be refunded';
export const REFUND_ALREADY_REQUESTED = 'A refund was already requested for this order';
export const REFUND_ALREADY_REFUNDED = 'This order was already refunded';
export const REFUND_ALREADY_REJECTED = 'The refund of this order was rejected';
export const LABEL_REFUNDED_NO_DOWNLOAD = 'This label was refunded and can no longer be downloaded';
export const LABEL_REFUND_PENDING_NO_DOWNLOAD = 'A refund of this label was requested; it cannot be downloaded meanwhile';
/** Outside the USPS window (REFUND_WINDOW_DAYS_USPS, counted from the purchase). */
export const refundWindowPassed = (days: number) => `USPS labels can be refunded within ${days} days of purchase; this label is older`;
/** UPS and FedEx (and any carrier) refuse a label once scanned. */
export const refundScanned = (carrier: string) => `The ${carrier} label was already scanned by the carrier and can no longer be refunded`;
export const REFUND_IDS_MAX = 100;
/** Tracking statuses that mean the carrier has the package: a label at one of them can no longer be refunded. */
export const SCANNED_TRACKING_STATUSES: readonly TrackingStatus[] = TRACKING_STATUSES.filter((status) => status !== 'pre_transit' && status !== 'cancelled');
/**
 * Why a completed label not yet refunded cannot be asked to be (the screens show it in place of 'Request refund'), or
 * null when it can be asked. The server has the last word (its window of days for USPS labels).
 */
export function refundBlocked(order: {
  status: string;
  refundStatus: RefundStatus | null;
  trackingStatus: TrackingStatus | null;
  scanFormId?: string | null;
}): string | null {
  if (order.status !== 'completed' || order.refundStatus !== null) return null;
  if (order.scanFormId) return refundOnScanForm(order.scanFormId);
  if (order.trackingStatus && SCANNED_TRACKING_STATUSES.includes(order.trackingStatus))
    return `Cannot be refunded: the carrier has scanned it (${TRACKING_STATUS_LABELS[order.trackingStatus]})`;
  return null;
}

/** Account Setting's answers to turning the automatic voids of unused labels on or off. */
export const AUTO_VOID_ON = 'Unused labels will be refunded automatically';
export const AUTO_VOID_OFF = 'Unused labels will not be refunded automatically';
export const RECIPIENT_EMAILS_ON = 'Recipients with an email will be told when their parcel moves';
export const RECIPIENT_EMAILS_OFF = 'Recipients will not be mailed';
