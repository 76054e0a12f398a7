import {
  centsToDollars,
  countryFor,
  dollarsToCents,
  type AdminOrder,
  type PriceCheck,
  type ReferencePackageBody,
  type AdminOrderDetail,
  type AdminUser,
  type AuditEntry,
  type Overview,
  type GoingLive,
  type AdminRefundsResponse,
  type UserRef,
  type UserRole,
  SELLING_UPSTREAMS,
  type AdminUpstreamServices,
} from '@portal/contract';
import type { UpstreamHealthView } from '../../providers/labels/upstream-health.ts';
import type { Db } from '../../db/database.ts';
import { badRequest, conflict, notFound } from '../../lib/http-errors.ts';
import { nowIso } from '../../lib/ids.ts';
import { dayBounds, dayIn, dayStartIn, nextDay } from '../../lib/shop-time.ts';
import type { JobQueue } from '../../queue/job-queue.ts';
import type { AuthService } from '../auth/service.ts';
import { USER_NOT_FOUND } from '../auth/service.ts';
import type { BillingService } from '../billing/service.ts';
import type { BulkService } from '../bulk/service.ts';
import { toLabelType, type CatalogService, type LabelTypeChange } from '../catalog/service.ts';
import type { ContentService } from '../content/service.ts';
import type { FedexService } from '../fedex/service.ts';
import type { PriceCheckService } from '../price-check/service.ts';
import { toOrder, type OrderPickups, type OrderService } from '../orders/service.ts';
import type { RefundFilter, RefundService } from '../orders/service.ts';
import { auditBy } from './audit.ts';
import { lastBackup } from '../../lib/backup-stamp.ts';
import { goingLiveItems, type GoingLiveSettings } from './going-live.ts';
import * as repo from './repository.ts';

export { supervisorOf } from './going-live.ts';

export const CANNOT_DISABLE_SELF = 'You cannot disable your own account';
export const CANNOT_DEMOTE_SELF = 'You cannot take the admin role from yourself';
export const BAD_DAY = 'Dates are yyyy-mm-dd';
export const ORDER_CANCELLED_REFUNDED = 'Order cancelled and refunded';
export const LABEL_SOLD_VOIDED = 'The label had already been bought upstream: it was voided and the order refunded';
export const LABEL_SOLD_VOID_ASKED =
  'The label had already been bought upstream: its void was asked, and the customer is refunded once the carrier accepts it (see Refunds)';
export const LABEL_SOLD_NOT_VOIDED =
  'The label had already been bought upstream and the carrier refused to void it: the order is completed with that label, and nothing was refunded';

const DAY_MS = 24 * 60 * 60_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const OVERVIEW_DAYS = 30;
/** Ledger kinds of label sales: their charges and refunds (so sales are net of refunds). */
const SALE_KINDS = [
  'order_charge',
  'order_refund',
  'label_refund',
  'bulk_charge',
  'bulk_refund',
  'fedex_charge',
  'fedex_refund',
  'pickup_fee',
  'pickup_refund',
];
/** Money customers paid in (bonuses and an operator's adjustments are not deposits). */
const DEPOSIT_KINDS = ['deposit'];
const MONEY_KINDS = [...SALE_KINDS, ...DEPOSIT_KINDS];

type DayMoney = { sales: number; deposits: number };

/** Sales (net of refunds) and deposits in cents of each of these days, from the ledger's sums per day and kind. */
function moneyByDay(days: string[], rows: { day: string; kind: string; cents: number }[]): Map<string, DayMoney> {
  const byDay = new Map(days.map((d) => [d, { sales: 0, deposits: 0 }]));
  for (const row of rows) {
    const day = byDay.get(row.day);
    if (!day) continue; // stamped after today (a clock change): outside the window
    if (DEPOSIT_KINDS.includes(row.kind)) day.deposits += row.cents;
    else day.sales -= row.cents; // charges are negative, refunds positive
  }
  return byDay;
}

type PageQuery = { page: number; limit: number };
const pageOf = (query: PageQuery): repo.Page => ({ offset: (query.page - 1) * query.limit, limit: query.limit });
const totalPages = (total: number, limit: number) => Math.max(1, Math.ceil(total / limit));

/** yyyy-mm-dd days of the shop's zone (SHOP_TIME_ZONE, both inclusive) as a created_at range; 400 for a day that does not exist. */
export function dayRange(timeZone: string, from?: string, to?: string): repo.TimeRange {
  const checked = (day: string) => {
    const ms = Date.parse(`${day}T00:00:00.000Z`);
    if (!DAY.test(day) || !Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== day) throw badRequest(BAD_DAY);
    return day;
  };
  const start = (day: string) => new Date(dayStartIn(timeZone, day)).toISOString();
  return { from: from ? start(checked(from)) : undefined, to: to ? start(nextDay(checked(to))) : undefined };
}

export function toAdminUser(row: repo.AdminUserRow): AdminUser {
  return {
    _id: row.id,
    username: row.username,
    tgId: row.tg_id,
    email: row.email,
    emailVerified: row.email_verified === 1,
    role: row.role,
    disabled: Boolean(row.disabled_at),
    balance: centsToDollars(Number(row.balance_cents)),
    createdAt: row.created_at,
    lastActiveAt: row.last_active_at,
  };
}

const adminLabelPath = (orderId: string) => `/api/v1/admin/orders/${orderId}/label`;
/** Shown for an audit row made from the command line (`npm run admin`), which has no admin. */
const COMMAND_LINE: UserRef = { _id: '', tgId: '', username: 'Command line' };
/** Shown for an audit row the shop wrote by itself (a label refused for its cost). */
const SYSTEM_ACTOR: UserRef = { _id: '', tgId: '', username: 'System' };
const parse = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

export function createAdminService(deps: {
  db: Db;
  auth: AuthService;
  billing: BillingService;
  catalog: CatalogService;
  content: ContentService;
  orders: OrderService;
  bulk: BulkService;
  queue: JobQueue;
  fedex: FedexService;
  refunds: RefundService;
  priceCheck: PriceCheckService;
  /** The shop's upstreams (names in order of preference, each one's health) and the policy of where to buy. */
  upstreams: { names: string[]; healthViews(): UpstreamHealthView[] };
  policy: AdminUpstreamServices['policy'];
  /** SHOP_TIME_ZONE: the days the overview counts and the console's date filters name. */
  timeZone: string;
  /** The running settings the Going live checklist ticks. */
  goingLive: GoingLiveSettings;
}) {
  const { db, auth, billing, catalog, content, orders, bulk, queue, fedex, refunds, priceCheck } = deps;

  /**
   * Sales and deposits (cents) of each closed day (in the shop's zone): every day before yesterday. Ledger rows are
   * stamped when written and never edited, so a closed day's sums never change: each is read once
   * per process, and only yesterday and today are summed on every overview.
   */
  const closedDays = new Map<string, DayMoney>();
  let filling: Promise<void> | null = null;
  let overviewInFlight: Promise<Overview> | null = null;

  async function fillClosedDays(days: string[]): Promise<void> {
    const missing = days.filter((d) => !closedDays.has(d));
    if (missing.length === 0) return;
    const sums = moneyByDay(missing, await repo.ledgerByDay(db, MONEY_KINDS, dayBounds(deps.timeZone, missing)));
    for (const day of missing) closedDays.set(day, sums.get(day)!);
    for (const day of closedDays.keys()) if (day < days[0]) closedDays.delete(day);
  }

  /** Sales and deposits in cents of each of these days (oldest first, the last being today). */
  async function money(days: string[]): Promise<Map<string, DayMoney>> {
    const closed = days.slice(0, -2);
    // One reader fills the days not read yet; concurrent overviews wait for it instead of reading them again.
    while (closed.some((d) => !closedDays.has(d))) {
      filling ??= fillClosedDays(closed).finally(() => (filling = null));
      await filling;
    }
    const live = moneyByDay(days.slice(-2), await repo.ledgerByDay(db, MONEY_KINDS, dayBounds(deps.timeZone, days.slice(-2))));
    return new Map(days.map((d) => [d, closedDays.get(d) ?? live.get(d)!]));
  }

  async function existingUser(userId: string): Promise<repo.AdminUserRow> {
    const user = await repo.findUser(db, userId);
    if (!user) throw notFound(USER_NOT_FOUND);
    return user;
  }

  async function computeOverview(now = Date.now()): Promise<Overview> {
    const today = dayIn(deps.timeZone, now);
    const days = Array.from({ length: OVERVIEW_DAYS }, (_, i) => nextDay(today, i - (OVERVIEW_DAYS - 1)));
    const [users, byDay, statuses, jobs, fedexWaiting, upstream, refundCounts, lastCheck] = await Promise.all([
      repo.userTotals(db, new Date(now - OVERVIEW_DAYS * DAY_MS).toISOString()),
      money(days),
      orders.countByStatus(),
      queue.counts(),
      fedex.waitingCount(),
      repo.upstreamTotals(db, new Date(now - OVERVIEW_DAYS * DAY_MS).toISOString()),
      refunds.counts(),
      priceCheck.lastKept(),
    ]);
    const total = (key: keyof DayMoney) => centsToDollars(days.reduce((sum, d) => sum + byDay.get(d)![key], 0));
    const last = byDay.get(days.at(-1)!)!;
    return {
      users: users.users,
      activeUsers30d: users.active,
      balancesTotal: centsToDollars(users.balanceCents),
      deposits: { today: centsToDollars(last.deposits), last30d: total('deposits') },
      sales: { today: centsToDollars(last.sales), last30d: total('sales') },
      ordersByStatus: statuses,
      queue: jobs,
      fedexWaiting,
      refunds: refundCounts,
      upstream: {
        labels30d: upstream.labels,
        cost30d: centsToDollars(upstream.costCents),
        price30d: centsToDollars(upstream.priceCents),
        margin30d: centsToDollars(upstream.priceCents - upstream.costCents),
        insured30d: upstream.insured,
        insurance30d: centsToDollars(upstream.insuranceCents),
        insuranceCost30d: centsToDollars(upstream.insuranceCostCents),
      },
      daily: days.map((date) => ({ date, sales: centsToDollars(byDay.get(date)!.sales), deposits: centsToDollars(byDay.get(date)!.deposits) })),
      timeZone: deps.timeZone,
      priceCheck: lastCheck && {
        checkedAt: lastCheck.checkedAt,
        negative: lastCheck.negative,
        notRated: lastCheck.notRated,
        unavailable: lastCheck.unavailable,
      },
    };
  }

  /** Id, Telegram username and name of each owner, by id; a missing one shows its id. */
  async function owners(ids: string[]): Promise<(id: string) => UserRef> {
    const refs = new Map((await repo.userRefs(db, ids)).map((u) => [u.id, { _id: u.id, tgId: u.tg_id, username: u.username }]));
    return (id) => refs.get(id) ?? { _id: id, tgId: '', username: '' };
  }

  const asAdminOrder = (row: Parameters<typeof toOrder>[0], owner: UserRef, pickups: OrderPickups): AdminOrder => {
    const order = toOrder(row, pickups);
    return { ...order, pdf: order.pdf ? adminLabelPath(row.id) : null, owner };
  };

  return {
    /**
     * The overview. Requests that arrive while one is being computed share it (its figures are at
     * most one computation old), so operators refreshing together cost the database one read.
     */
    overview(): Promise<Overview> {
      overviewInFlight ??= computeOverview().finally(() => (overviewInFlight = null));
      return overviewInFlight;
    },

    /** The Going live checklist, for an operator who opened the console at `origins.requestOrigin`. */
    async goingLive(origins: { requestOrigin: string; linkOrigin: string }): Promise<GoingLive> {
      const check = await priceCheck.lastKept();
      const facts = { ...origins, priceCheck: check, now: Date.now() };
      return { items: goingLiveItems(deps.goingLive, facts, lastBackup(deps.goingLive.dataDir)) };
    },

    // ---- Users --------------------------------------------------------------------------------

    async users(query: PageQuery & { search?: string }) {
      const { rows, total } = await repo.listUsers(db, query.search, pageOf(query));
      return { users: rows.map(toAdminUser), totalPages: totalPages(total, query.limit), total };
    },

    async user(userId: string): Promise<AdminUser> {
      return toAdminUser(await existingUser(userId));
    },

    async statement(userId: string, query: PageQuery) {
      await existingUser(userId);
      return billing.statement(userId, query.page, query.limit);
    },

    async invoicesOf(userId: string, query: PageQuery) {
      await existingUser(userId);
      return billing.listInvoices(userId, query.page, query.limit);
    },

    /**
     * A credit or debit with its reason: one 'adjustment' ledger row (a credit also a paid Manual invoice); answers the
     * balance in dollars. With the operator's idempotency key, a request sent again moves no money (billing.adjust).
     */
    async adjust(
      adminId: string,
      userId: string,
      input: { direction: 'credit' | 'debit'; amount: number; reason: string },
      idempotencyKey?: string,
    ): Promise<number> {
      await existingUser(userId);
      const audit = auditBy(adminId, { action: 'user.adjust', targetType: 'user' });
      // Keys are the operator's own: another operator's same key is another request.
      const key = idempotencyKey === undefined ? undefined : `${adminId}\n${idempotencyKey}`;
      const cents = await billing.adjust(userId, { direction: input.direction, amountCents: dollarsToCents(input.amount), reason: input.reason }, audit, key);
      return centsToDollars(cents);
    },

    async setDisabled(adminId: string, userId: string, disabled: boolean): Promise<AdminUser> {
      if (disabled && userId === adminId) throw badRequest(CANNOT_DISABLE_SELF);
      await auth.setDisabled(userId, disabled, auditBy(adminId, { action: disabled ? 'user.disable' : 'user.enable', targetType: 'user' }));
      return toAdminUser(await existingUser(userId));
    },

    async setRole(adminId: string, userId: string, role: UserRole): Promise<AdminUser> {
      if (role !== 'admin' && userId === adminId) throw badRequest(CANNOT_DEMOTE_SELF);
      await auth.setRole(userId, role, auditBy(adminId, { action: 'user.role', targetType: 'user' }));
      return toAdminUser(await existingUser(userId));
    },

    /** `npm run admin -- grant|revoke <telegram username>`: the audit row has no admin. Answers the user, or null when there is none. */
    async setRoleFromCommandLine(tgId: string, role: UserRole): Promise<AdminUser | null> {
      const user = await auth.findByTgId(tgId);
      if (!user) return null;
      await auth.setRole(user.id, role, auditBy(null, { action: 'user.role', targetType: 'user' }));
      return toAdminUser(await existingUser(user.id));
    },

    // ---- Label types and prices ---------------------------------------------------------------

    async labelTypes() {
      return (await catalog.allTypes()).map(toLabelType);
    },

    /**
     * The upstreams with their health, and each type's mapping at every selling upstream, with the services the last
     * price check saw that upstream rate on the type's route.
     */
    async upstreamServices(): Promise<AdminUpstreamServices> {
      const [types, check] = await Promise.all([catalog.allTypes(), priceCheck.latest()]);
      const configured = new Set(deps.upstreams.names);
      return {
        upstreams: deps.upstreams.healthViews(),
        policy: deps.policy,
        services: types.map((type) => ({
          _id: type.id,
          uid: type.uid,
          name: type.name,
          mappings: SELLING_UPSTREAMS.map((upstream) => {
            const seen = check.offered[countryFor(type.uid)];
            // A check made with one upstream tagged nothing: its services are that upstream's.
            const offered =
              seen && configured.has(upstream)
                ? seen.filter((o) => (o.upstream ?? deps.upstreams.names[0]) === upstream).map(({ carrier, service }) => ({ carrier, service }))
                : null;
            const mapping = type.upstreams[upstream] ?? null;
            return {
              upstream,
              configured: configured.has(upstream),
              mapping,
              offered: offered?.length ? offered : null,
              rated: offered?.length && mapping ? offered.some((o) => o.carrier === mapping.carrier && o.service === mapping.service) : null,
            };
          }),
        })),
      };
    },

    /** The upstreams' health, in order of preference, and the policy: no price check is read or run. */
    upstreamHealth: () => ({ upstreams: deps.upstreams.healthViews(), policy: deps.policy }),

    async updateUpstreamService(adminId: string, ref: string, upstream: string, change: { carrier: string; service: string; carrierAccount: string }) {
      const type = await catalog.updateUpstream(ref, upstream, change, auditBy(adminId, { action: 'label_type.upstream', targetType: 'label_type' }));
      await priceCheck.forget();
      return type.upstreams[upstream] ?? null;
    },

    async updateLabelType(adminId: string, ref: string, change: LabelTypeChange) {
      const type = await catalog.updateType(ref, change, auditBy(adminId, { action: 'label_type.update', targetType: 'label_type' }));
      await priceCheck.forget();
      return toLabelType(type);
    },

    // ---- Price check --------------------------------------------------------------------------

    /** The last price check (run anew on refresh, or when none is kept or it is older than an hour). */
    async priceCheck(refresh: boolean): Promise<PriceCheck> {
      const { offered: _offered, ...check } = await priceCheck.latest(refresh);
      return check;
    },
    referencePackages: () => priceCheck.referencePackages(),
    addReferencePackage: (adminId: string, body: ReferencePackageBody) =>
      priceCheck.addReferencePackage(body, auditBy(adminId, { action: 'reference_package.create', targetType: 'reference_package' })),
    updateReferencePackage: (adminId: string, id: string, body: ReferencePackageBody) =>
      priceCheck.updateReferencePackage(id, body, auditBy(adminId, { action: 'reference_package.update', targetType: 'reference_package' })),
    deleteReferencePackage: (adminId: string, id: string) =>
      priceCheck.deleteReferencePackage(id, auditBy(adminId, { action: 'reference_package.delete', targetType: 'reference_package' })),

    fedexPrice: () => content.fedexPrice(),

    async setFedexPrice(adminId: string, price: number): Promise<number> {
      const cents = dollarsToCents(price);
      await content.setFedexPrice(cents, auditBy(adminId, { action: 'fedex_price.update', targetType: 'setting' }));
      return centsToDollars(cents);
    },

    // ---- Content ------------------------------------------------------------------------------

    content: () => content.adminContent(),
    setAnnouncement: (adminId: string, input: { announcement: string; status: boolean }) =>
      content.setAnnouncement(input, auditBy(adminId, { action: 'content.announcement', targetType: 'content' })),
    setTos: (adminId: string, tos: string) => content.setTos(tos, auditBy(adminId, { action: 'content.tos', targetType: 'content' })),
    createFaq: (adminId: string, input: { question: string; answer: string }) =>
      content.createFaq(input, auditBy(adminId, { action: 'faq.create', targetType: 'faq' })),
    updateFaq: (adminId: string, id: string, input: { question: string; answer: string }) =>
      content.updateFaq(id, input, auditBy(adminId, { action: 'faq.update', targetType: 'faq' })),
    deleteFaq: (adminId: string, id: string) => content.deleteFaq(id, auditBy(adminId, { action: 'faq.delete', targetType: 'faq' })),
    reorderFaqs: (adminId: string, ids: string[]) => content.reorderFaqs(ids, auditBy(adminId, { action: 'faq.reorder', targetType: 'faq' })),

    // ---- Orders, bulk orders, invoices --------------------------------------------------------

    async orders(query: PageQuery & Omit<repo.OrderListFilter, 'from' | 'to'> & { from?: string; to?: string }) {
      const { user, ...filter } = query;
      const userIds = user ? await repo.userIdsNamed(db, user) : undefined;
      const { rows, total } = await orders.listAll({ ...filter, userIds, ...dayRange(deps.timeZone, query.from, query.to) }, pageOf(query));
      const [ownerOf, pickups] = await Promise.all([owners(rows.map((r) => r.user_id)), orders.pickupsOf(rows)]);
      return { orders: rows.map((row) => asAdminOrder(row, ownerOf(row.user_id), pickups)), totalPages: totalPages(total, query.limit), total };
    },

    async order(orderId: string): Promise<AdminOrderDetail> {
      const [{ order, ledger }, row] = await Promise.all([orders.detail(null, orderId), orders.find(orderId)]);
      const ownerOf = await owners([order.user]);
      // The label's cost and its insurance's, against the price of both.
      const cost = row?.upstream_cost_cents == null ? null : row.upstream_cost_cents + (row.insurance_cost_cents ?? 0);
      const upstream =
        row && (row.upstream_ref || cost !== null)
          ? {
              shipmentId: row.upstream_ref,
              carrier: row.upstream_carrier,
              service: row.upstream_service,
              cost: cost === null ? null : centsToDollars(cost),
              margin: cost === null ? null : centsToDollars(Number(row.price_cents) - cost),
            }
          : null;
      return { order: { ...order, pdf: order.pdf ? adminLabelPath(order._id) : null, owner: ownerOf(order.user), upstream }, ledger };
    },

    labelPdf: (orderId: string) => orders.labelPdf(null, orderId),

    /** The refund queue: a page of orders in one refund state, with their owners. */
    async refunds(query: PageQuery & { state: RefundFilter }): Promise<AdminRefundsResponse> {
      const { rows, total } = await refunds.list(query.state, pageOf(query));
      const [ownerOf, pickups] = await Promise.all([owners(rows.map((r) => r.user_id)), orders.pickupsOf(rows)]);
      return {
        refunds: rows.map((row) => ({
          ...asAdminOrder(row, ownerOf(row.user_id), pickups),
          refundRequestedAt: row.refund_requested_at,
          refundUpdatedAt: row.refund_updated_at,
          refundUpstream: row.refund_upstream,
          trackingStatus: row.tracking_status,
          bulkOrderId: row.bulk_order_id,
        })),
        totalPages: totalPages(total, query.limit),
        total,
      };
    },
    approveRefund: (adminId: string, orderId: string) => refunds.approve(orderId, auditBy(adminId, { action: 'order.refund_approve', targetType: 'order' })),
    rejectRefund: (adminId: string, orderId: string, reason: string) =>
      refunds.reject(orderId, reason, auditBy(adminId, { action: 'order.refund_reject', targetType: 'order' })),

    /**
     * The operator's Cancel of a waiting order, answered as a message: refunded when the upstream sold no label; when it
     * had sold one, that label is voided first and the customer credited once the void is accepted (now, or later by the
     * refund sweep); a void the upstream refuses leaves the order completed with its label: 409 saying so.
     */
    async cancelOrder(adminId: string, orderId: string, reason: string): Promise<string> {
      const audit = auditBy(adminId, { action: 'order.cancel', targetType: 'order' });
      if ((await orders.cancelWaiting(orderId, reason, audit)) === 'cancelled') return ORDER_CANCELLED_REFUNDED;
      const refund = await refunds.voidSold(orderId, reason, audit);
      if (refund === 'refunded') return LABEL_SOLD_VOIDED;
      if (refund === 'requested') return LABEL_SOLD_VOID_ASKED;
      throw conflict(LABEL_SOLD_NOT_VOIDED);
    },

    async bulkOrders(query: PageQuery & { status?: string; user?: string }) {
      const { rows, total } = await repo.listBulkOrders(db, query, pageOf(query));
      const [shown, ownerOf] = await Promise.all([bulk.present(rows), owners(rows.map((r) => r.user_id))]);
      return { bulkOrders: shown.map((b, i) => ({ ...b, owner: ownerOf(rows[i].user_id) })), totalPages: totalPages(total, query.limit), total };
    },

    async invoices(query: PageQuery & { status?: string; user?: string }) {
      const now = nowIso();
      const { rows, total } = await repo.listInvoices(db, { ...query, now }, pageOf(query));
      const ownerOf = await owners(rows.map((r) => r.user_id));
      return {
        invoices: rows.map((row) => {
          const status = row.status === 'pending' && row.expires_at <= now ? 'expired' : row.status;
          return {
            _id: row.id,
            createdAt: row.created_at,
            amount: centsToDollars(Number(row.amount_cents)),
            bonus: row.bonus_percent,
            payment_method: row.payment_method,
            status,
            hosted_url: status === 'pending' ? row.hosted_url : null,
            owner: ownerOf(row.user_id),
          };
        }),
        totalPages: totalPages(total, query.limit),
        total,
      };
    },

    // ---- FedEx hand-made orders ---------------------------------------------------------------

    fedexQueue: (query: PageQuery & { state?: 'pending' | 'done' }) => fedex.queue(query.page, query.limit, query.state),
    fedexInvoice: (orderId: string) => fedex.adminInvoice(orderId),
    completeFedexOrder: (adminId: string, orderId: string, upload: { label: Buffer; note: string }) =>
      fedex.complete(orderId, upload, auditBy(adminId, { action: 'fedex_order.complete', targetType: 'fedex_order' })),
    cancelFedexOrder: (adminId: string, orderId: string, note: string) =>
      fedex.cancel(orderId, note, auditBy(adminId, { action: 'fedex_order.cancel', targetType: 'fedex_order' })),

    // ---- Audit log and outbox -----------------------------------------------------------------

    async audit(
      query: PageQuery & { admin?: string; target?: string; from?: string; to?: string },
    ): Promise<{ entries: AuditEntry[]; totalPages: number; total: number }> {
      const { rows, total } = await repo.listAudit(
        db,
        { admin: query.admin, target: query.target, ...dayRange(deps.timeZone, query.from, query.to) },
        pageOf(query),
      );
      const userTargets = rows.flatMap((r) => (r.target_type === 'user' && r.target_id ? [r.target_id] : []));
      const adminOf = await owners([...rows.flatMap((r) => (r.admin_id ? [r.admin_id] : [])), ...userTargets]);
      // Label types are named as the console names them (the catalog is kept in memory).
      const typeNames = rows.some((r) => r.target_type === 'label_type')
        ? new Map((await catalog.allTypes()).map((type) => [type.id, type.name]))
        : new Map<string, string>();
      return {
        entries: rows.map((row) => ({
          _id: row.id,
          createdAt: row.created_at,
          admin: row.admin_id ? adminOf(row.admin_id) : row.actor === 'system' ? SYSTEM_ACTOR : COMMAND_LINE,
          action: row.action,
          targetType: row.target_type,
          targetId: row.target_id,
          targetUser: row.target_type === 'user' && row.target_id ? adminOf(row.target_id) : null,
          targetName: row.target_type === 'label_type' && row.target_id ? (typeNames.get(row.target_id) ?? null) : null,
          before: parse(row.before_json),
          after: parse(row.after_json),
        })),
        totalPages: totalPages(total, query.limit),
        total,
      };
    },

    async outbox(query: PageQuery) {
      const { rows, total } = await repo.listOutbox(db, pageOf(query));
      return {
        mails: rows.map((m) => ({ _id: m.id, to: m.to_address, subject: m.subject, body: m.body, createdAt: m.created_at })),
        totalPages: totalPages(total, query.limit),
        total,
      };
    },
  };
}
export type AdminService = ReturnType<typeof createAdminService>;
