import { z } from 'zod';
import { SCAN_FORM_IDS_MAX, SCAN_FORM_STATUSES } from './scan-forms-values.ts';
import { scanFormFromSchema } from './scan-forms.ts';
import { pickupBuyBody, pickupRatesBody, pickupSchema } from './pickups.ts';
import { labelFormatSchema } from './label-format.ts';
import { idText } from './common.ts';
import { BULK_MAX_ROWS, bulkService } from './bulk.ts';
import { labelTypeRef, labelTypeSchema, weightSchema } from './catalog.ts';
import { TEMPLATE_VALUES } from './catalog-values.ts';
import { createOrderBody, orderListQuery } from './orders.ts';
import { createOrderRequest, ratesBody, ratesResponse } from './rates.ts';
import { STRATEGIES } from './rates-values.ts';
import { packageBody, packageSchema } from './packages.ts';
import { PACKAGE_CREATED, PACKAGE_DELETED } from './packages-values.ts';
import {
  CITY_MAX,
  COMPANY_MAX,
  COUNTRY_MAX,
  NAME_MAX,
  REFERENCE_MAX,
  ORDER_STATUSES,
  PHONE_MAX,
  TO_EMAIL_MAX,
  REFUND_IDS_MAX,
  REFUND_STATUSES,
  STATE_MAX,
  STREET_MAX,
  TRACKING_STATUSES,
  ZIP_MAX,
} from './orders-values.ts';

/**
 * The reseller HTTP API: the user's own API key in the x-api-key header, on
 * {PUBLIC_URL or origin}/api/reseller/v1. Every answer has type 'success' or 'error'. The OpenAPI
 * document (served at RESELLER_OPENAPI_PATH) is generated from these schemas.
 */
export const RESELLER_API_PREFIX = '/api/reseller/v1';
export const RESELLER_OPENAPI_PATH = `${RESELLER_API_PREFIX}/openapi.json`;
export const API_KEY_HEADER = 'x-api-key';
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const RESELLER_DEFAULT_RATE_LIMIT_PER_MINUTE = 120;
/** How long an idempotency key keeps its first answer. */
export const IDEMPOTENCY_KEY_TTL_HOURS = 24;
/** The spec's advice for bulk-job-status polling. */
export const BULK_POLL_ADVICE = 'Poll every 15 to 30 seconds.';

/** The sections of the docs page, one OpenAPI tag each, in this order. */
export const RESELLER_TAGS = {
  authentication: 'Authentication',
  labelTypes: 'Label types',
  orders: 'Orders',
  bulkOrders: 'Bulk orders',
  packages: 'Saved packages',
  scanForms: 'SCAN forms',
  pickups: 'Pickups',
  queue: 'Queue',
  errors: 'Errors, idempotency and limits',
} as const;

export const LABEL_CREATED = 'Label created successfully';
export const BULK_ORDER_QUEUED = 'Bulk order created and queued';
export const API_KEY_MISSING = 'Send your API key in the x-api-key header';
export const API_KEY_INVALID = 'Invalid API key';
export const IDEMPOTENCY_KEY_INVALID = 'Idempotency-Key must be 1 to 255 visible ASCII characters';
export const IDEMPOTENCY_KEY_REUSED = 'This Idempotency-Key was already used with a different request';
export const IDEMPOTENCY_KEY_IN_PROGRESS = 'A request with this Idempotency-Key is still running; retry when it has finished';
export const BULK_JOB_NOT_FOUND = 'Bulk job not found';
export const RATE_LIMITED = (seconds: number) => `Too many requests, retry in ${seconds} s`;

const success = z.literal('success').describe("Always 'success' on a 2xx answer");

// ---- errors ---------------------------------------------------------------------------------

/** One problem of a request: a field (`FromZip`), or a row of a bulk order (1 = the first object of `data`) and its field. */
export const resellerErrorItem = z
  .object({
    row: z.number().int().optional().describe('The object of `data` the problem is in (bulk orders); 1 is the first'),
    field: z.string().optional().describe('The field the problem is about'),
    message: z.string(),
  })
  .meta({ id: 'ResellerErrorItem' });

export const resellerError = z
  .object({
    type: z.literal('error').describe("Always 'error'"),
    message: z.string().describe('What went wrong, for people'),
    errors: z.array(resellerErrorItem).optional().describe('Every bad field (and row) when the request did not validate'),
  })
  .meta({ id: 'ResellerError' });
export type ResellerError = z.infer<typeof resellerError>;

// ---- label types ----------------------------------------------------------------------------

export const resellerLabelType = labelTypeSchema.omit({ status: true }).meta({
  id: 'ResellerLabelType',
  description: 'An enabled label type. `_id` or `uid` names it in labelType. A weight w costs the price of the first tier with fromWeight <= w <= toWeight.',
});

export const labelTypesAnswer = z.object({ type: success, message: z.string(), labelTypes: z.array(resellerLabelType) }).meta({
  examples: [
    {
      type: 'success',
      message: 'Label types',
      labelTypes: [
        {
          _id: '0b7c8f5e-8d6c-4c1f-9e55-3e4b1f0c2a11',
          name: 'USPS Priority',
          uid: 'priority',
          maxWeight: 70,
          weightUnit: 'lb',
          prices: [{ price: 6.75, fromWeight: 0, toWeight: 70 }],
        },
      ],
    },
  ],
});

// ---- orders ---------------------------------------------------------------------------------

export const resellerOrder = z
  .object({
    id: z.string().describe('The order id (order_id in the download call)'),
    orderId: z.string().describe('Short order number shown to people'),
    status: z.enum(ORDER_STATUSES).describe('pending or processing while the label is made, then completed or cancelled (refunded)'),
    labelType: z.object({ uid: z.string(), name: z.string() }),
    design: z.string().nullable().describe('Template of priority labels'),
    weight: z.number(),
    price: z.number().describe('Dollars charged'),
    tracking: z.string().nullable(),
    trackingStatus: z
      .enum(TRACKING_STATUSES)
      .nullable()
      .describe('Where the parcel is as the carrier tracks it (null until the first scan); each change is told by the order.tracking webhook'),
    trackingUrl: z
      .string()
      .nullable()
      .describe(
        "The recipient's public tracking page once the label is completed (no sign-in; carrier, status history and the two cities only), else null. Hand it to your customer",
      ),
    fromName: z.string(),
    toName: z.string(),
    note: z.string().nullable().describe('Why a cancelled order failed'),
    createdAt: z.string().describe('ISO 8601'),
    downloadUrl: z
      .string()
      .nullable()
      .describe('The label PDF once completed (GET with your x-api-key), else null; null again once a refund is requested or made'),
    refundStatus: z
      .enum(REFUND_STATUSES)
      .nullable()
      .describe(
        "The label's refund (void), beside `status` (which stays completed): null (none asked), `requested` (asked; the carrier decides), `refunded` (the price is back on your balance) or `rejected` (see refundNote)",
      ),
    refundNote: z.string().nullable().describe('Why a refund was rejected, else null'),
    shipDate: z.string().nullable().describe('The day the parcel ships (YYYY-MM-DD); null for orders made before ship dates'),
    reference: z.string().describe("The label's first reference line ('' when none)"),
    reference2: z.string().describe("The label's second reference line ('' when none)"),
    returnOf: z.string().nullable().describe('A return label: the id of the order it returns (its addresses swapped), else null'),
    returnId: z.string().nullable().describe('The id of the return label made for this order (return-order), else null'),
    isReturn: z.boolean().describe('A return label (bought as one): made of an order (`returnOf`) or on its own (create-order `Return`)'),
    insurance: z
      .object({ value: z.number(), price: z.number() })
      .nullable()
      .describe('The insurance bought with the label (create-order `Insurance`): the declared value and its price in dollars, a part of `price`; else null'),
    printedAs: z
      .record(z.string(), z.string())
      .optional()
      .describe(
        'In the create-order answer: the names and address lines the label prints otherwise than sent, by field (ToName...), with what it prints. Labels print Windows-1252; other scripts are transliterated to Latin, emoji dropped. Empty when all print as sent.',
      ),
  })
  .meta({ id: 'ResellerOrder' });
export type ResellerOrder = z.infer<typeof resellerOrder>;

const exampleOrder: ResellerOrder = {
  id: '5f0d2c4e-6a1b-4b8e-9c3d-2e7f8a9b0c1d',
  orderId: '5F0D2C4E',
  status: 'completed',
  labelType: { uid: 'priority', name: 'USPS Priority' },
  design: 'normal',
  weight: 2,
  price: 6.75,
  tracking: '9405500000000000000001',
  trackingStatus: null,
  trackingUrl: 'https://shop.example.com/t/Qm9vZ2xlX3RyYWNraW5n',
  fromName: 'Jane Sender',
  toName: 'John Receiver',
  note: null,
  createdAt: '2026-11-23T10:00:00.000Z',
  downloadUrl: 'https://shop.example.com/api/reseller/v1/order/download/5f0d2c4e-6a1b-4b8e-9c3d-2e7f8a9b0c1d',
  refundStatus: null,
  refundNote: null,
  returnOf: null,
  returnId: null,
  isReturn: false,
  insurance: null,
  shipDate: '2026-11-24',
  reference: 'INV-1042',
  reference2: '',
};

// ---- refunds (voids) ------------------------------------------------------------------------

export const resellerRefund = z
  .object({
    orderId: z.string().describe('The order id'),
    ok: z.boolean().describe('true when the refund was asked (or already decided refunded); false with the reason in message'),
    message: z.string(),
    refundStatus: z.enum(REFUND_STATUSES).nullable().describe('The refund state the order has now'),
  })
  .meta({ id: 'ResellerRefund' });
export const resellerRefundAnswer = z.object({ type: success, message: z.string(), refund: resellerRefund }).meta({
  examples: [
    { type: 'success', message: 'Refund requested', refund: { orderId: exampleOrder.id, ok: true, message: 'Refund requested', refundStatus: 'requested' } },
  ],
});
export const resellerRefundsBody = z
  .object({
    order_ids: z
      .array(idText())
      .min(1, 'order_ids must name at least one order')
      .max(REFUND_IDS_MAX, `At most ${REFUND_IDS_MAX} orders at once`)
      .describe(`Up to ${REFUND_IDS_MAX} of your order ids`),
  })
  .meta({ id: 'ResellerRefundOrdersInput', examples: [{ order_ids: [exampleOrder.id] }] });
export const resellerRefundsAnswer = z
  .object({ type: success, message: z.string(), results: z.array(resellerRefund).describe('One per order id, in order') })
  .meta({
    examples: [
      {
        type: 'success',
        message: '1 of 2 refunds requested',
        results: [
          { orderId: exampleOrder.id, ok: true, message: 'Refund requested', refundStatus: 'requested' },
          {
            orderId: '9a8b7c6d-0000-4000-8000-000000000000',
            ok: false,
            message: 'The UPS label was already scanned by the carrier and can no longer be refunded',
            refundStatus: null,
          },
        ],
      },
    ],
  });

const emptyAsUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

/**
 * POST /order/create-order: the web's single order (same fields and rules, ShipDate and the reference lines with
 * them) plus an optional Date, the ship date's older name, accepted and not used.
 * As application/x-www-form-urlencoded every value is text; numbers are read from it.
 */
export const resellerCreateOrderBody = createOrderRequest
  .extend({
    labelType: labelTypeRef.optional().describe('The label type: its uid (e.g. priority) or its _id. Leave it out to buy by `quoteId` or `strategy`'),
    quoteId: createOrderRequest.shape.quoteId.describe(
      'A quote from /order/rates: the order is bought at exactly its price for 15 minutes (then 409), as `labelType` or as `strategy` chooses among its rates. Send the same weight, dimensions, ZIP codes and ship date',
    ),
    strategy: createOrderRequest.shape.strategy.describe(
      `Instead of a labelType: ${STRATEGIES.join(' or ')}, among the types that can take the package now (ties: fewer days, then the uid). The answer names the type chosen`,
    ),
    WeightUnit: createOrderRequest.shape.WeightUnit.describe('lb (default) or oz: the unit of Weight with a quoteId or a strategy'),
    design: z
      .preprocess(emptyAsUndefined, z.enum(TEMPLATE_VALUES, { error: 'Template must be Pitney Bowes, Normal or EVS' }).optional())
      .describe('Template, required for priority: pitney, normal or evs'),
    Date: z
      .preprocess(emptyAsUndefined, z.iso.date({ error: 'Date must be a date like 2026-11-23' }).optional())
      .describe('Accepted for compatibility and not used: send ShipDate to date the label'),
  })
  .meta({
    id: 'ResellerCreateOrder',
    description:
      "Weights are pounds (ounces for ground_oz; with a quoteId or strategy, in WeightUnit). Length, Width and Height are inches (always 15 for uspsv9). Country is fixed by the label type (Canada for UPS, United States otherwise). Phone is kept for fedex_ground only. ShipDate (YYYY-MM-DD, a day of the shop's time zone) is today (the default) up to 7 days ahead; the label is dated with it. Reference and Reference2 are printed on the label, at most 25 characters each for the USPS types, 30 for fedex_ground and 35 for UPS.",
    examples: [
      {
        labelType: 'priority',
        design: 'normal',
        Weight: 2,
        FromName: 'Jane Sender',
        FromStreet: '123 Main Street',
        FromCity: 'New York',
        FromState: 'NY',
        FromZip: '10001',
        ToName: 'John Receiver',
        ToStreet: '456 Oak Avenue',
        ToCity: 'Beverly Hills',
        ToState: 'CA',
        ToZip: '90210',
        Reference: 'INV-1042',
      },
      {
        strategy: 'cheapest',
        Weight: 2,
        FromName: 'Jane Sender',
        FromStreet: '123 Main Street',
        FromCity: 'New York',
        FromState: 'NY',
        FromZip: '10001',
        ToName: 'John Receiver',
        ToStreet: '456 Oak Avenue',
        ToCity: 'Beverly Hills',
        ToState: 'CA',
        ToZip: '90210',
      },
    ],
  });
export type ResellerCreateOrderBody = z.input<typeof resellerCreateOrderBody>;

export const createOrderAnswer = z
  .object({ type: success, message: z.string(), order: resellerOrder })
  .meta({ examples: [{ type: 'success', message: LABEL_CREATED, order: exampleOrder }] });

export const resellerOrderListQuery = orderListQuery.extend({
  page: orderListQuery.shape.page.describe('Page number, from 1'),
  limit: orderListQuery.shape.limit.describe('Orders a page, 1 to 100 (default 10)'),
  status: orderListQuery.shape.status.describe('all (default), pending, processing, completed or cancelled'),
  search: orderListQuery.shape.search.describe('Part of a name or tracking number, or the start of the order id'),
  sort: orderListQuery.shape.sort.describe('desc (newest first, default) or asc'),
  starting_after: z
    .preprocess((v) => (v === '' || v === null ? undefined : v), z.string().trim().max(64, 'starting_after must be an order id').optional())
    .describe(
      'Cursor paging: the id of the last order of the page you have; the answer holds the orders after it (page is then not used). An order created between two calls neither repeats nor hides one.',
    ),
});

export const readOrdersAnswer = z
  .object({
    type: success,
    message: z.string(),
    orders: z.array(resellerOrder),
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int().describe('Orders matching the filter'),
    totalPages: z.number().int(),
    hasMore: z.boolean().describe('Whether orders follow this page (ask again with starting_after set to the last id)'),
  })
  .meta({ examples: [{ type: 'success', message: 'Orders', orders: [exampleOrder], page: 1, limit: 10, total: 1, totalPages: 1, hasMore: false }] });

export const STARTING_AFTER_NOT_FOUND = 'starting_after names no order of yours';

// ---- account --------------------------------------------------------------------------------

export const balanceAnswer = z
  .object({ type: success, message: z.string(), balance: z.number().describe('Your balance in dollars') })
  .meta({ examples: [{ type: 'success', message: 'Balance', balance: 125.5 }] });

/** POST /order/price: what a label of this type and weight costs now. */
export const resellerPriceBody = z
  .object({
    labelType: labelTypeRef.describe('The label type: its uid (e.g. priority) or its _id'),
    weight: weightSchema.describe('Pounds (ounces for ground_oz)'),
  })
  .meta({ id: 'ResellerPriceInput', examples: [{ labelType: 'priority', weight: 2 }] });

export const priceAnswer = z
  .object({
    type: success,
    message: z.string(),
    price: z.number().describe('Dollars'),
    labelType: z.object({ uid: z.string(), name: z.string() }),
    weight: z.number(),
  })
  .meta({ examples: [{ type: 'success', message: 'Price', price: 6.75, labelType: { uid: 'priority', name: 'USPS Priority' }, weight: 2 }] });

export const orderIdParams = z.object({ order_id: idText().describe('The order id') });
/** A download's file format; without it, the format chosen in Account Setting (4x6 PDF unless changed). */
export const resellerLabelFormatQuery = z.object({
  format: labelFormatSchema
    .optional()
    .describe(
      'pdf (one 4x6 inch page a label), pdf-letter (US Letter pages of two labels with a cut line) or zpl (ZPL II for 4x6 thermal printers at 203 dpi). Default: the format chosen in Account Setting.',
    ),
});

// ---- bulk orders ----------------------------------------------------------------------------

/** One object of a bulk order's data: a single order's fields without labelType and design. */
export const resellerBulkRow = createOrderBody
  .omit({ labelType: true, design: true })
  .extend({
    Service: bulkService.describe("This row's own label type (a uid), or cheapest or fastest (Weight in pounds); empty: the order's labelType"),
  })
  .meta({ id: 'ResellerBulkRow', description: 'The fields of one label, checked by the same rules as a single order of the chosen type.' });

/** The longest text each field of a bulk row may hold, in characters (numbers: 20 digits is more than any weight or dimension). */
const BULK_ROW_FIELD_MAX: Record<keyof z.input<typeof resellerBulkRow>, number> = {
  FromName: NAME_MAX,
  FromCompany: COMPANY_MAX,
  FromStreet: STREET_MAX,
  FromStreet2: STREET_MAX,
  FromCity: CITY_MAX,
  FromState: STATE_MAX,
  FromZip: ZIP_MAX,
  FromCountry: COUNTRY_MAX,
  FromPhone: PHONE_MAX,
  ToName: NAME_MAX,
  ToCompany: COMPANY_MAX,
  ToStreet: STREET_MAX,
  ToStreet2: STREET_MAX,
  ToCity: CITY_MAX,
  ToState: STATE_MAX,
  ToZip: ZIP_MAX,
  ToCountry: COUNTRY_MAX,
  ToPhone: PHONE_MAX,
  ToEmail: TO_EMAIL_MAX,
  Insurance: 20,
  Return: 5,
  Weight: 20,
  Length: 20,
  Width: 20,
  Height: 20,
  ShipDate: 10,
  Reference: REFERENCE_MAX,
  Reference2: REFERENCE_MAX,
  Service: 64,
};
/**
 * The largest create-bulk-order body worth reading: BULK_MAX_ROWS rows with every field at its longest, two UTF-8 bytes a
 * character (accented letters), and the names, quotes, colons, commas and a little white space around each; plus 4 KiB for
 * labelType and design. About 12 MiB; a real file of 5,000 rows is nearer 1.5 MiB.
 */
export const BULK_BODY_MAX_BYTES =
  BULK_MAX_ROWS * Object.entries(BULK_ROW_FIELD_MAX).reduce((bytes, [name, max]) => bytes + name.length + 2 * max + 8, 8) + 4096;

export const createBulkOrderBody = z
  .object({
    labelType: labelTypeRef.describe('The label type of every row: its uid or _id'),
    design: z
      .preprocess(emptyAsUndefined, z.enum(TEMPLATE_VALUES, { error: 'Template must be Pitney Bowes, Normal or EVS' }).optional())
      .describe('Template, required for priority: pitney, normal or evs'),
    data: z
      .array(resellerBulkRow, { error: 'data must be a list of order objects' })
      .min(1, 'data must hold at least one order')
      .max(BULK_MAX_ROWS, `data may hold at most ${BULK_MAX_ROWS.toLocaleString('en-US')} orders`)
      .describe(`The labels, 1 to ${BULK_MAX_ROWS.toLocaleString('en-US')}`),
  })
  .meta({
    id: 'ResellerCreateBulkOrder',
    examples: [
      {
        labelType: 'uspsv9',
        data: [
          {
            FromName: 'Jane Sender',
            FromStreet: '123 Main Street',
            FromCity: 'New York',
            FromState: 'NY',
            FromZip: '10001',
            ToName: 'John Receiver',
            ToStreet: '456 Oak Avenue',
            ToCity: 'Beverly Hills',
            ToState: 'CA',
            ToZip: '90210',
            Weight: 2,
            Reference: 'A-1',
          },
        ],
      },
    ],
  });
export type CreateBulkOrderBody = z.input<typeof createBulkOrderBody>;

export const createBulkOrderAnswer = z
  .object({
    type: success,
    message: z.string(),
    job_id: z.string().describe('Poll GET /order/bulk-job-status/{job_id}'),
    bulkorder_id: z.string().describe('Download with GET /order/download-bulk-order/{bulkorder_id} once completed'),
    total: z.number().describe('Dollars charged for all rows (a row whose label fails is refunded)'),
    totalOrders: z.number().int(),
  })
  .meta({
    examples: [
      {
        type: 'success',
        message: BULK_ORDER_QUEUED,
        job_id: 'bulk-7a4e2b10-3c5d-4e6f-8a9b-0c1d2e3f4a5b',
        bulkorder_id: '7a4e2b10-3c5d-4e6f-8a9b-0c1d2e3f4a5b',
        total: 675,
        totalOrders: 100,
      },
    ],
  });

export const BULK_JOB_STATES = ['waiting', 'active', 'completed', 'failed'] as const;
/** Spec stages: 0-80% labels, 85% CSV report, 90% merged PDF, 95% ZIP, 98% database update, 100% done. */
export const BULK_JOB_STAGES = ['queued', 'labels', 'report', 'pdf', 'zip', 'database', 'done'] as const;
export type BulkJobStage = (typeof BULK_JOB_STAGES)[number];
/** The stage a progress value is in (the stage being worked on, or done). */
export const bulkStageOf = (state: string, progress: number): BulkJobStage =>
  progress >= 100 || state === 'completed'
    ? 'done'
    : state === 'waiting' && progress === 0
      ? 'queued'
      : progress < 80
        ? 'labels'
        : progress < 85
          ? 'report'
          : progress < 90
            ? 'pdf'
            : progress < 95
              ? 'zip'
              : 'database';

export const jobIdParams = z.object({ job_id: idText(80).describe('The job_id create-bulk-order answered') });
export const bulkOrderIdParams = z.object({ bulkorder_id: idText().describe('The bulkorder_id create-bulk-order answered') });

export const bulkJobStatusAnswer = z
  .object({
    type: success,
    message: z.string(),
    job_id: z.string(),
    bulkorder_id: z.string(),
    state: z.enum(BULK_JOB_STATES).describe('waiting (queued or waiting for a retry), active, completed or failed'),
    progress: z.number().int().min(0).max(100).describe('Percent: 0-80 labels, 85 CSV report, 90 merged PDF, 95 ZIP, 98 database update, 100 done'),
    stage: z.enum(BULK_JOB_STAGES).describe('What the job is doing: queued, labels, report, pdf, zip, database or done'),
    totalOrders: z.number().int(),
    made: z.number().int().describe('Labels made so far'),
    failed: z.number().int().describe('Rows whose label failed (each refunded)'),
    downloadUrl: z.string().nullable().describe('The ZIP (every label plus label.csv) once completed, else null'),
    createdAt: z.string(),
    completedAt: z.string().nullable(),
  })
  .meta({
    id: 'ResellerBulkJobStatus',
    examples: [
      {
        type: 'success',
        message: 'Bulk job status',
        job_id: 'bulk-7a4e2b10-3c5d-4e6f-8a9b-0c1d2e3f4a5b',
        bulkorder_id: '7a4e2b10-3c5d-4e6f-8a9b-0c1d2e3f4a5b',
        state: 'active',
        progress: 42,
        stage: 'labels',
        totalOrders: 100,
        made: 52,
        failed: 0,
        downloadUrl: null,
        createdAt: '2026-11-23T10:00:00.000Z',
        completedAt: null,
      },
    ],
  });
export type BulkJobStatusAnswer = z.infer<typeof bulkJobStatusAnswer>;

export const queueStatsAnswer = z
  .object({
    type: success,
    message: z.string(),
    waiting: z.number().int(),
    active: z.number().int(),
    completed: z.number().int(),
    failed: z.number().int(),
    delayed: z.number().int().describe('Jobs waiting for a retry'),
    total: z.number().int(),
  })
  .meta({ examples: [{ type: 'success', message: 'Queue stats', waiting: 2, active: 1, completed: 120, failed: 0, delayed: 0, total: 123 }] });

// ---- webhooks (Account Setting, signed-in user) -----------------------------------------------

export const WEBHOOK_EVENTS = [
  'order.completed',
  'order.cancelled',
  'order.tracking',
  'order.refunded',
  'order.refund_rejected',
  'bulk.completed',
  'scan_form.created',
  'pickup.booked',
  'pickup.cancelled',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
export const WEBHOOK_SIGNATURE_HEADER = 'x-portal-signature';
export const WEBHOOK_EVENT_HEADER = 'x-portal-event';
export const WEBHOOK_DELIVERY_HEADER = 'x-portal-delivery';
/** Tries of one delivery (the first and 7 retries, about a day in all with the default backoff). */
export const WEBHOOK_MAX_ATTEMPTS = 8;
export const WEBHOOK_RECENT_DELIVERIES = 20;
export const WEBHOOK_URL_INVALID = 'The webhook URL must be an https:// URL (or http:// to localhost)';
export const WEBHOOK_URL_PRIVATE = 'The webhook URL must not point to a private or local network address';
export const WEBHOOK_URL_UNRESOLVED = 'The webhook URL host name does not resolve';
export const WEBHOOK_SAVED = 'Webhook saved';
export const WEBHOOK_REMOVED = 'Webhook removed';
export const WEBHOOK_SECRET_ROTATED = 'New webhook signing secret created; it is shown only this once';

/** PUT /api/v1/account/webhook: the URL, or '' / null to remove it. */
export const webhookSettingsBody = z.object({
  url: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? null : v),
    z.string().trim().max(2000, 'The webhook URL must be at most 2,000 characters').nullable(),
  ),
});
export type WebhookSettingsBody = z.input<typeof webhookSettingsBody>;

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'failed'] as const;
export const webhookDeliverySchema = z.object({
  _id: z.string(),
  event: z.enum(WEBHOOK_EVENTS),
  eventId: z.string(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  lastAttemptAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

/** GET and PUT /api/v1/account/webhook. `secret` is present only in the answer that created it. */
export const webhookSettingsResponse = z.object({
  message: z.string(),
  url: z.string().nullable(),
  hasSecret: z.boolean(),
  secret: z.string().optional(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  deliveries: z.array(webhookDeliverySchema),
});
export type WebhookSettingsResponse = z.infer<typeof webhookSettingsResponse>;

/** POST /api/v1/account/webhook/secret: the new secret, shown once. */
export const webhookSecretResponse = z.object({ message: z.string(), secret: z.string() });

/** The bulk order of a bulk.completed event. */
export const resellerBulkSummary = z
  .object({
    id: z.string(),
    job_id: z.string().nullable(),
    labelType: z.object({ uid: z.string(), name: z.string() }),
    totalOrders: z.number().int(),
    made: z.number().int(),
    failed: z.number().int(),
    total: z.number().describe('Dollars charged, less the refunds of failed rows'),
    downloadUrl: z.string().nullable(),
    completedAt: z.string().nullable(),
  })
  .meta({ id: 'ResellerBulkSummary' });

/** A SCAN form as the reseller API shows it. */
export const resellerScanForm = z
  .object({
    id: z.string(),
    name: z.string().describe('SF- and the first 8 characters of the id, as the form prints it'),
    status: z.enum(SCAN_FORM_STATUSES).describe('creating (asked of the carrier), created (download it) or failed (see message)'),
    carrier: z.string(),
    ship_date: z.string().describe('YYYY-MM-DD'),
    from: scanFormFromSchema,
    label_count: z.number().int(),
    order_ids: z.array(z.string()).describe("The orders on the form (a failed form's labels are free again: empty)"),
    tracking_codes: z.array(z.string()),
    bulk_order_id: z.string().nullable(),
    message: z.string().nullable().describe("Why it failed, in the carrier's words"),
    pdf_url: z.string().nullable().describe('The form PDF to print and hand over, once created'),
    created_at: z.string(),
  })
  .meta({ id: 'ResellerScanForm' });
export type ResellerScanForm = z.infer<typeof resellerScanForm>;

/** A carrier pickup as the reseller API shows it (the web's Pickup, fees in dollars). */
export const resellerPickup = pickupSchema.meta({
  id: 'ResellerPickup',
  examples: [
    {
      _id: '3c2b1a09-8f7e-4d6c-b5a4-938271605f4e',
      status: 'booked',
      carrier: 'UPS',
      from: { name: 'Jane Sender', company: '', street: '123 Main Street', street2: '', city: 'New York', state: 'NY', zip: '10001', country: 'United States' },
      minDatetime: '2026-12-02T14:00:00.000Z',
      maxDatetime: '2026-12-02T18:00:00.000Z',
      instructions: 'Back door',
      labelCount: 2,
      rates: [{ service: 'Future-Day Pickup', fee: 6.5 }],
      service: 'Future-Day Pickup',
      fee: 6.5,
      confirmation: 'WTC00000001',
      message: null,
      createdAt: '2026-12-01T21:04:11.000Z',
    },
  ],
});

/** The JSON body of a webhook POST. */
export const webhookEventSchema = z
  .object({
    id: z.string().describe('Unique per event: deduplicate on it (a delivery may arrive more than once)'),
    type: z.enum(WEBHOOK_EVENTS),
    created: z.number().int().describe('Unix seconds'),
    data: z.object({
      order: resellerOrder.optional(),
      bulkOrder: resellerBulkSummary.optional(),
      scanForm: resellerScanForm.optional(),
      pickup: resellerPickup.optional(),
    }),
  })
  .meta({ id: 'ResellerWebhookEvent' });
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

/** GET and PUT /account/webhook of the reseller API: the URL events are posted to (null: none). The signing secret is made and shown on Account Setting. */
export const resellerWebhookBody = webhookSettingsBody
  .extend({ url: webhookSettingsBody.shape.url.describe('An https:// URL (http:// to localhost), or null to stop the webhook') })
  .meta({ id: 'ResellerWebhookInput', examples: [{ url: 'https://example.com/label-events' }] });
export const resellerWebhookAnswer = z
  .object({
    type: success,
    message: z.string(),
    url: z.string().nullable(),
    hasSecret: z.boolean().describe('Whether a signing secret exists (rotate it on Account Setting)'),
    secret: z.string().optional().describe('The signing secret, only in the answer that created it (the first URL set): keep it, it is not shown again'),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
  })
  .meta({
    examples: [
      {
        type: 'success',
        message: WEBHOOK_SAVED,
        url: 'https://example.com/label-events',
        hasSecret: true,
        events: ['order.completed', 'order.cancelled', 'order.tracking', 'bulk.completed'],
      },
    ],
  });

export const resellerRatesBody = ratesBody.meta({
  id: 'ResellerRatesInput',
  description:
    'A package: Weight (in WeightUnit, pounds by default), optional Length, Width and Height (inches), the two ZIP codes and an optional ShipDate. Send the whole addresses as create-order takes them to have the order that uses the quote bought on the quoted upstream shipment itself.',
  examples: [{ Weight: 2, Length: 10, Width: 8, Height: 4, FromZip: '10001', ToZip: '90210' }],
});

export const ratesAnswer = ratesResponse.extend({ type: success, message: z.string() }).meta({
  examples: [
    {
      type: 'success',
      message: 'Rates',
      quoteId: '6f1c2b1e-8d7a-4c55-9a43-0e5b7f1d2c3a',
      expiresAt: '2026-11-29T12:15:00.000Z',
      shipDate: '2026-11-29',
      sandbox: false,
      cheapest: 'priority',
      fastest: 'priority',
      rates: [
        {
          labelType: { uid: 'priority', name: 'USPS Priority Mail' },
          carrier: 'USPS',
          service: 'Priority',
          available: true,
          price: 6.75,
          days: 2,
          deliveryDate: '2026-12-01',
          reason: null,
          message: null,
        },
        {
          labelType: { uid: 'ups_standard', name: 'UPS Standard (Canada)' },
          carrier: 'UPS',
          service: 'UPSStandard',
          available: false,
          price: null,
          days: null,
          deliveryDate: null,
          reason: 'route',
          message: 'UPS Standard (Canada) ships only inside Canada',
        },
      ],
    },
  ],
});
// ---- saved packages -------------------------------------------------------------------------

/** GET, POST /packages and PUT, DELETE /packages/{package_id}: the same saved packages as the web's Packages page. */
export const resellerPackage = packageSchema.meta({
  id: 'ResellerPackage',
  description: 'A saved package: its weight in lb or oz, and its length, width and height in inches (all three, or null when it has none).',
});
const examplePackage = { _id: '6d1f0a52-3c9e-4b7a-8f21-0e5d4c3b2a19', name: 'Small box', weight: 2.5, weightUnit: 'lb', length: 10, width: 8, height: 4 };
export const resellerPackageBody = packageBody.meta({
  id: 'ResellerSavePackage',
  description:
    'name: 1 to 40 characters, unique among your packages without regard to case. weight: above 0, at most 150 lb or 2400 oz. weightUnit: lb (the default) or oz. length, width, height: inches, each above 0 and at most 200; all three or none.',
  examples: [{ name: 'Small box', weight: 2.5, weightUnit: 'lb', length: 10, width: 8, height: 4 }],
});
export const packageIdParams = z.object({ package_id: idText().describe('The package id (`_id`)') });
export const resellerPackagesAnswer = z
  .object({ type: success, message: z.string(), packages: z.array(resellerPackage) })
  .meta({ examples: [{ type: 'success', message: 'Packages', packages: [examplePackage] }] });
export const resellerPackageAnswer = z
  .object({ type: success, message: z.string(), package: resellerPackage })
  .meta({ examples: [{ type: 'success', message: PACKAGE_CREATED, package: examplePackage }] });
export const resellerPackageDeletedAnswer = z
  .object({ type: success, message: z.string() })
  .meta({ examples: [{ type: 'success', message: PACKAGE_DELETED }] });

// ---- SCAN forms -------------------------------------------------------------------------------

export const resellerScanFormBody = z
  .object({
    order_ids: z.array(idText()).min(1).max(SCAN_FORM_IDS_MAX).optional().describe(`Up to ${SCAN_FORM_IDS_MAX} of your completed orders`),
    bulk_order_id: idText().optional().describe("A bulk order's id: all its completed labels"),
  })
  .refine((body) => (body.order_ids ? 1 : 0) + (body.bulk_order_id ? 1 : 0) === 1, { message: 'Send either order_ids or bulk_order_id' })
  .meta({ examples: [{ order_ids: ['0d6f1c8e-5b7a-4f1e-9a53-2c1f0b7e6a41', '5e2a9d04-7c3b-4e8f-b1a6-9f0c2d4e8b13'] }] });
const SCAN_FORM_EXAMPLE = {
  id: '7b1e4c2a-9d3f-4a6b-8c5e-1f2a3b4c5d6e',
  name: 'SF-7B1E4C2A',
  status: 'created' as const,
  carrier: 'USPS',
  ship_date: '2026-12-01',
  from: { name: 'Jane Sender', company: '', street: '123 Main Street', street2: '', city: 'New York', state: 'NY', zip: '10001', country: 'United States' },
  label_count: 2,
  order_ids: ['0d6f1c8e-5b7a-4f1e-9a53-2c1f0b7e6a41', '5e2a9d04-7c3b-4e8f-b1a6-9f0c2d4e8b13'],
  tracking_codes: ['9405511899223197428490', '9405511899223197428506'],
  bulk_order_id: null,
  message: null,
  pdf_url: 'https://labels.acme-shipping.test/api/reseller/v1/scan-form/7b1e4c2a-9d3f-4a6b-8c5e-1f2a3b4c5d6e/pdf',
  created_at: '2026-12-01T21:04:11.000Z',
};
export const resellerScanFormsAnswer = z
  .object({
    type: success,
    message: z.string(),
    forms: z.array(resellerScanForm).describe('One form for each group of labels the carrier takes together (one from address, carrier and ship date)'),
    refused: z.array(z.object({ order_id: z.string(), reason: z.string() })).describe('Each label that could not go on a form, and why'),
  })
  .meta({
    id: 'ResellerScanFormsAnswer',
    examples: [
      {
        type: 'success',
        message: '1 SCAN form asked for 2 labels',
        forms: [{ ...SCAN_FORM_EXAMPLE, status: 'creating', pdf_url: null }],
        refused: [{ order_id: '9c8b7a6d-5e4f-4321-8765-0fedcba98765', reason: 'A refunded label (or one with a refund asked) cannot go on a SCAN form' }],
      },
    ],
  });
export const resellerScanFormAnswer = z
  .object({ type: success, message: z.string(), form: resellerScanForm })
  .meta({ id: 'ResellerScanFormAnswer', examples: [{ type: 'success', message: 'SCAN form', form: SCAN_FORM_EXAMPLE }] });
export const scanFormIdParams = z.object({ scan_form_id: idText().describe('The id create-scan-form answered') });

// ---- Pickups ----------------------------------------------------------------------------------

export const resellerPickupRatesBody = pickupRatesBody.meta({
  examples: [
    {
      orderIds: ['0d6f1c8e-5b7a-4f1e-9a53-2c1f0b7e6a41', '5e2a9d04-7c3b-4e8f-b1a6-9f0c2d4e8b13'],
      minDatetime: '2026-12-02T09:00:00-05:00',
      maxDatetime: '2026-12-02T13:00:00-05:00',
      instructions: 'Back door',
    },
  ],
});
export const resellerPickupBuyBody = pickupBuyBody.meta({ examples: [{ pickupId: '3c2b1a09-8f7e-4d6c-b5a4-938271605f4e', service: 'Future-Day Pickup' }] });
export const resellerPickupAnswer = z
  .object({ type: success, message: z.string(), pickup: resellerPickup })
  .meta({ id: 'ResellerPickupAnswer', examples: [{ type: 'success', message: 'Pickup booked', pickup: (resellerPickup.meta()?.examples as unknown[])[0] }] });
export const pickupIdParams = z.object({ pickup_id: idText().describe('The pickup id pickup-rates answered') });
