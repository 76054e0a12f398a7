import { z } from 'zod';
import { PRINTABLE_LINE, messageResponse, printedLine, requiredText, stringField } from './common.ts';
import { PLAIN_DECIMAL, hasMeasureDecimals, measureField } from './catalog.ts';
import { isCountryCode } from './countries.ts';
import { normalizePhone } from './orders.ts';
import { userRefSchema } from './admin.ts';
import {
  FEDEX_MAX_ITEMS,
  FEDEX_PAGE_SIZE,
  PICKUP_DAYS_AHEAD,
  PICKUP_WINDOW_HOURS,
  PICKUP_LATEST_START,
  FEDEX_STREET_MAX,
  FEDEX_NAME_MAX,
  FEDEX_CITY_MAX,
  FEDEX_STATE_MAX,
  FEDEX_ZIP_MAX,
  FEDEX_EMAIL_MAX,
  FEDEX_NOTES_MAX,
  FEDEX_ITEM_DESCRIPTION_MAX,
  FEDEX_CURRENCIES,
  DEFAULT_FEDEX_CURRENCY,
  SHIPMENT_PURPOSES,
  DEFAULT_SHIPMENT_PURPOSE,
  WEIGHT_UNITS,
  DIMENSION_UNITS,
  FEDEX_STATUSES,
  FEDEX_ITEMS_REQUIRED,
  FEDEX_ITEMS_TOO_MANY,
  WEIGHT_UNIT_INVALID,
  DIMENSION_UNIT_INVALID,
  CURRENCY_INVALID,
  SHIPMENT_PURPOSE_INVALID,
  PICKUP_DATE_REQUIRED,
  PICKUP_DATE_FORMAT,
  PICKUP_TIME_REQUIRED,
  PICKUP_TIME_FORMAT,
  PICKUP_TIME_TOO_LATE,
  TIME_ZONE_REQUIRED,
  TIME_ZONE_INVALID,
  pickupDateOutOfWindowMessage,
  countryInvalidMessage,
} from './fedex-values.ts';

// FedEx hand-made international orders (spec sections 2, 3, 5, 7, 9): the customer pays a flat
// price (the operator's setting, GET /fed/read-price) for an order with a commercial invoice; an
// operator fulfils it by hand in the console, uploading the label PDF, or cancels it with a refund.

// ---- Dates, times and time zones ------------------------------------------------------------

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;
const OFFSET = /^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$/i;

/** Minutes east of UTC of an offset like '+05:30', '-0800', 'UTC+5' or 'GMT-03:00'; null when it is not one. */
function offsetMinutes(zone: string): number | null {
  const match = OFFSET.exec(zone.trim());
  if (!match) return null;
  const hours = Number(match[2]);
  const minutes = Number(match[3] ?? 0);
  const total = (match[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
  return minutes < 60 && total >= -12 * 60 && total <= 14 * 60 ? total : null;
}

/**
 * The calendar date (yyyy-mm-dd) it is at `now` in a time zone: an IANA name (what the browser's
 * Intl.DateTimeFormat().resolvedOptions().timeZone gives) or a UTC offset. Null when the zone is not valid.
 */
export function todayIn(timeZone: string, now: Date = new Date()): string | null {
  const zone = timeZone.trim();
  if (!zone) return null;
  const offset = offsetMinutes(zone);
  if (offset !== null) return new Date(now.getTime() + offset * 60_000).toISOString().slice(0, 10);
  try {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
    const part = (type: string) => parts.find((p) => p.type === type)?.value;
    return `${part('year')}-${part('month')}-${part('day')}`;
  } catch {
    return null;
  }
}

export const isValidTimeZone = (timeZone: string): boolean => todayIn(timeZone) !== null;

/** A real calendar date written yyyy-mm-dd (2026-02-30 is not). */
export function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === value;
}

/** yyyy-mm-dd plus whole days. */
export const addDays = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** The dates a pickup may be booked on, for the date input's min and max; null when the zone is not valid. */
export function pickupDateRange(timeZone: string, now: Date = new Date()): { min: string; max: string } | null {
  const today = todayIn(timeZone, now);
  return today ? { min: today, max: addDays(today, PICKUP_DAYS_AHEAD) } : null;
}

export const isPickupTime = (value: string): boolean => TIME.test(value);

/** 'To Pickup Time': the start (HH:mm) plus PICKUP_WINDOW_HOURS. */
export function pickupEndTime(start: string): string {
  const [hours, minutes] = start.split(':').map(Number);
  const end = (hours * 60 + minutes + PICKUP_WINDOW_HOURS * 60) % (24 * 60);
  return `${String(Math.floor(end / 60)).padStart(2, '0')}:${String(end % 60).padStart(2, '0')}`;
}

// ---- Create payload -------------------------------------------------------------------------

const text = printedLine;
const required = (label: string, max: number) => text(label, max).min(1, `${label} is required`);
const optional = (label: string, max: number) =>
  text(label, max)
    .nullish()
    .transform((v) => v ?? '');
// The one phone rule of every form (normalizePhone, as Create Order): '(214) 555-0100' is a phone;
// numbers outside North America are written with their country code ('+44 20 7946 0958').
const phone = (label: string) => required(label, 30).refine((v) => normalizePhone(v) !== null, `${label} must be a valid phone number`);
const email = (label: string) =>
  optional(label, FEDEX_EMAIL_MAX).refine((v) => v === '' || z.email().safeParse(v).success, `${label} must be a valid email address`);
/** An ISO 3166-1 alpha-2 code (see COUNTRIES), any case; answers it upper case. */
const country = (label: string) => stringField(label).trim().toUpperCase().min(1, `${label} is required`).refine(isCountryCode, countryInvalidMessage(label));
const flag = (label: string) => z.boolean({ error: `${label} must be true or false` }).default(false);
const measure = (label: string, max: number) => measureField(label).pipe(z.number().max(max, `${label} must be at most ${max}`));

/** The address of a pickup, checked only when a pickup is chosen. */
export const pickupAddressSchema = z.object({
  name: required('Pickup Name', FEDEX_NAME_MAX),
  street: required('Pickup Street', FEDEX_STREET_MAX),
  street2: optional('Pickup Street 2', FEDEX_STREET_MAX),
  city: required('Pickup City', FEDEX_CITY_MAX),
  state: optional('Pickup State', FEDEX_STATE_MAX),
  zip: required('Pickup ZIP', FEDEX_ZIP_MAX),
  phone: phone('Pickup Phone'),
  country: country('Pickup Country'),
});
export type PickupAddress = z.output<typeof pickupAddressSchema>;

// Invoice items name their position: 'Item 3 Units must be a whole number'.
const itemName = (issue: { path?: PropertyKey[] }) => {
  const index = issue.path?.find((p) => typeof p === 'number');
  return typeof index === 'number' ? `Item ${index + 1}` : 'Item';
};
const itemError = (rest: string) => ({ error: (issue: { path?: PropertyKey[] }) => `${itemName(issue)} ${rest}` });
const itemNumber = (label: string) =>
  z.preprocess(
    // Plain decimals only, as measureField: '0x2' and '1e3' are not numbers here.
    (v) => (typeof v === 'string' && PLAIN_DECIMAL.test(v.trim()) ? Number(v.trim()) : typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.number({ error: (issue) => `${itemName(issue)} ${label} ${issue.input === undefined || issue.input === null ? 'is required' : 'must be a number'}` }),
  );
const itemText = (label: string, max: number) =>
  z
    .string({ error: (issue) => `${itemName(issue)} ${label} ${issue.input === undefined || issue.input === null ? 'is required' : 'must be text'}` })
    .trim()
    .min(1, itemError(`${label} is required`))
    .max(max, itemError(`${label} must be at most ${max} characters`))
    .regex(PRINTABLE_LINE, itemError(`${label} holds characters that cannot be printed`));
const HS_CODE = /^\d{6,10}$/;

/** One line of the commercial invoice; weight and value are per unit (weight in the order's weightUnit, value in its currency). */
export const fedexInvoiceItemBody = z.object({
  units: itemNumber('Units').pipe(
    z
      .number()
      .int(itemError('Units must be a whole number'))
      .min(1, itemError('Units must be at least 1'))
      .max(100_000, itemError('Units must be at most 100000')),
  ),
  description: itemText('Description', FEDEX_ITEM_DESCRIPTION_MAX),
  weight: itemNumber('Weight').pipe(
    z
      .number()
      .positive(itemError('Weight must be greater than 0'))
      .max(1000, itemError('Weight must be at most 1000'))
      .refine(hasMeasureDecimals, itemError('Weight must have at most 2 decimal places')),
  ),
  value: itemNumber('Value').pipe(
    z
      .number()
      .positive(itemError('Value must be greater than 0'))
      .max(1_000_000, itemError('Value must be at most 1000000'))
      .refine((n) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6, itemError('Value must have at most 2 decimal places')),
  ),
  /** The harmonized (HS) tariff code: 6 to 10 digits, dots and spaces allowed ('6109.10'). */
  tariff: itemText('Tariff code', 20).refine(
    (v) => HS_CODE.test(v.replace(/[.\s]/g, '')),
    itemError('Tariff code must be an HS code of 6 to 10 digits, like 6109.10'),
  ),
});
export type FedexInvoiceItemBody = z.input<typeof fedexInvoiceItemBody>;
export type FedexInvoiceItem = z.output<typeof fedexInvoiceItemBody>;

/** What the form may send under pickupInfo when no pickup is chosen: anything text-like, ignored. */
const loose = z.string().nullish();
const pickupInfoInput = z
  .object({ name: loose, street: loose, street2: loose, city: loose, state: loose, zip: loose, phone: loose, country: loose })
  .partial()
  .nullish();

const fedexOrderFields = z.object({
  fromName: required('Sender Name', FEDEX_NAME_MAX),
  fromStreet: required('Sender Street', FEDEX_STREET_MAX),
  fromStreet2: optional('Sender Street 2', FEDEX_STREET_MAX),
  fromCity: required('Sender City', FEDEX_CITY_MAX),
  fromState: optional('Sender State', FEDEX_STATE_MAX),
  fromZip: required('Sender ZIP', FEDEX_ZIP_MAX),
  fromPhone: phone('Sender Phone'),
  fromEmail: email('Sender Email'),
  fromCountry: country('Sender Country'),
  toName: required('Receiver Name', FEDEX_NAME_MAX),
  toStreet: required('Receiver Street', FEDEX_STREET_MAX),
  toStreet2: optional('Receiver Street 2', FEDEX_STREET_MAX),
  toCity: required('Receiver City', FEDEX_CITY_MAX),
  toState: optional('Receiver State', FEDEX_STATE_MAX),
  toZip: required('Receiver ZIP', FEDEX_ZIP_MAX),
  toPhone: phone('Receiver Phone'),
  toEmail: email('Receiver Email'),
  toCountry: country('Receiver Country'),
  weight: measure('Weight', 1000),
  length: measure('Length', 500),
  width: measure('Width', 500),
  height: measure('Height', 500),
  weightUnit: z.enum(WEIGHT_UNITS, { error: WEIGHT_UNIT_INVALID }).default('lbs'),
  dimensionUnit: z.enum(DIMENSION_UNITS, { error: DIMENSION_UNIT_INVALID }).default('inch'),
  specialNotes: optional('Special Notes', FEDEX_NOTES_MAX),
  signature: flag('Signature'),
  pickup: flag('Pickup'),
  /** yyyy-mm-dd, today to PICKUP_DAYS_AHEAD days ahead in `timeZone`; required when pickup is true. */
  pickupDate: loose,
  /** HH:mm, at most PICKUP_LATEST_START; required when pickup is true. The end time is derived (pickupEndTime). */
  pickupTime: loose,
  /** The pickup address; required when pickup is true. */
  pickupInfo: pickupInfoInput,
  /** The customer's IANA time zone or UTC offset, which 'today' of the pickup window is counted in; required when pickup is true. */
  timeZone: loose,
  invoiceItems: z.array(fedexInvoiceItemBody, { error: FEDEX_ITEMS_REQUIRED }).min(1, FEDEX_ITEMS_REQUIRED).max(FEDEX_MAX_ITEMS, FEDEX_ITEMS_TOO_MANY),
  shipmentPurpose: z.enum(SHIPMENT_PURPOSES, { error: SHIPMENT_PURPOSE_INVALID }).default(DEFAULT_SHIPMENT_PURPOSE),
  currency: z.enum(FEDEX_CURRENCIES, { error: CURRENCY_INVALID }).default(DEFAULT_FEDEX_CURRENCY),
});

/**
 * The first problem of the pickup fields of an order that asks for a pickup, with the field it
 * belongs to, or null. The date is checked against 'today' in the customer's zone at `now`.
 */
export function pickupProblem(
  order: { pickupDate?: string | null; pickupTime?: string | null; timeZone?: string | null },
  now: Date = new Date(),
): { path: string; message: string } | null {
  const date = order.pickupDate?.trim() ?? '';
  if (!date) return { path: 'pickupDate', message: PICKUP_DATE_REQUIRED };
  if (!isCalendarDate(date)) return { path: 'pickupDate', message: PICKUP_DATE_FORMAT };
  const zone = order.timeZone?.trim() ?? '';
  if (!zone) return { path: 'timeZone', message: TIME_ZONE_REQUIRED };
  const range = pickupDateRange(zone, now);
  if (!range) return { path: 'timeZone', message: TIME_ZONE_INVALID };
  if (date < range.min || date > range.max) return { path: 'pickupDate', message: pickupDateOutOfWindowMessage(range.min, range.max) };
  const time = order.pickupTime?.trim() ?? '';
  if (!time) return { path: 'pickupTime', message: PICKUP_TIME_REQUIRED };
  if (!isPickupTime(time)) return { path: 'pickupTime', message: PICKUP_TIME_FORMAT };
  if (time > PICKUP_LATEST_START) return { path: 'pickupTime', message: PICKUP_TIME_TOO_LATE };
  return null;
}

/**
 * POST /fed/create-order. Every rule is checked here, so the web form (react-hook-form with
 * zodResolver) and the server agree; the pickup window is counted at the moment of parsing.
 * Without a pickup, pickupDate, pickupTime, pickupInfo and timeZone are ignored (null in the output).
 */
export const createFedexOrderBody = fedexOrderFields
  .superRefine((order, ctx) => {
    if (!order.pickup) return;
    const problem = pickupProblem(order);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: [problem.path] });
    const address = pickupAddressSchema.safeParse(order.pickupInfo ?? {});
    if (!address.success)
      for (const issue of address.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: ['pickupInfo', ...issue.path] });
  })
  .transform((order) => {
    const { pickupInfo, pickupDate, pickupTime, timeZone, ...rest } = order;
    if (!order.pickup) return { ...rest, pickupInfo: null, pickupDate: null, pickupTime: null, pickupEndTime: null, timeZone: null };
    const time = pickupTime!.trim();
    return {
      ...rest,
      pickupInfo: pickupAddressSchema.parse(pickupInfo),
      pickupDate: pickupDate!.trim(),
      pickupTime: time,
      pickupEndTime: pickupEndTime(time),
      timeZone: timeZone!.trim(),
    };
  });
/** The form's values (what is sent). */
export type CreateFedexOrderBody = z.input<typeof createFedexOrderBody>;
/** The checked order, as the server keeps it. */
export type CreateFedexOrderInput = z.output<typeof createFedexOrderBody>;
export const createFedexOrderResponse = messageResponse;

// ---- Listed order ---------------------------------------------------------------------------

/** Address (FedEx view): sender and receiver carry an email ('' when none). */
export const fedexAddressSchema = z.object({
  name: z.string(),
  street: z.string(),
  street2: z.string(),
  city: z.string(),
  state: z.string(),
  zip: z.string(),
  phone: z.string(),
  email: z.string(),
  country: z.string(),
});
export type FedexAddress = z.infer<typeof fedexAddressSchema>;
export const fedexPickupAddressSchema = fedexAddressSchema.omit({ email: true });

export const fedexInvoiceItemSchema = z.object({ units: z.number(), description: z.string(), weight: z.number(), value: z.number(), tariff: z.string() });

/** A FedEx order as the Orders tab and the View Order modal show it (spec section 3, listed form). */
export const fedexOrderSchema = z.object({
  _id: z.string(),
  /** The order's id, shown in the OrderId column; searchable. */
  uuid: z.string(),
  status: z.enum(FEDEX_STATUSES),
  /** Dollars charged. */
  price: z.number(),
  /** Status Note: the operator's note on completing or cancelling, else null. */
  note: z.string().nullable(),
  createdAt: z.string(),
  /**
   * Completed orders only: the label's download path, signed and expiring (at least an hour; each
   * list load gives a fresh one). Opened as a plain link (server address + path), no Authorization header.
   */
  file: z.string().nullable(),
  /** The commercial invoice PDF's path (GET with the bearer token). */
  invoice: z.string(),
  from: fedexAddressSchema,
  to: fedexAddressSchema,
  /** Null without a pickup. */
  pickupAddress: fedexPickupAddressSchema.nullable(),
  weight: z.number(),
  weightUnit: z.enum(WEIGHT_UNITS),
  length: z.number(),
  width: z.number(),
  height: z.number(),
  dimensionUnit: z.enum(DIMENSION_UNITS),
  specialNotes: z.string(),
  signature: z.boolean(),
  pickup: z.boolean(),
  /** yyyy-mm-dd in the customer's zone, or null. */
  pickupDate: z.string().nullable(),
  /** HH:mm, or null. */
  pickupTime: z.string().nullable(),
  /** 'To Pickup Time': pickupTime plus PICKUP_WINDOW_HOURS, or null. */
  pickupEndTime: z.string().nullable(),
  /** The zone the pickup date and times are in, or null. */
  timeZone: z.string().nullable(),
  shipmentPurpose: z.enum(SHIPMENT_PURPOSES),
  currency: z.enum(FEDEX_CURRENCIES),
  invoiceItems: z.array(fedexInvoiceItemSchema),
  /** The sum of units x value over the items, in `currency`. */
  totalValue: z.number(),
});
export type FedexOrder = z.infer<typeof fedexOrderSchema>;

const emptyAsUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

/** GET /fed/read?page=&limit=&search=: the user's own orders, newest first; search over id, names and cities. */
export const fedexListQuery = z.object({
  page: z.preprocess(
    emptyAsUndefined,
    z.coerce.number({ error: 'Page must be a number' }).int('Page must be a whole number').min(1, 'Page must be at least 1').default(1),
  ),
  limit: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: 'Limit must be a number' })
      .int('Limit must be a whole number')
      .min(1, 'Limit must be at least 1')
      .max(100, 'Limit must be at most 100')
      .default(FEDEX_PAGE_SIZE),
  ),
  search: z.preprocess((v) => v ?? '', z.string().trim().max(100, 'Search must be at most 100 characters')),
});
export type FedexListQuery = z.input<typeof fedexListQuery>;
export const fedexListResponse = z.object({ docs: z.array(fedexOrderSchema), totalPages: z.number(), totalDocs: z.number() });
export type FedexListResponse = z.infer<typeof fedexListResponse>;

/** GET /fed/file/:id?expires=&signature=: a missing, tampered or expired signature is 403 FEDEX_LINK_INVALID. */
export const fedexFileQuery = z.object({ expires: z.string().max(20).optional(), signature: z.string().max(200).optional() });

// ---- Operator console: the FedEx queue (under /api/v1/admin) --------------------------------

/**
 * A pending order as the console's queue shows it: every detail of the View Order modal, its owner,
 * and `invoice` pointing at the admin's copy of the commercial invoice.
 */
export const adminFedexOrderSchema = fedexOrderSchema.extend({ owner: userRefSchema, updatedAt: z.string() });
export type AdminFedexOrder = z.infer<typeof adminFedexOrderSchema>;

export const ADMIN_FEDEX_STATES = ['pending', 'done'] as const;
/** GET /admin/fedex-orders?state=&page=&limit=: pending orders, oldest first (the queue); state=done: completed and cancelled ones, newest first (the history). */
export const adminFedexQueueQuery = fedexListQuery.omit({ search: true }).extend({
  state: z.preprocess((v) => emptyAsUndefined(v) ?? 'pending', z.enum(ADMIN_FEDEX_STATES, { error: `State must be one of ${ADMIN_FEDEX_STATES.join(', ')}` })),
});
export const adminFedexQueueResponse = z.object({ orders: z.array(adminFedexOrderSchema), totalPages: z.number(), total: z.number() });
export type AdminFedexQueueResponse = z.infer<typeof adminFedexQueueResponse>;

/**
 * POST /admin/fedex-orders/:id/complete, multipart/form-data: the file field `label` (a PDF of at
 * most FEDEX_LABEL_MAX_BYTES) and an optional text field `note` (the customer's Status Note).
 */
export const completeFedexOrderFields = z.object({ note: optional('Note', FEDEX_NOTES_MAX) });
/** POST /admin/fedex-orders/:id/cancel: the note is required and shows as the Status Note. */
export const cancelFedexOrderBody = z.object({ note: requiredText('Note', FEDEX_NOTES_MAX) });
export type CancelFedexOrderBody = z.input<typeof cancelFedexOrderBody>;
