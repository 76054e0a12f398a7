import {
  ORDER_NOT_FOUND,
  REFUND_ALREADY_REFUNDED,
  REFUND_ALREADY_REJECTED,
  REFUND_ALREADY_REQUESTED,
  REFUND_ONLY_COMPLETED,
  REFUND_REQUESTED,
  REFUND_STATUS_LABELS,
  SCANNED_TRACKING_STATUSES,
  centsToDollars,
  getShopTimeZone,
  refundScanned,
  refundWindowPassed,
  refundOnScanForm,
  type RefundResult,
  type RefundStatus,
} from '@portal/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { AuditHook } from '../../lib/audit.ts';
import { HttpError, conflict, notFound } from '../../lib/http-errors.ts';
import { isoIn, nowIso } from '../../lib/ids.ts';
import { dayIn, dayStartIn } from '../../lib/shop-time.ts';
import { eventRow, idleOutbox, recordEvents, type ShopEventOutbox } from '../../lib/shop-events.ts';
import type { LabelProvider, RefundAnswer } from '../../providers/labels/label-provider.ts';
import { changeBalance } from '../billing/service.ts';
import * as repo from './repository.ts';
import { labelRequestFor } from './label-request.ts';

/** Tracking statuses that mean the carrier has the package (EasyPost's tracker statuses beyond pre_transit). */
const SCANNED: readonly string[] = SCANNED_TRACKING_STATUSES;
const DAY_MS = 86_400_000;
const SWEEP_BATCH = 50;
/** UPS and FedEx refund an unused label within 90 days of purchase. */
const UPS_FEDEX_WINDOW_DAYS = 90;

/** The carrier a label was bought from: as bought upstream, else by its label type. */
export function carrierOf(order: Pick<repo.OrderRow, 'upstream_carrier' | 'label_type_uid'>): string {
  if (order.upstream_carrier) return order.upstream_carrier;
  if (order.label_type_uid.startsWith('ups_')) return 'UPS';
  if (order.label_type_uid.startsWith('fedex')) return 'FedEx';
  return 'USPS';
}

const shortId = (order: { id: string }) => order.id.slice(0, 8).toUpperCase();

export type RefundFilter = 'requested' | 'stuck' | 'rejected' | 'refunded';

/**
 * Refunds (voids) of completed labels. A customer asks (request): the order is marked requested, in one conditional
 * update, so concurrent asks make one request; the label provider is asked at once and then by the refund sweep (a
 * queue job) until it decides, or told by its webhook (EasyPost). Its decision is written once (settle): one
 * conditional update from requested, and for an approval one `label_refund` ledger row (unique per order), with the
 * order.refunded or order.refund_rejected event, in one transaction. A process that dies after the upstream answered
 * leaves the refund requested; the sweep takes it again and asks the upstream what became of it before asking again.
 */
export function createRefundService(deps: {
  db: Db;
  labels: LabelProvider;
  log: FastifyBaseLogger;
  outbox?: ShopEventOutbox;
  /** How long a process holds a refund while it asks the provider (LABEL_CLAIM_MS). */
  claimMs: number;
  /** When to ask again after an upstream that could not be reached (ORDER_POLL_INTERVAL_MS). */
  retryMs: number;
  windowDaysUsps: number;
  stuckHours: number;
  /** Automatic voids: days after purchase for USPS labels and for UPS/FedEx ones (0: never), and labels a run. */
  autoVoid?: { daysUsps: number; daysOthers: number; batch: number };
}) {
  const { db, labels, log } = deps;
  const outbox = deps.outbox ?? idleOutbox;

  /** Why the order cannot be refunded now, with its status code; null when it can. */
  function refusal(order: repo.OrderRow): HttpError | null {
    if (order.refund_status === 'requested') return conflict(REFUND_ALREADY_REQUESTED);
    if (order.refund_status === 'refunded') return conflict(REFUND_ALREADY_REFUNDED);
    if (order.refund_status === 'rejected') return conflict(`${REFUND_ALREADY_REJECTED}: ${order.refund_note ?? 'no reason given'}`);
    if (order.status !== 'completed') return conflict(REFUND_ONLY_COMPLETED);
    // The carrier scans a form's labels as one: the shop no longer voids them (a failed form lets them go).
    if (order.scan_form_id) return new HttpError(422, refundOnScanForm(order.scan_form_id));
    const carrier = carrierOf(order);
    if (order.tracking_status && SCANNED.includes(order.tracking_status)) return new HttpError(422, refundScanned(carrier));
    if (carrier === 'USPS' && Date.now() - Date.parse(order.created_at) > deps.windowDaysUsps * DAY_MS)
      return new HttpError(422, refundWindowPassed(deps.windowDaysUsps));
    return null;
  }

  /**
   * Writes the decision, once: from one of `from` (requested; an operator may also approve a rejected one) to refunded,
   * crediting the price with a label_refund ledger row, or to rejected with the reason. False when the order was no
   * longer in `from` (another process, a replayed event or an operator decided first).
   */
  async function settle(
    order: repo.OrderRow,
    outcome: 'refunded' | 'rejected',
    options: { reason?: string; upstream?: string; from?: RefundStatus[]; audit?: AuditHook } = {},
  ): Promise<boolean> {
    const at = nowIso();
    const event = eventRow({ type: outcome === 'refunded' ? 'order.refunded' : 'order.refund_rejected', userId: order.user_id, orderId: order.id }, at);
    const done = await db.transaction().execute(async (trx) => {
      const moved = await repo.settleRefund(trx, order.id, options.from ?? ['requested'], {
        refund_status: outcome,
        refund_note: outcome === 'rejected' ? (options.reason ?? null) : null,
        refund_updated_at: at,
        refund_due_at: null,
        ...(options.upstream ? { refund_upstream: options.upstream } : {}),
      });
      if (!moved) return false;
      let balance: number | undefined;
      if (outcome === 'refunded') {
        balance = await changeBalance(
          trx,
          {
            userId: order.user_id,
            amountCents: Number(order.price_cents),
            kind: 'label_refund',
            reference: order.id,
            note: `Refund of label ${shortId(order)}${order.tracking ? ` (${order.tracking})` : ''}`,
          },
          { shop_events: [event] },
        );
      } else {
        await recordEvents(trx, [event]);
      }
      await options.audit?.(trx, {
        targetId: order.id,
        before: { refundStatus: order.refund_status },
        after: {
          refundStatus: outcome,
          ...(options.reason ? { reason: options.reason } : {}),
          ...(balance !== undefined ? { refunded: centsToDollars(Number(order.price_cents)), balance: centsToDollars(balance) } : {}),
        },
      });
      return true;
    });
    if (done) outbox.committed([event]);
    return done;
  }

  /** Brings a requested refund to what the provider answered. */
  async function apply(order: repo.OrderRow, answer: RefundAnswer): Promise<void> {
    if (answer.status === 'refunded') await settle(order, 'refunded', { upstream: 'refunded' });
    else if (answer.status === 'rejected') await settle(order, 'rejected', { reason: answer.reason, upstream: 'rejected' });
    else await repo.refundCheckAt(db, order.id, isoIn(answer.checkInMs ?? deps.retryMs), 'submitted');
  }

  /**
   * Asks the provider about a refund this process holds: what became of an earlier ask first when one may have been
   * made (a take after the first), and a new ask only when the upstream has none. An error lets go until retryMs.
   */
  async function ask(order: repo.OrderRow): Promise<void> {
    if (!labels.requestRefund) return; // decided by an operator in the console
    const request = labelRequestFor(order);
    try {
      const earlier = order.refund_claims > 1 && labels.checkRefund ? await labels.checkRefund(request) : { status: 'none' as const };
      await apply(order, earlier.status === 'none' ? await labels.requestRefund(request) : earlier);
    } catch (error) {
      log.warn({ err: error, orderId: order.id }, 'label refund: the provider could not be asked; asked again later');
      await repo.refundCheckAt(db, order.id, isoIn(deps.retryMs));
    }
  }

  /**
   * Marks the order requested (one conditional update: a customer's request and an automatic void of one label make one
   * refund) and asks the provider. Held by this process while it asks (refund_due_at is its claim); without a provider
   * that voids, an operator decides. Undefined when the order was no longer refundable.
   */
  async function requestAndAsk(order: repo.OrderRow, automatic: boolean): Promise<repo.OrderRow | undefined> {
    const taken = await repo.requestRefund(db, order.id, nowIso(), labels.requestRefund ? isoIn(deps.claimMs) : null, automatic);
    if (taken) await ask(taken);
    return taken;
  }

  async function request(userId: string, orderId: string): Promise<RefundResult> {
    const order = await repo.findOwnOrder(db, userId, orderId);
    if (!order) throw notFound(ORDER_NOT_FOUND);
    const refused = refusal(order);
    if (refused) throw refused;
    if (!(await requestAndAsk(order, false))) throw conflict(REFUND_ALREADY_REQUESTED);
    const now = (await repo.findOrder(db, order.id))!;
    const status = now.refund_status;
    const message =
      status === 'rejected'
        ? `The refund was rejected: ${now.refund_note ?? 'no reason given'}`
        : status === 'refunded'
          ? REFUND_STATUS_LABELS.refunded
          : REFUND_REQUESTED;
    return { orderId: order.id, ok: status !== 'rejected', message, refundStatus: status };
  }

  return {
    request,

    /**
     * An operator's cancel of an order whose label the upstream had already sold (orders.cancelWaiting answered
     * 'bought', the order completed with that label): the label is voided as a customer's refund is, marked requested
     * at once (so it is never downloaded meanwhile) and asked upstream; the customer is credited (label_refund) only
     * once the upstream accepts the void, now or by the refund sweep or its webhook later. Answers where the refund
     * stands: 'refunded', 'requested' (asked, not decided yet) or 'rejected' (the label stays the customer's).
     */
    async voidSold(orderId: string, reason: string, audit: AuditHook): Promise<RefundStatus | null> {
      const at = nowIso();
      const taken = await db.transaction().execute(async (trx) => {
        const row = await repo.requestRefund(trx, orderId, at, labels.requestRefund ? isoIn(deps.claimMs) : null);
        if (row)
          await audit(trx, {
            targetId: orderId,
            before: { status: 'processing' },
            after: { status: 'completed', reason, labelSoldUpstream: true, refundStatus: 'requested' },
          });
        return row;
      });
      if (taken) await ask(taken);
      return (await repo.findOrder(db, orderId))?.refund_status ?? null;
    },

    /**
     * One run of the automatic voids (a scheduled queue job): asks the refund of each unused label old enough (see
     * repo.autoVoidCandidates), oldest first, at most `batch` a run, one at a time (the upstream's own limit paces the
     * asks), through the customer's path: the same refusals, claim, events and one credit. A rejected refund is final
     * (refund_status 'rejected'), so that label is not asked again. Answers how many it asked for.
     */
    async autoVoid(): Promise<number> {
      const settings = deps.autoVoid;
      if (!settings || !labels.requestRefund) return 0;
      const boughtBetween = (days: number, windowDays: number) =>
        days > 0 ? { before: new Date(Date.now() - days * DAY_MS).toISOString(), after: new Date(Date.now() - windowDays * DAY_MS).toISOString() } : null;
      const candidates = await repo.autoVoidCandidates(
        db,
        { usps: boughtBetween(settings.daysUsps, deps.windowDaysUsps), others: boughtBetween(settings.daysOthers, UPS_FEDEX_WINDOW_DAYS) },
        SCANNED,
        settings.batch,
      );
      let asked = 0;
      for (const order of candidates) {
        if (refusal(order)) continue;
        if (await requestAndAsk(order, true)) asked++;
      }
      if (asked) log.info({ asked }, 'automatic voids: refunds asked for unused labels');
      return asked;
    },

    /** What the automatic voids credited the user since the start of the shop's month. */
    async savedByAutoVoids(userId: string): Promise<{ saved: number; count: number; since: string }> {
      const zone = getShopTimeZone();
      const since = new Date(dayStartIn(zone, `${dayIn(zone).slice(0, 8)}01`)).toISOString();
      const { cents, count } = await repo.autoVoidSaved(db, userId, since);
      return { saved: centsToDollars(cents), count, since };
    },

    /** Several of the user's orders, each on its own: an order that cannot be refunded says why and does not stop the others. */
    async requestMany(userId: string, orderIds: string[]): Promise<RefundResult[]> {
      const results: RefundResult[] = [];
      for (const orderId of [...new Set(orderIds)]) {
        try {
          results.push(await request(userId, orderId));
        } catch (error) {
          if (!(error instanceof HttpError) || error.statusCode >= 500) throw error;
          const order = error.statusCode === 404 ? undefined : await repo.findOwnOrder(db, userId, orderId);
          results.push({ orderId, ok: false, message: error.message, refundStatus: order?.refund_status ?? null });
        }
      }
      return results;
    },

    /**
     * One round of the refund sweep (a scheduled queue job): takes the requested refunds that are due, each by one
     * process (a conditional update), and asks the provider about each. Answers how many it asked about.
     */
    async completeRefunds(): Promise<number> {
      if (!labels.requestRefund) return 0;
      let asked = 0;
      for (const due of await repo.dueRefunds(db, nowIso(), SWEEP_BATCH)) {
        const order = await repo.claimRefund(db, due.id, isoIn(deps.claimMs), nowIso());
        if (!order) continue;
        asked++;
        await ask(order);
      }
      return asked;
    },

    /**
     * An upstream's word on a refund, from its webhook: the requested refund of the order bought there as that shipment,
     * settled once. A replayed or late event finds it settled and changes nothing.
     */
    async upstreamSaid(upstream: string, shipmentRef: string, status: string): Promise<boolean> {
      const order = await repo.findByUpstreamRef(db, upstream, shipmentRef);
      if (!order || order.refund_status !== 'requested') return false;
      if (status === 'refunded') return settle(order, 'refunded', { upstream: status });
      if (status === 'rejected' || status === 'not_applicable')
        return settle(order, 'rejected', { reason: 'the carrier rejected the refund', upstream: status });
      if (status === 'submitted') await repo.refundCheckAt(db, order.id, order.refund_due_at ?? isoIn(deps.retryMs), 'submitted');
      return false;
    },

    /** The console's refund queue: requested ones (oldest first), stuck ones (requested longer than stuckHours), rejected, refunded. */
    list: (filter: RefundFilter, page: { offset: number; limit: number }) =>
      repo.listRefunds(db, filter === 'stuck' ? 'requested' : filter, page, filter === 'stuck' ? isoIn(-deps.stuckHours * 3_600_000) : undefined),

    /** Counts of refunds by state, and how many are stuck (the console's overview). */
    counts: () => repo.refundCounts(db, isoIn(-deps.stuckHours * 3_600_000)),

    /** An operator approves by hand (a requested or rejected refund): credited once; 404 unknown, 409 when not requested or rejected. */
    async approve(orderId: string, audit: AuditHook): Promise<void> {
      const order = await repo.findOrder(db, orderId);
      if (!order) throw notFound(ORDER_NOT_FOUND);
      if (!(await settle(order, 'refunded', { from: ['requested', 'rejected'], audit }))) throw conflict('Only a requested or rejected refund can be approved');
    },

    /** An operator rejects a requested refund by hand, with the reason the customer reads. */
    async reject(orderId: string, reason: string, audit: AuditHook): Promise<void> {
      const order = await repo.findOrder(db, orderId);
      if (!order) throw notFound(ORDER_NOT_FOUND);
      if (!(await settle(order, 'rejected', { reason, audit }))) throw conflict('Only a requested refund can be rejected');
    },
  };
}
export type RefundService = ReturnType<typeof createRefundService>;
