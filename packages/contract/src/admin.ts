import { z } from 'zod';
import { dollars, idText, stringField, requiredText } from './common.ts';
import { labelTypeSchema, priceTier } from './catalog.ts';
import { orderDetailSchema, orderLedgerSchema, orderSchema } from './orders.ts';
import { ORDER_STATUSES } from './orders-values.ts';
import { bulkOrderSchema } from './bulk.ts';
import { invoiceSchema, statementEntrySchema } from './billing.ts';
import { IDEMPOTENCY_KEY_INVALID } from './reseller.ts';
import { offeredServiceSchema, priceCheckSummarySchema } from './price-check.ts';

// The operator console: every call lives under /api/v1/admin and needs a signed-in user whose
// role is 'admin' (401 for a visitor, 403 for a customer). Money crosses as dollars, two decimals.

export const USER_ROLES = ['customer', 'admin'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const ADMIN_ONLY = 'This page is for the shop operators only';
export const ACCOUNT_DISABLED = 'This account is disabled; contact the shop for help';
export const ADJUSTMENT_BELOW_ZERO = 'A debit cannot take the balance below zero';
export const ADMIN_PAGE_SIZE = 20;

const emptyAsUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);
const optionalText = (max = 100) => z.preprocess(emptyAsUndefined, z.string().trim().max(max).optional());
/** A yyyy-mm-dd day (UTC), inclusive, for date filters. */
const optionalDay = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'Dates are yyyy-mm-dd')
    .optional(),
);
/** ?page=&limit= of every admin list: page size ADMIN_PAGE_SIZE, at most 100. */
export const adminPageQuery = z.object({
  page: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1, 'Page must be at least 1').default(1)),
  limit: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(100).default(ADMIN_PAGE_SIZE)),
});

/** Who a row belongs to, as lists show it. */
export const userRefSchema = z.object({ _id: z.string(), tgId: z.string(), username: z.string() });
export type UserRef = z.infer<typeof userRefSchema>;

// ---- Overview -------------------------------------------------------------------------------

export const overviewResponse = z.object({
  users: z.number(),
  /** Users who signed in or ordered in the last 30 days. */
  activeUsers30d: z.number(),
  /** The sum of all balances: what the shop owes its customers. */
  balancesTotal: z.number(),
  deposits: z.object({ today: z.number(), last30d: z.number() }),
  /** Label sales net of refunds (single, bulk and FedEx orders). */
  sales: z.object({ today: z.number(), last30d: z.number() }),
  ordersByStatus: z.record(z.string(), z.number()),
  queue: z.object({ waiting: z.number(), active: z.number(), completed: z.number(), failed: z.number(), delayed: z.number(), total: z.number() }),
  fedexWaiting: z.number(),
  /** Label refunds by state; stuck: requested longer than REFUND_STUCK_HOURS. */
  refunds: z.object({ requested: z.number(), stuck: z.number(), refunded: z.number(), rejected: z.number() }),
  /**
   * Labels bought upstream and completed in the last 30 days, voided ones left out: what they cost upstream (their
   * insurance included), sold for, and the margin; of them the insured ones, the insurance sold and what it cost.
   */
  upstream: z.object({
    labels30d: z.number(),
    cost30d: z.number(),
    price30d: z.number(),
    margin30d: z.number(),
    insured30d: z.number(),
    insurance30d: z.number(),
    insuranceCost30d: z.number(),
  }),
  /** 30 days, oldest first, one entry per day of the shop's time zone (days without money included, as 0). */
  daily: z.array(z.object({ date: z.string(), sales: z.number(), deposits: z.number() })),
  /** SHOP_TIME_ZONE: the zone "today" and the daily figures are counted in. */
  timeZone: z.string(),
  /** The last price check's flags (the console warns of negative margins and unrated mappings), or null before the first. */
  priceCheck: priceCheckSummarySchema,
});
export type Overview = z.infer<typeof overviewResponse>;

/** What a shop needs before real customers, in the order the README's Going live checklist lists them. */
export const GOING_LIVE_ITEMS = ['payments', 'public_url', 'smtp', 'tls', 'upstream', 'price_check', 'backups', 'supervisor'] as const;
/** GET /admin/going-live: each item ticked from the running settings, with what it found or what is missing. */
export const goingLiveResponse = z.object({
  items: z.array(z.object({ id: z.enum(GOING_LIVE_ITEMS), title: z.string(), done: z.boolean(), detail: z.string() })),
});
export type GoingLive = z.infer<typeof goingLiveResponse>;

// ---- Users ----------------------------------------------------------------------------------

export const adminUserSchema = z.object({
  _id: z.string(),
  username: z.string(),
  tgId: z.string(),
  email: z.string().nullable(),
  emailVerified: z.boolean(),
  role: z.enum(USER_ROLES),
  disabled: z.boolean(),
  balance: z.number(),
  createdAt: z.string(),
  /** The account's last request (signed in, or with its API key), to the minute; null when never. */
  lastActiveAt: z.string().nullable(),
});
export type AdminUser = z.infer<typeof adminUserSchema>;

/** GET /admin/users?search=&page=&limit=: search over name, Telegram username and email; newest first. */
export const adminUsersQuery = adminPageQuery.extend({ search: optionalText() });
export const adminUsersResponse = z.object({ users: z.array(adminUserSchema), totalPages: z.number(), total: z.number() });
/** GET /admin/users/:id */
export const adminUserResponse = z.object({ user: adminUserSchema });

/** GET /admin/users/:id/statement?page=&limit=: the user's ledger, newest first, with running balance. */
export const adminStatementResponse = z.object({ entries: z.array(statementEntrySchema), totalPages: z.number(), total: z.number(), balance: z.number() });
/** GET /admin/users/:id/invoices?page=&limit= */
export const adminUserInvoicesResponse = z.object({ invoices: z.array(invoiceSchema), totalPages: z.number(), total: z.number() });

/** POST /admin/users/:id/adjust: one 'adjustment' ledger row; a credit also shows as a paid Manual invoice. */
export const adjustBalanceBody = z.object({
  direction: z.enum(['credit', 'debit'], { error: 'Choose credit or debit' }),
  amount: dollars('Amount').pipe(z.number().positive('Amount must be greater than 0').max(100_000, 'Amount must be at most $100,000')),
  reason: requiredText('Reason', 500),
});
export type AdjustBalanceBody = z.input<typeof adjustBalanceBody>;
/**
 * Its Idempotency-Key (optional; the console sends one per form submission): the same key with the same request
 * answers the first answer again and moves no money; with another request it is refused (422).
 */
export const adjustBalanceHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, IDEMPOTENCY_KEY_INVALID)
    .optional(),
});
export const adjustBalanceResponse = z.object({ message: z.string(), balance: z.number() });

/** POST /admin/users/:id/status: disable or enable an account. */
export const userStatusBody = z.object({ disabled: z.boolean({ error: 'disabled must be true or false' }) });
/** POST /admin/users/:id/role */
export const userRoleBody = z.object({ role: z.enum(USER_ROLES, { error: 'Role must be customer or admin' }) });

// ---- Label types and prices -----------------------------------------------------------------

/** GET /admin/label-types: every type, enabled or not. */
export const adminLabelTypesResponse = z.object({ labelTypes: z.array(labelTypeSchema) });

/** What a label type is bought as at one upstream (its carrier and service names there; a carrier account or null for any). */
export const upstreamServiceSchema = z.object({ carrier: z.string(), service: z.string(), carrierAccount: z.string().nullable() });

/** The upstreams a shop can buy labels at that sell postage (the sandbox makes every type itself and needs no mapping). */
export const SELLING_UPSTREAMS = ['easypost', 'shippo'] as const;
export const UPSTREAM_TITLES: Record<string, string> = { easypost: 'EasyPost', shippo: 'Shippo', sandbox: 'Sandbox' };

/**
 * One upstream's health as the serving process sees it: its breaker (closed: buying; open: skipped until a probe;
 * half-open: one probe allowed), its last fault, and the last hour's p95 call time, faults, 429s and purchases.
 */
export const upstreamHealthSchema = z.object({
  name: z.string(),
  state: z.enum(['closed', 'open', 'half-open']),
  lastError: z.string().nullable(),
  lastErrorAt: z.string().nullable(),
  /** While open: when the next call may probe it. */
  probeAt: z.string().nullable(),
  p95Ms: z.number().nullable(),
  callsLastHour: z.number(),
  faultsLastHour: z.number(),
  rateLimitedLastHour: z.number(),
  purchasesLastHour: z.number(),
});
export type UpstreamHealth = z.infer<typeof upstreamHealthSchema>;

/**
 * GET /admin/upstream-services: the shop's upstreams in order of preference with their health, the buying policy, and
 * each label type's mapping at every selling upstream (null: not bought there), with what the last price check saw that
 * upstream rate for the type's route: `offered`, every carrier and service it rated for the route's reference packages
 * (null: no check has priced the route there), and `rated`, whether the mapped service is one of them (null: unknown).
 * `configured`: the upstream is one of the shop's (LABEL_UPSTREAMS); the others' mappings wait for the day it is.
 */
export const adminUpstreamServicesResponse = z.object({
  upstreams: z.array(upstreamHealthSchema),
  policy: z.enum(['cheapest', 'preference']),
  services: z.array(
    z.object({
      _id: z.string(),
      uid: z.string(),
      name: z.string(),
      mappings: z.array(
        z.object({
          upstream: z.string(),
          configured: z.boolean(),
          mapping: upstreamServiceSchema.nullable(),
          offered: z.array(offeredServiceSchema).nullable(),
          rated: z.boolean().nullable(),
        }),
      ),
    }),
  ),
});
export type AdminUpstreamServices = z.infer<typeof adminUpstreamServicesResponse>;
/** GET /admin/upstream-health: the upstreams' health and the policy alone (the overview polls it; it runs no price check). */
export const adminUpstreamHealthResponse = adminUpstreamServicesResponse.pick({ upstreams: true, policy: true });
export type AdminUpstreamHealth = z.infer<typeof adminUpstreamHealthResponse>;
/** PUT /admin/label-types/:id/upstream/:upstream: both carrier and service, or both empty to stop buying the type there. Audited. */
export const upstreamParams = z.object({ id: z.string(), upstream: z.enum(SELLING_UPSTREAMS, { error: 'Unknown upstream' }) });
export const updateUpstreamServiceBody = z.object({
  carrier: stringField('Carrier').trim().max(50, 'Carrier must be at most 50 characters'),
  service: stringField('Service').trim().max(100, 'Service must be at most 100 characters'),
  carrierAccount: stringField('Carrier account').trim().max(100, 'Carrier account must be at most 100 characters').default(''),
});
export type UpdateUpstreamServiceBody = z.input<typeof updateUpstreamServiceBody>;
export const adminUpstreamServiceChangeResponse = z.object({ message: z.string(), upstream: upstreamServiceSchema.nullable() });

/**
 * PUT /admin/label-types/:id. Tiers, sorted by fromWeight, must start at 0, each one start where
 * the one before ends (no gap, no overlap), and the last end at maxWeight. New orders only.
 */
export const updateLabelTypeBody = z.object({
  name: requiredText('Name', 100),
  maxWeight: z.coerce.number({ error: 'Max weight must be a number' }).positive('Max weight must be greater than 0').max(10_000),
  status: z.boolean({ error: 'Status must be true or false' }),
  prices: z.array(priceTier).min(1, 'Add at least one price tier').max(50, 'At most 50 price tiers'),
});
export type UpdateLabelTypeBody = z.input<typeof updateLabelTypeBody>;

/** The first problem of a set of tiers (named by its 1-based position after sorting), or null when they are contiguous. */
export function tierProblem(prices: { fromWeight: number; toWeight: number; price: number }[], maxWeight: number): string | null {
  const tiers = [...prices].sort((a, b) => a.fromWeight - b.fromWeight);
  for (const [i, tier] of tiers.entries()) {
    const name = `Tier ${i + 1} (${tier.fromWeight}-${tier.toWeight})`;
    if (!(tier.toWeight > tier.fromWeight)) return `${name}: the end weight must be above the start weight`;
    if (!(tier.price >= 0)) return `${name}: the price cannot be negative`;
    if (i === 0 && tier.fromWeight !== 0) return `${name}: the first tier must start at 0`;
    const before = tiers[i - 1];
    if (before && tier.fromWeight > before.toWeight) return `${name}: gap after tier ${i} (${before.toWeight}-${tier.fromWeight} has no price)`;
    if (before && tier.fromWeight < before.toWeight) return `${name}: overlaps tier ${i} (${before.fromWeight}-${before.toWeight})`;
  }
  const last = tiers.at(-1);
  if (last && last.toWeight !== maxWeight)
    return `Tier ${tiers.length} (${last.fromWeight}-${last.toWeight}): the last tier must end at the max weight ${maxWeight}`;
  return null;
}

/** GET/PUT /admin/fedex-price: the flat price of a FedEx hand-made order. */
export const fedexPriceBody = z.object({ price: dollars('Price').pipe(z.number().positive('Price must be greater than 0').max(10_000)) });
export const fedexPriceResponse = z.object({ price: z.number() });

// ---- Content --------------------------------------------------------------------------------

export const adminFaqSchema = z.object({ _id: z.string(), question: z.string(), answer: z.string(), position: z.number() });
/** GET /admin/content */
export const adminContentResponse = z.object({ announcement: z.string(), announcementStatus: z.boolean(), tos: z.string(), faqs: z.array(adminFaqSchema) });
export type AdminContent = z.infer<typeof adminContentResponse>;
/** PUT /admin/content/announcement */
export const announcementBody = z.object({
  announcement: stringField('Announcement').trim().max(2000, 'Announcement must be at most 2000 characters'),
  status: z.boolean(),
});
/** PUT /admin/content/tos: HTML, sanitized on save and again when shown. */
export const TOS_MAX = 200_000;
/** The largest terms body worth reading: TOS_MAX characters at 6 bytes each (a \u escape), and room for the rest. */
export const TOS_BODY_MAX_BYTES = TOS_MAX * 6 + 1024;
export const tosBody = z.object({ tos: stringField('Terms').max(TOS_MAX, `Terms must be at most ${TOS_MAX.toLocaleString('en-US')} characters`) });
/** POST /admin/faqs, PUT /admin/faqs/:id */
export const faqBody = z.object({ question: requiredText('Question', 300), answer: requiredText('Answer', 5000) });
/** PUT /admin/faqs-order: every FAQ id, in the new order. */
export const faqOrderBody = z.object({ ids: z.array(idText()).max(500) });

// ---- Orders, bulk orders, invoices ----------------------------------------------------------

/** GET /admin/orders: every customer's label orders, newest first. */
export const adminOrdersQuery = adminPageQuery.extend({
  /** Order id (full or the 8-character OrderId), tracking, sender or receiver name. */
  search: optionalText(),
  status: z.preprocess(emptyAsUndefined, z.enum(ORDER_STATUSES, { error: `Status must be one of ${ORDER_STATUSES.join(', ')}` }).optional()),
  /** A label type uid. */
  type: optionalText(64),
  /** A user id or Telegram username. */
  user: optionalText(64),
  from: optionalDay,
  to: optionalDay,
});
export type AdminOrdersQuery = z.input<typeof adminOrdersQuery>;
export const adminOrderSchema = orderSchema.extend({ owner: userRefSchema });
export type AdminOrder = z.infer<typeof adminOrderSchema>;
export const adminOrdersResponse = z.object({ orders: z.array(adminOrderSchema), totalPages: z.number(), total: z.number() });

/** GET /admin/orders/:id: the whole order with its owner, its ledger rows and its bulk order. */
export const adminOrderDetailResponse = z.object({
  order: orderDetailSchema.extend({
    owner: userRefSchema,
    /** A label bought upstream: the carrier and service bought, its cost and the margin on its price; null for the sandbox. */
    upstream: z
      .object({
        shipmentId: z.string().nullable(),
        carrier: z.string().nullable(),
        service: z.string().nullable(),
        cost: z.number().nullable(),
        margin: z.number().nullable(),
      })
      .nullable(),
  }),
  ledger: orderLedgerSchema,
});
export type AdminOrderDetail = z.infer<typeof adminOrderDetailResponse>;
/** POST /admin/orders/:id/cancel: a pending or processing order is cancelled and refunded; 409 otherwise. */
export const cancelOrderBody = z.object({ reason: requiredText('Reason', 500) });

// ---- Label refunds (the console's refund queue) ----------------------------------------------

export const ADMIN_REFUND_STATES = ['requested', 'stuck', 'rejected', 'refunded'] as const;
/** GET /admin/refunds?state=&page=&limit=: requested (oldest first), stuck (requested longer than REFUND_STUCK_HOURS), rejected, refunded. */
export const adminRefundsQuery = adminPageQuery.extend({
  state: z.preprocess(
    (v) => (v === undefined || v === '' ? 'requested' : v),
    z.enum(ADMIN_REFUND_STATES, { error: `State must be one of ${ADMIN_REFUND_STATES.join(', ')}` }),
  ),
});
export const adminRefundSchema = adminOrderSchema.extend({
  refundRequestedAt: z.string().nullable(),
  refundUpdatedAt: z.string().nullable(),
  /** The upstream's last word (EasyPost refund_status), else null. */
  refundUpstream: z.string().nullable(),
  /** The carrier's tracking status, else null. */
  trackingStatus: z.string().nullable(),
  bulkOrderId: z.string().nullable(),
});
export type AdminRefund = z.infer<typeof adminRefundSchema>;
export const adminRefundsResponse = z.object({ refunds: z.array(adminRefundSchema), totalPages: z.number(), total: z.number() });
export type AdminRefundsResponse = z.infer<typeof adminRefundsResponse>;
/** POST /admin/orders/:id/refund/reject: the reason the customer reads. */
export const rejectRefundBody = z.object({ reason: requiredText('Reason', 500) });

/** GET /admin/bulk-orders?status=&user=&page=&limit= */
export const adminBulkOrdersQuery = adminPageQuery.extend({ status: optionalText(20), user: optionalText(64) });
export const adminBulkOrdersResponse = z.object({
  bulkOrders: z.array(bulkOrderSchema.extend({ owner: userRefSchema })),
  totalPages: z.number(),
  total: z.number(),
});

/** GET /admin/invoices?status=&user=&page=&limit= */
export const adminInvoicesQuery = adminPageQuery.extend({ status: optionalText(20), user: optionalText(64) });
export const adminInvoicesResponse = z.object({ invoices: z.array(invoiceSchema.extend({ owner: userRefSchema })), totalPages: z.number(), total: z.number() });

// ---- Audit log and outbox -------------------------------------------------------------------

/** GET /admin/audit?admin=&target=&from=&to=&page=&limit=, newest first. */
export const auditQuery = adminPageQuery.extend({
  /** An admin's user id or Telegram username. */
  admin: optionalText(64),
  /** A target id (user, order, label type, faq, ...) or a target type. */
  target: optionalText(64),
  from: optionalDay,
  to: optionalDay,
});
export const auditEntrySchema = z.object({
  _id: z.string(),
  createdAt: z.string(),
  admin: userRefSchema,
  /** e.g. 'user.adjust', 'user.disable', 'label_type.update', 'content.announcement', 'order.cancel'. */
  action: z.string(),
  targetType: z.string(),
  targetId: z.string().nullable(),
  /** The account a 'user' row is about, to show by its @username; null for other targets. */
  targetUser: userRefSchema.nullable(),
  /** The name of a target that has one (a label type's name), to show instead of its id; null for others. */
  targetName: z.string().nullable(),
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;
export const auditResponse = z.object({ entries: z.array(auditEntrySchema), totalPages: z.number(), total: z.number() });

/** GET /admin/outbox?page=&limit=: mails kept when SMTP_URL is unset, newest first. */
export const outboxMailSchema = z.object({ _id: z.string(), to: z.string(), subject: z.string(), body: z.string(), createdAt: z.string() });
export const outboxResponse = z.object({ mails: z.array(outboxMailSchema), totalPages: z.number(), total: z.number() });

// ---- Answers of the changing calls (added with the server; nothing above was changed) ---------
// Paths the comments above do not name: DELETE /admin/faqs/:id deletes a FAQ (answers
// messageResponse); GET /admin/orders/:id/label downloads any customer's completed label as
// {tracking}.pdf (409 before it is ready or when cancelled). Every other change answers
// messageResponse unless named here.

/** POST /admin/users/:id/status and /role: the account as it is now. */
export const adminUserChangeResponse = z.object({ message: z.string(), user: adminUserSchema });
/** PUT /admin/label-types/:id: the type as it is now. */
export const adminLabelTypeChangeResponse = z.object({ message: z.string(), labelType: labelTypeSchema });
/** PUT /admin/content/tos: the terms as stored, after sanitizing. */
export const tosChangeResponse = z.object({ message: z.string(), tos: z.string() });
/** POST /admin/faqs: the new FAQ's id. */
export const faqCreatedResponse = z.object({ message: z.string(), _id: z.string() });
