import { z } from 'zod';
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { idText, printedLine } from './common.ts';
import { insuranceValue, labelTypeRef, measureField, weightSchema } from './catalog.ts';
import { USPS_V9_DIMENSION, TEMPLATE_VALUES, countryFor, isUpsLabelType, templateRequired } from './catalog-values.ts';
import { CANADA_REGION_CODES, US_STATE_CODES } from './regions.ts';
import { statementEntrySchema } from './billing.ts';
import {
  STREET_MAX,
  NAME_MAX,
  COMPANY_MAX,
  CITY_MAX,
  STATE_MAX,
  ZIP_MAX,
  COUNTRY_MAX,
  PHONE_MAX,
  TO_EMAIL_MAX,
  REFERENCE_MAX,
  SHIP_DATE_DAYS_AHEAD,
  referenceMaxFor,
  shipDateRangeMessage,
  shopDay,
  TEMPLATE_REQUIRED,
  TEMPLATE_INVALID,
  USPS_V9_DIMENSIONS_MESSAGE,
  ORDER_STATUSES,
  TRACKING_STATUSES,
  REFUND_IDS_MAX,
  REFUND_STATUSES,
  DASHBOARD_PAGE_SIZE,
  regionIdFor,
} from './orders-values.ts';
import { PICKUP_STATUSES } from './pickups-values.ts';

export const US_ZIP = /^\d{5}(-\d{4})?$/;
export const CANADIAN_POSTAL_CODE = /^[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] ?\d[ABCEGHJ-NPRSTV-Z]\d$/;
const text = printedLine;
const required = (label: string, max: number) => text(label, max).min(1, `${label} is required`);
const optional = (label: string, max: number) =>
  text(label, max)
    .nullish()
    .transform((v) => v ?? '');

const state = (label: string) => required(label, STATE_MAX).transform((s) => regionIdFor(s) ?? s.toUpperCase());
/**
 * A phone number as people write it ('(214) 555-0100', '214.555.0100', '+1 214 555 0100') in its one
 * stored form, E.164 ('+12145550100'); numbers without a country code are read as North American.
 * Null when the text is not a valid phone number.
 */
export function normalizePhone(value: string): string | null {
  const parsed = parsePhoneNumberFromString(value.trim(), 'US');
  return parsed?.isValid() ? parsed.number : null;
}
/** An optional phone: stored as E.164 when it is one; other text is kept for the label type's rule to judge. */
const phone = (label: string) => optional(label, PHONE_MAX).transform((s) => (s ? (normalizePhone(s) ?? s) : s));
const zip = (label: string) => required(label, ZIP_MAX).transform((s) => s.toUpperCase());
const dimension = (label: string) =>
  measureField(label)
    .pipe(z.number().max(200, `${label} must be at most 200`))
    .optional();

/** A reference line: printed text, a number taken as its text (an order number in a CSV or JSON row). */
const reference = (label: string) => z.preprocess((v) => (typeof v === 'number' ? String(v) : v), optional(label, REFERENCE_MAX));

/**
 * The day the parcel is handed over, YYYY-MM-DD: today (a day of the shop's time zone) up to SHIP_DATE_DAYS_AHEAD days ahead. Optional: an
 * order without one ships today. Checked against the clock when it is read.
 */
const shipDate = z.preprocess(
  (v) => (v === '' || v === null ? undefined : typeof v === 'string' ? v.trim() : v),
  z
    .string({ error: 'Ship Date must be a date like 2026-12-01' })
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'Ship Date must be a date like 2026-12-01')
    .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), {
      message: 'Ship Date must be a date like 2026-12-01',
      abort: true,
    })
    .refine((d) => d >= shopDay() && d <= shopDay(SHIP_DATE_DAYS_AHEAD), { error: () => shipDateRangeMessage() })
    .optional(),
);

/** The recipient's email (ToEmail): optional ('' or null is none), at most 254 characters, kept in lower case. */
const recipientEmail = z.preprocess(
  (v) => (v === '' || v === null ? undefined : typeof v === 'string' ? v.trim() : v),
  z
    .string({ error: 'To Email must be text' })
    .max(TO_EMAIL_MAX, `To Email must be at most ${TO_EMAIL_MAX} characters`)
    .pipe(z.email('To Email must be a valid email address'))
    .transform((email) => email.toLowerCase())
    .optional(),
);

/** Yes or no, as a CSV cell or JSON writes it (yes/no, true/false, 1/0, y/n; empty is no). */
const returnFlag = z.preprocess(
  (v) => {
    if (v === '' || v === null || v === undefined) return undefined;
    const word = typeof v === 'string' ? v.trim().toLowerCase() : v;
    if (word === '') return undefined;
    if (word === true || word === 1 || ['yes', 'y', 'true', '1'].includes(word as string)) return true;
    if (word === false || word === 0 || ['no', 'n', 'false', '0'].includes(word as string)) return false;
    return word;
  },
  z.boolean({ error: 'Return must be yes or no' }).optional(),
);

/** POST /order/create (and the shape a duplicate repeats). Country may be left out: it is fixed by the label type. */
export const createOrderBody = z.object({
  labelType: labelTypeRef,
  /** Template, required for priority: pitney, normal or evs. */
  design: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.enum(TEMPLATE_VALUES, { error: TEMPLATE_INVALID }).optional()),
  Weight: weightSchema,
  Length: dimension('Length'),
  Width: dimension('Width'),
  Height: dimension('Height'),
  FromName: required('From Name', NAME_MAX),
  FromCompany: optional('From Company', COMPANY_MAX),
  FromStreet: required('From Street', STREET_MAX),
  FromStreet2: optional('From Street 2', STREET_MAX),
  FromCity: required('From City', CITY_MAX),
  FromState: state('From State'),
  FromZip: zip('From ZIP'),
  FromCountry: optional('From Country', COUNTRY_MAX),
  FromPhone: phone('From Phone'),
  ToName: required('To Name', NAME_MAX),
  ToCompany: optional('To Company', COMPANY_MAX),
  ToStreet: required('To Street', STREET_MAX),
  ToStreet2: optional('To Street 2', STREET_MAX),
  ToCity: required('To City', CITY_MAX),
  ToState: state('To State'),
  ToZip: zip('To ZIP'),
  ToCountry: optional('To Country', COUNTRY_MAX),
  ToPhone: phone('To Phone'),
  /** The recipient's email for status mails (when the customer turned them on in Account Setting); optional. */
  ToEmail: recipientEmail,
  /** The declared value to insure, dollars (optional); see insuranceValue. */
  Insurance: insuranceValue,
  /**
   * Yes: the return label of the parcel the order describes: its From and To are the outbound parcel's, and the label
   * brings it back (from To to From), bought upstream as a return. No or empty: a label as usual.
   */
  Return: returnFlag,
  // Ship date and reference lines (issue 47): optional, so every caller before them is unchanged.
  ShipDate: shipDate,
  /** Printed on the label and sent upstream; the carrier's limit (referenceMaxFor) is a rule of the label type. */
  Reference: reference('Reference'),
  Reference2: reference('Reference 2'),
});
export type CreateOrderBody = z.input<typeof createOrderBody>;
export type CreateOrderInput = z.output<typeof createOrderBody>;

const COUNTRY_ALIASES: Record<string, 'United States' | 'Canada'> = {
  'united states': 'United States',
  'united states of america': 'United States',
  us: 'United States',
  usa: 'United States',
  canada: 'Canada',
  ca: 'Canada',
  can: 'Canada',
};

/** The country a name or code stands for ('USA', 'united states', 'CA'...), when it is one the shop ships within. */
export const countryNamed = (value: string): 'United States' | 'Canada' | undefined => COUNTRY_ALIASES[value.trim().toLowerCase()];

/** The US rules of one side of an address: a state of the US list (after regionIdFor) and a US ZIP. */
export function usAddressViolation(side: 'From' | 'To', state: string, zip: string): string | null {
  return usAddressIssues(side, state, zip)[0]?.message ?? null;
}

function usAddressIssues(side: 'From' | 'To', state: string | undefined, zip: string | undefined): OrderIssue[] {
  const issues: OrderIssue[] = [];
  if (state !== undefined && !US_STATE_CODES.includes(state)) issues.push({ field: `${side}State`, message: `${side} State must be a US state, DC or PR` });
  if (zip !== undefined && !US_ZIP.test(zip)) issues.push({ field: `${side}Zip`, message: `${side} ZIP must be a US ZIP code like 12345 or 12345-6789` });
  return issues;
}

/** One problem of an order: the createOrderBody field it is about (null for the whole order) and what is wrong. */
export type OrderIssue = { field: string | null; message: string };

/**
 * The rules that depend on the label type's uid (spec section 5): template for priority, country
 * and region list (Canada for UPS, United States otherwise), ZIP format of that country, phone
 * format for fedex_ground, 15 x 15 x 15 for uspsv9. Answers every broken rule, each with its field;
 * a field left out (one that did not pass its own check) is not judged.
 */
export function orderRuleViolations(order: Partial<CreateOrderInput>, uid: string): OrderIssue[] {
  const issues: OrderIssue[] = [];
  if (templateRequired(uid) && !order.design) issues.push({ field: 'design', message: TEMPLATE_REQUIRED });
  const ups = isUpsLabelType(uid);
  const country = countryFor(uid);
  for (const side of ['From', 'To'] as const) {
    const given = order[`${side}Country`];
    if (given && countryNamed(given) !== country)
      issues.push({ field: `${side}Country`, message: `${side} Country must be ${country} for ${ups ? 'UPS labels' : 'this label type'}` });
    const region = order[`${side}State`];
    const zipCode = order[`${side}Zip`];
    if (ups) {
      if (region !== undefined && !CANADA_REGION_CODES.includes(region))
        issues.push({ field: `${side}State`, message: `${side} State must be a Canadian province or territory` });
      if (zipCode !== undefined && !CANADIAN_POSTAL_CODE.test(zipCode))
        issues.push({ field: `${side}Zip`, message: `${side} ZIP must be a Canadian postal code like K1A 0B1` });
    } else issues.push(...usAddressIssues(side, region, zipCode));
    const phoneNumber = order[`${side}Phone`];
    if (uid === 'fedex_ground' && phoneNumber && normalizePhone(phoneNumber) === null) {
      issues.push({ field: `${side}Phone`, message: `${side} Phone must be a valid phone number` });
    }
  }
  const referenceMax = referenceMaxFor(uid);
  for (const [field, label] of [
    ['Reference', 'Reference'],
    ['Reference2', 'Reference 2'],
  ] as const) {
    if ((order[field]?.length ?? 0) > referenceMax)
      issues.push({ field, message: `${label} must be at most ${referenceMax} characters for ${carrierName(uid)} labels` });
  }
  if (uid === 'uspsv9') {
    const bad = (['Length', 'Width', 'Height'] as const).find((d) => order[d] !== undefined && order[d] !== USPS_V9_DIMENSION);
    if (bad) issues.push({ field: bad, message: USPS_V9_DIMENSIONS_MESSAGE });
  }
  return issues;
}

const carrierName = (uid: string) => (isUpsLabelType(uid) ? 'UPS' : uid.startsWith('fedex') ? 'FedEx' : 'USPS');

/** Why a state (a code) is not in the list of the label type's country, or null when it is. */
export function stateViolation(side: 'From' | 'To', region: string, uid: string): string | null {
  return orderRuleViolations({ [`${side}State`]: region }, uid).find((issue) => issue.field === `${side}State`)?.message ?? null;
}

/** The first broken rule of orderRuleViolations, or null. */
export function orderRuleViolation(order: CreateOrderInput, uid: string): string | null {
  return orderRuleViolations(order, uid)[0]?.message ?? null;
}

type OrderField = keyof typeof createOrderBody.shape;
const ORDER_FIELDS = Object.keys(createOrderBody.shape) as OrderField[];

/**
 * Every problem of an order body at once: each field by its own createOrderBody check, then the
 * label type's rules (orderRuleViolations, when the uid is known) over the fields that passed. The
 * parsed order when there is none.
 */
export function orderIssues(
  body: Record<string, unknown>,
  uid: string | undefined,
): { ok: true; order: CreateOrderInput } | { ok: false; issues: OrderIssue[] } {
  const issues: OrderIssue[] = [];
  const valid: Record<string, unknown> = {};
  for (const field of ORDER_FIELDS) {
    const result = createOrderBody.shape[field].safeParse(body[field]);
    if (result.success) valid[field] = result.data;
    else issues.push(...result.error.issues.map((issue) => ({ field, message: issue.message })));
  }
  // A field that failed its own check is not judged again by a rule.
  if (uid !== undefined)
    issues.push(...orderRuleViolations(valid as Partial<CreateOrderInput>, uid).filter((rule) => !issues.some((i) => i.field === rule.field)));
  return issues.length === 0 ? { ok: true, order: createOrderBody.parse(body) } : { ok: false, issues: sortedByField(issues) };
}

/** Issues in the order of the form's fields, so the first named is the first on the page. */
const sortedByField = (issues: OrderIssue[]) =>
  [...issues].sort(
    (a, b) => (a.field === null ? -1 : ORDER_FIELDS.indexOf(a.field as OrderField)) - (b.field === null ? -1 : ORDER_FIELDS.indexOf(b.field as OrderField)),
  );

/** The message of a 400 that names several problems: one problem's own message, or how many and the first few. */
export const orderIssuesMessage = (issues: { message: string }[]) =>
  issues.length === 1
    ? issues[0].message
    : `${issues.length} fields are not valid: ${issues
        .map((i) => i.message)
        .slice(0, 3)
        .join('; ')}${issues.length > 3 ? '; ...' : ''}`;

export const ORDER_LIST_MAX_LIMIT = 100;

const emptyAsUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);
const SORTS: Record<string, 'desc' | 'asc'> = { desc: 'desc', '-1': 'desc', newest: 'desc', asc: 'asc', '1': 'asc', oldest: 'asc' };
const STATUS_MESSAGE = `Status must be all or one of ${ORDER_STATUSES.join(', ')}`;

/** GET /order/read query: every parameter may be empty or missing. */
export const orderListQuery = z.object({
  search: z.preprocess((v) => v ?? '', z.string().trim().max(100, 'Search must be at most 100 characters')),
  /** 'all' (or empty) or one status. */
  status: z.preprocess((v) => String(emptyAsUndefined(v) ?? 'all').toLowerCase(), z.enum(['all', ...ORDER_STATUSES], { error: STATUS_MESSAGE })),
  /** By creation time: 'desc' (newest first, default) or 'asc'. */
  sort: z.preprocess((v) => SORTS[String(emptyAsUndefined(v) ?? 'desc').toLowerCase()] ?? v, z.enum(['desc', 'asc'], { error: 'Sort must be desc or asc' })),
  page: z.preprocess(
    emptyAsUndefined,
    z.coerce.number({ error: 'Page must be a number' }).int('Page must be a whole number').min(1, 'Page must be at least 1').default(1),
  ),
  /** Page size; values above 100 are capped at 100. */
  limit: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: 'Limit must be a number' })
      .int('Limit must be a whole number')
      .min(1, 'Limit must be at least 1')
      .default(DASHBOARD_PAGE_SIZE)
      .transform((n) => Math.min(n, ORDER_LIST_MAX_LIMIT)),
  ),
});
export type OrderListQuery = z.input<typeof orderListQuery>;

export const orderSchema = z.object({
  _id: z.string(),
  /** The same id, under the spec's name. */
  uuid: z.string(),
  /** Short order number shown to people (the first 8 characters of the id, upper case); searchable. */
  OrderId: z.string(),
  /** The owner's user id. */
  user: z.string(),
  labelType: z.object({ name: z.string(), uid: z.string() }),
  design: z.string().nullable(),
  fromName: z.string(),
  toName: z.string(),
  weight: z.number(),
  /** Dollars with two decimals. */
  price: z.number(),
  status: z.enum(ORDER_STATUSES),
  tracking: z.string().nullable(),
  /** Where the parcel is (TRACKING_STATUSES), once the carrier tracks it; else null. */
  trackingStatus: z.enum(TRACKING_STATUSES).nullable(),
  /** The recipient's public tracking page, a path on the shop (/t/<token>), once the label is completed; else null. */
  trackingPage: z.string().nullable(),
  /** The download path of the label PDF once completed, else null. */
  pdf: z.string().nullable(),
  /** Why a cancelled order failed, else null. */
  note: z.string().nullable(),
  createdAt: z.string(),
  /** The label's refund (void): null, requested, refunded or rejected; the status stays completed. */
  refundStatus: z.enum(REFUND_STATUSES).nullable(),
  /** Why a refund was rejected, else null. */
  refundNote: z.string().nullable(),
  /** The day the parcel ships (YYYY-MM-DD), null for orders made before ship dates. */
  shipDate: z.string().nullable(),
  /** The reference lines printed on the label ('' when none). */
  reference: z.string(),
  reference2: z.string(),
  /** The SCAN form the label is on, else null (a label on one is no longer refunded through the shop). */
  scanFormId: z.string().nullable(),
  /** A return label: the order it returns (its addresses swapped), else null. */
  returnOf: z.string().nullable(),
  /** The return label made for this order, else null. */
  returnId: z.string().nullable(),
  /** A return label: bought as one (the parcel comes back), made of an order (returnOf) or on its own (Return: yes). */
  isReturn: z.boolean(),
  /** The insurance bought with the label: the declared value and its price (dollars; part of `price`), else null. */
  insurance: z.object({ value: z.number(), price: z.number() }).nullable(),
  /**
   * The carrier pickup the label is on (booking, booked or cancelling), else null: a pickup that failed or was cancelled
   * lets its labels go, so they show none and may get another.
   */
  pickup: z
    .object({
      _id: z.string(),
      status: z.enum(PICKUP_STATUSES),
      /** The carrier's confirmation number, once booked. */
      confirmation: z.string().nullable(),
      minDatetime: z.string(),
      maxDatetime: z.string(),
    })
    .nullable(),
});
export type Order = z.infer<typeof orderSchema>;
export type OrderPickup = NonNullable<Order['pickup']>;

/** POST /order/refund: several of the user's own orders at once (Order History's multi-select). */
export const refundOrdersBody = z.object({
  ids: z.array(idText()).min(1, 'Select at least one order').max(REFUND_IDS_MAX, `At most ${REFUND_IDS_MAX} orders at once`),
});
export type RefundOrdersBody = z.infer<typeof refundOrdersBody>;
/** One order's answer: requested (ok) or refused with the reason; refundStatus as the order has it now. */
export const refundResultSchema = z.object({
  orderId: z.string(),
  ok: z.boolean(),
  message: z.string(),
  refundStatus: z.enum(REFUND_STATUSES).nullable(),
});
export type RefundResult = z.infer<typeof refundResultSchema>;
export const refundResultsResponse = z.object({ results: z.array(refundResultSchema) });
/** What the automatic voids of unused labels credited the user this month (the shop's month, from `since`). */
export const autoVoidSavedResponse = z.object({ saved: z.number(), count: z.number().int(), since: z.string() });
export type AutoVoidSaved = z.infer<typeof autoVoidSavedResponse>;
export type RefundResultsResponse = z.infer<typeof refundResultsResponse>;

export const orderListResponse = z.object({ orders: z.array(orderSchema), totalPages: z.number(), total: z.number() });
export type OrderListResponse = z.infer<typeof orderListResponse>;

/** One side of an order (sender or receiver), every field as stored ('' when not given). */
export const orderPartySchema = z.object({
  name: z.string(),
  company: z.string(),
  street: z.string(),
  street2: z.string(),
  city: z.string(),
  state: z.string(),
  zip: z.string(),
  country: z.string(),
  phone: z.string(),
});
/** The whole order: both addresses, dimensions and the bulk order (and its row) it came from. */
export const orderDetailSchema = orderSchema.extend({
  from: orderPartySchema,
  to: orderPartySchema,
  length: z.number().nullable(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  bulkOrderId: z.string().nullable(),
  /** The row of the bulk order's CSV file (1 is the first row after the header), else null. */
  bulkRow: z.number().nullable(),
  updatedAt: z.string(),
  /** The names and address lines the label prints otherwise than typed (CSV column names: ToName...), with what it prints. */
  printedAs: z.record(z.string(), z.string()),
  /** The recipient's email for status mails, else null. */
  toEmail: z.string().nullable(),
  /** The public tracking page as a link on the shop's address (PUBLIC_URL), once the label is completed; else null. */
  trackingUrl: z.string().nullable(),
});
/** The ledger rows an order caused (its charge, its refund), oldest first. */
export const orderLedgerSchema = z.array(statementEntrySchema.omit({ balance: true }));
/** GET /order/details/:id: one of the user's own orders with its ledger rows; another user's order is not found. */
export const orderDetailResponse = z.object({ order: orderDetailSchema, ledger: orderLedgerSchema });
export type OrderDetail = z.infer<typeof orderDetailResponse>;
