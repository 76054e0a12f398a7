import {
  CSV_PRINTED_COLUMNS,
  LABEL_NOT_READY,
  SELECTED_LABELS_MAX,
  labelFileType,
  selectedNotReady,
  type LabelFormat,
  LABEL_REFUNDED_NO_DOWNLOAD,
  LABEL_REFUND_PENDING_NO_DOWNLOAD,
  ORDER_CANCELLED_NO_LABEL,
  ORDER_NOT_FOUND,
  STARTING_AFTER_NOT_FOUND,
  USPS_V9_DIMENSION,
  centsToDollars,
  countryFor,
  labelFailedMessage,
  orderIssues,
  orderIssuesMessage,
  orderRuleViolations,
  templateRequired,
  LABEL_TYPE_REQUIRED,
  weightFor,
  utcDay,
  type CreateOrderInput,
  type CreateOrderRequest,
  type Order,
  type OrderDetail,
  type OrderIssue,
  type TrackingStatus,
} from '@portal/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Trx } from '../../db/database.ts';
import { HttpError, PoolFull, badRequest, conflict, notFound, paymentRequired, providerUnavailable } from '../../lib/http-errors.ts';
import { batchedReads } from '../../lib/batched-reads.ts';
import { isoIn, newId, nowIso, nowIsoIncreasing } from '../../lib/ids.ts';
import { eventRow, idleOutbox, type ShopEventOutbox, type ShopEventRow } from '../../lib/shop-events.ts';
import { INSUFFICIENT_BALANCE, changeBalance } from '../billing/service.ts';
import { priceFor, type CatalogService, type CatalogType, type Quote } from '../catalog/service.ts';
import type { QuotedChoice, RatesService } from '../rates/service.ts';
import { LabelProviderError, type LabelPending, type LabelProvider, type LabelReady } from '../../providers/labels/label-provider.ts';
import type { FileStore, FileWriter } from '../../providers/storage/file-store.ts';
import { letterPdf } from '../../providers/labels/label-files.ts';
import { createPdfMerger } from '../../providers/labels/pdf-merger.ts';
import { renderZpl } from '../../providers/labels/render-zpl.ts';
import * as repo from './repository.ts';
import { labelRequestFor, partyOf } from './label-request.ts';
import { indexPendingOrders } from './order-search.ts';
import type { AuditHook } from '../../lib/audit.ts';
import type { Metrics } from '../../lib/metrics.ts';
import { whenAvailable } from '../../db/unavailable.ts';

const BATCH = 50;
/** Bulk rows are claimed this many at a time, in one statement. */
const CLAIM_BATCH = 100;
/** Labels made for bulk rows are stored and recorded this many at a time (or after RECORD_WITHIN_MS): one file, one statement. */
const RECORD_BATCH = 50;
const RECORD_WITHIN_MS = 250;
/** Labels laid out on Letter pages at a time: pdf-lib holds the event loop about 30 ms for 20 sandbox labels. */
const LETTER_LABELS = 20;

const LABEL_PACKS = 'labels/packs';
const PACKED_LABEL = /^(.+)#(\d+)\+(\d+)$/;

/**
 * An order's label, from its pdf_key: `<pack>#<offset>+<length>`, a part of a pack file that holds many
 * labels (FileStore.appendToPack: creating a file per label cost more than rendering it), or a file of its
 * own (orders made before packs).
 */
/** What ZPL conversions upstream are kept as, so a label is converted once. */
const zplKey = (orderId: string) => `labels/zpl/${orderId}.zpl`;

/** A label file to send: its bytes, name and type. */
export type LabelFile = { data: Uint8Array; fileName: string; contentType: string };

export function readLabel(files: FileStore, pdfKey: string): Promise<Buffer | null> {
  const packed = PACKED_LABEL.exec(pdfKey);
  return packed ? files.getRange(packed[1], Number(packed[2]), Number(packed[3])) : files.get(pdfKey);
}
const downloadPath = (id: string) => `/api/v1/order/download/${id}`;

/** A 400 naming every problem of an order: { message, errors: [{ field, message }] }. */
export const invalidOrder = (issues: OrderIssue[]) => new HttpError(400, orderIssuesMessage(issues), { details: { errors: issues } });

/** How often the order search's index takes in the orders made or changed since its last pass. */
const SEARCH_INDEX_EVERY_MS = 200;

/**
 * Brings the order search's index up to date every SEARCH_INDEX_EVERY_MS (indexPendingOrders), off the requests
 * that make orders; answers a stop that waits for a pass under way. Every process on the database may run one.
 */
export function keepSearchIndexed(db: Db, log: FastifyBaseLogger): () => Promise<void> {
  let pass: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    pass ??= indexPendingOrders(db)
      .catch((error) => log.error({ err: error }, 'the order search index could not be brought up to date'))
      .finally(() => (pass = null));
  }, SEARCH_INDEX_EVERY_MS).unref();
  return async () => {
    clearInterval(timer);
    await pass;
  };
}

/** A label whose refund is requested or made cannot be downloaded (a rejected refund gives it back). */
export const isRefundHeld = (refundStatus: string | null) => refundStatus === 'requested' || refundStatus === 'refunded';

/** The order whose label may be downloaded: 404 unknown, 409 cancelled, not made yet, or its refund asked or made. */
function downloadable(order: repo.OrderRow | undefined): repo.OrderRow & { pdf_key: string; tracking: string } {
  if (!order) throw notFound(ORDER_NOT_FOUND);
  if (order.status === 'cancelled') throw conflict(ORDER_CANCELLED_NO_LABEL);
  if (order.status !== 'completed' || !order.pdf_key || !order.tracking) throw conflict(LABEL_NOT_READY);
  if (order.refund_status === 'refunded') throw conflict(LABEL_REFUNDED_NO_DOWNLOAD);
  if (order.refund_status === 'requested') throw conflict(LABEL_REFUND_PENDING_NO_DOWNLOAD);
  return order as repo.OrderRow & { pdf_key: string; tracking: string };
}

export const ORDER_NOT_WAITING = 'Only a pending or processing order can be cancelled';
export const UPSTREAM_NOT_ASKED = 'The label provider could not be asked whether it sold a label for this order; nothing was changed, try again later';

export function toOrder(row: repo.OrderListRow): Order {
  return {
    _id: row.id,
    uuid: row.id,
    OrderId: row.id.slice(0, 8).toUpperCase(),
    user: row.user_id,
    labelType: { name: row.label_type_name, uid: row.label_type_uid },
    design: row.design,
    fromName: row.from_name,
    toName: row.to_name,
    weight: row.weight,
    price: centsToDollars(Number(row.price_cents)),
    status: row.status,
    tracking: row.tracking,
    trackingStatus: row.tracking_status as TrackingStatus | null,
    // A label whose refund is asked or made is not offered for download.
    pdf: row.status === 'completed' && row.pdf_key && !isRefundHeld(row.refund_status) ? downloadPath(row.id) : null,
    note: row.note,
    createdAt: row.created_at,
    refundStatus: row.refund_status,
    refundNote: row.refund_note,
    shipDate: row.ship_date,
    reference: row.reference1,
    reference2: row.reference2,
  };
}

/**
 * The names and address lines of an order that its label prints otherwise than typed, by their CSV column names. The
 * transliteration tables (3 MB) load with the first order read whole, not with the process.
 */
export const printedAsOf = async (row: repo.OrderRow) =>
  (await import('@portal/contract/printed-as')).printedDifferently(
    {
      FromName: row.from_name,
      FromCompany: row.from_company,
      FromStreet: row.from_street,
      FromStreet2: row.from_street2,
      FromCity: row.from_city,
      ToName: row.to_name,
      ToCompany: row.to_company,
      ToStreet: row.to_street,
      ToStreet2: row.to_street2,
      ToCity: row.to_city,
    },
    CSV_PRINTED_COLUMNS,
  );

/** The payload that orders the same thing again. */
const inputFrom = (row: repo.OrderRow): CreateOrderInput => ({
  labelType: row.label_type_id,
  design: (row.design ?? undefined) as CreateOrderInput['design'],
  Weight: row.weight,
  Length: row.length ?? undefined,
  Width: row.width ?? undefined,
  Height: row.height ?? undefined,
  FromName: row.from_name,
  FromCompany: row.from_company,
  FromStreet: row.from_street,
  FromStreet2: row.from_street2,
  FromCity: row.from_city,
  FromState: row.from_state,
  FromZip: row.from_zip,
  FromCountry: row.from_country,
  FromPhone: row.from_phone,
  ToName: row.to_name,
  ToCompany: row.to_company,
  ToStreet: row.to_street,
  ToStreet2: row.to_street2,
  ToCity: row.to_city,
  ToState: row.to_state,
  ToZip: row.to_zip,
  ToCountry: row.to_country,
  ToPhone: row.to_phone,
  // A ship date now past is not repeated: the duplicate ships today.
  ShipDate: row.ship_date && row.ship_date >= utcDay() ? row.ship_date : undefined,
  Reference: row.reference1,
  Reference2: row.reference2,
});

/** What placing an order came to: the label is made (or on its way), or the provider refused it and the order was refunded. */
export type PlaceResult = ({ ok: true } | { ok: false; message: string }) & { orderId: string; labelType: string };

/** What asking the provider about one paid order came to. */
export type LabelOutcome =
  | { status: 'completed'; tracking: string; pdf: Uint8Array; pdfKey: string }
  /** The provider makes it later; the order stays 'processing'. */
  | { status: 'processing' }
  /** The provider refused it: the order is cancelled and its price refunded. */
  | { status: 'cancelled'; message: string };

/**
 * The paid order row of an input, priced by the caller: single orders and every row of a bulk
 * order are written the same way. Country comes from the type; phone is kept for fedex_ground only;
 * USPS v9 is always 15 x 15 x 15.
 */
export function orderRowFor(
  userId: string,
  input: CreateOrderInput,
  type: { id: string; uid: string; name: string },
  priceCents: number,
  extra: {
    provider: string;
    createdAt: string;
    bulkOrderId?: string;
    bulkRow?: number;
    claimedUntil?: string;
    /** The quote it is bought under, and the quote's upstream shipment and rate when the order can reuse them. */
    quoteId?: string;
    quoted?: { shipmentRef: string; rateId: string } | null;
  },
): repo.OrderRow {
  const country = countryFor(type.uid);
  const v9 = type.uid === 'uspsv9';
  const keepPhone = type.uid === 'fedex_ground';
  return {
    id: newId(),
    user_id: userId,
    label_type_id: type.id,
    label_type_uid: type.uid,
    label_type_name: type.name,
    design: templateRequired(type.uid) ? (input.design ?? null) : null,
    weight: input.Weight,
    length: v9 ? USPS_V9_DIMENSION : (input.Length ?? null),
    width: v9 ? USPS_V9_DIMENSION : (input.Width ?? null),
    height: v9 ? USPS_V9_DIMENSION : (input.Height ?? null),
    from_name: input.FromName,
    from_company: input.FromCompany,
    from_street: input.FromStreet,
    from_street2: input.FromStreet2,
    from_city: input.FromCity,
    from_state: input.FromState,
    from_zip: input.FromZip,
    from_country: country,
    from_phone: keepPhone ? input.FromPhone : '',
    to_name: input.ToName,
    to_company: input.ToCompany,
    to_street: input.ToStreet,
    to_street2: input.ToStreet2,
    to_city: input.ToCity,
    to_state: input.ToState,
    to_zip: input.ToZip,
    to_country: country,
    to_phone: keepPhone ? input.ToPhone : '',
    price_cents: priceCents,
    status: 'pending',
    tracking: null,
    pdf_key: null,
    provider: extra.provider,
    provider_ref: null,
    note: null,
    created_at: extra.createdAt,
    updated_at: extra.createdAt,
    bulk_order_id: extra.bulkOrderId ?? null,
    bulk_row: extra.bulkRow ?? null,
    claimed_until: extra.claimedUntil ?? null,
    // Written held (by the request that places it): its first take.
    claims: extra.claimedUntil ? 1 : 0,
    shipment_id: extra.quoted?.shipmentRef ?? null,
    upstream_rate_id: extra.quoted?.rateId ?? null,
    quote_id: extra.quoteId ?? null,
    upstream_cost_cents: null,
    upstream_carrier: null,
    upstream_service: null,
    tracking_status: null,
    refund_status: null,
    refund_note: null,
    refund_requested_at: null,
    refund_updated_at: null,
    refund_due_at: null,
    refund_claims: 0,
    refund_upstream: null,
    ship_date: input.ShipDate ?? utcDay(),
    reference1: input.Reference,
    reference2: input.Reference2,
  };
}

/**
 * Writes each item with the others that come while the last batch is written (RECORD_BATCH at most), so a burst
 * of single orders costs a few files and statements, and a lone one is written at once. `write` answers each
 * item's result by its place; each caller hears its own, or the batch's error. See ARCHITECTURE.md#label-packs.
 */
function inBatches<T, R>(write: (items: T[]) => Promise<R[]>): (item: T) => Promise<R> {
  const waiting: { item: T; settle: (result: Promise<R>) => void }[] = [];
  let writing = false;
  async function writeWaiting() {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting.splice(0, RECORD_BATCH);
      const results = write(batch.map((w) => w.item));
      for (const [i, w] of batch.entries()) w.settle(results.then((all) => all[i]));
      await results.catch(() => {}); // each caller hears the error
    }
    writing = false;
  }
  return (item) =>
    new Promise((settle) => {
      waiting.push({ item, settle });
      if (!writing) void writeWaiting();
    });
}

/** A bulk order's row is refunded under its bulk order and row; a single order under its own id. */
const refundOf = (order: repo.OrderRow) =>
  order.bulk_order_id
    ? ({ kind: 'bulk_refund', reference: `${order.bulk_order_id}:${order.bulk_row}` } as const)
    : ({ kind: 'order_refund', reference: order.id } as const);

/**
 * claimMs: how long a process holds a waiting order while it asks the provider (LABEL_CLAIM_MS). A
 * new order is held by the request that placed it; one whose holder died is taken again once it is over.
 */
/** Called inside the transaction that charges an order, with its id (the reseller API records an idempotency key with the charge). */
export type OnCharged = (trx: Trx, resourceId: string) => Promise<void>;

export function createOrderService(deps: {
  db: Db;
  catalog: CatalogService;
  /** Orders bought under a quote or a strategy (cheapest, fastest). */
  rates: RatesService;
  labels: LabelProvider;
  files: FileStore;
  log: FastifyBaseLogger;
  pollMs: number;
  claimMs: number;
  /**
   * How long a single order's request waits for a label bought upstream (LABEL_WAIT_MS): past it the order is answered
   * Processing and its purchase goes on in the background, still under the request's claim. Unset: it waits.
   */
  labelWaitMs?: number;
  /** Given the events of single orders completed or cancelled once they are committed (a bulk order's rows are told as their bulk order). */
  outbox?: ShopEventOutbox;
  metrics?: Pick<Metrics, 'labels'>;
}) {
  const { db, catalog, labels, files, log, pollMs, claimMs, metrics } = deps;
  const outbox = deps.outbox ?? idleOutbox;

  /** A customer's balance as it is now; the reads of orders placed at the same moment are one statement. Only a hint: the charge decides. */
  const balanceOf = batchedReads(async (userIds) => new Map((await repo.balancesOf(db, userIds)).map((u) => [u.id, Number(u.balance_cents)])));

  /** Stores the labels together in a pack (one file, one write): the pdf_key of each. */
  async function packAll(pdfs: Uint8Array[]): Promise<string[]> {
    const { key: pack, offset: start } = await files.appendToPack(LABEL_PACKS, Buffer.concat(pdfs));
    let offset = start;
    return pdfs.map((pdf) => {
      const key = `${pack}#${offset}+${pdf.length}`;
      offset += pdf.length;
      return key;
    });
  }

  /**
   * Stores the labels together in a pack and records them on their orders in one statement, with the events of the
   * single orders among them: what each order came to.
   */
  async function storeAndRecord(made: { order: repo.OrderRow; label: LabelReady }[]): Promise<LabelOutcome[]> {
    const keys = await packAll(made.map(({ label }) => label.pdf));
    const at = nowIso();
    const events = made.filter(({ order }) => !order.bulk_order_id).map(({ order }) => completedEvent(order, at));
    const recorded = await repo.markAllCompleted(
      db,
      made.map(({ order, label }, i) => ({ id: order.id, tracking: label.tracking, pdfKey: keys[i] })),
      at,
      events,
    );
    outbox.committed(events.filter((event) => recorded.has(event.subject_id)));
    for (const { order } of made) if (!recorded.has(order.id)) void voidUnrecorded(order);
    return made.map(({ order, label }, i) => madeOutcome(order, label, keys[i], recorded.has(order.id)));
  }

  /**
   * A label bought for an order that was cancelled (and refunded) meanwhile, by an operator or a bulk order given up:
   * its postage is voided upstream, so it is not paid for twice. A void that fails is logged for the operator.
   */
  async function voidUnrecorded(order: repo.OrderRow): Promise<void> {
    if (labels.freeLabels || !labels.requestRefund) return;
    try {
      // Not recorded because another process recorded it first: that label is the order's, nothing to void.
      if ((await repo.findOrder(db, order.id))?.status !== 'cancelled') return;
      const answer = await labels.requestRefund(labelRequestFor(order));
      log.warn({ orderId: order.id, refund: answer }, 'a label bought for an order cancelled meanwhile was voided upstream');
    } catch (error) {
      log.error({ err: error, orderId: order.id }, 'a label bought for an order cancelled meanwhile could not be voided upstream: void it by hand');
    }
  }

  /** A single order's label, stored and recorded with the others that are ready meanwhile. */
  const storeLabel = inBatches(storeAndRecord);
  /** A single order's label, stored with the others that are ready meanwhile: its pdf_key. */
  const packLabel = inBatches(packAll);

  /** The event of a single order completed, written with its completion. */
  const completedEvent = (order: repo.OrderRow, at: string) => eventRow({ type: 'order.completed', userId: order.user_id, orderId: order.id }, at);
  /** The event of a single order cancelled and refunded, written with its refund; none for a bulk order's row (told as its bulk order). */
  const cancelledEvents = (order: repo.OrderRow, at: string) =>
    order.bulk_order_id ? [] : [eventRow({ type: 'order.cancelled', userId: order.user_id, orderId: order.id }, at)];

  /** A label stored and `recorded` on its order, or not recorded because the order was cancelled meanwhile (and refunded then). */
  function madeOutcome(order: repo.OrderRow, label: LabelReady, pdfKey: string, recorded: boolean): LabelOutcome {
    if (!recorded) return { status: 'cancelled', message: 'the order was cancelled while its label was made' };
    metrics?.labels.inc({ type: order.label_type_uid, outcome: 'made' });
    return { status: 'completed', tracking: label.tracking, pdf: label.pdf, pdfKey };
  }

  /**
   * The labels of bulk rows, `lanes` asked for at a time. Rows are claimed CLAIM_BATCH at a time in one
   * statement, and the labels made are stored RECORD_BATCH at a time in one file and recorded in one
   * statement, so a large order costs few writes. `onOutcome` hears each row once, in any order:
   * 'completed' once recorded, 'processing' for a row the provider makes later or another process
   * holds. After the first error no new row is started; the rows still held are let go and the error thrown.
   * See ARCHITECTURE.md#label-lanes and ARCHITECTURE.md#label-packs.
   */
  async function makeLabels(
    rows: repo.OrderRow[],
    lanes: number,
    onOutcome: (order: repo.OrderRow, outcome: LabelOutcome) => Promise<void> | void,
  ): Promise<void> {
    const claimed: repo.OrderRow[] = [];
    const held = new Set<string>();
    let nextToClaim = 0;
    let failure: { error: unknown } | null = null;
    let made: { order: repo.OrderRow; label: LabelReady }[] = [];
    let oldestMadeAt = 0;

    let claiming: Promise<void> | null = null;
    /** The next chunk of rows, claimed in one statement; rows another process holds are told 'processing'. */
    async function claimChunk(): Promise<void> {
      const chunk = rows.slice(nextToClaim, (nextToClaim += CLAIM_BATCH));
      const taken = new Map(
        (
          await repo.claimOrders(
            db,
            chunk.map((r) => r.id),
            isoIn(claimMs),
            nowIso(),
          )
        ).map((o) => [o.id, o]),
      );
      for (const row of chunk) {
        const order = taken.get(row.id);
        if (order) held.add(order.id);
        if (order) claimed.push(order);
        else await onOutcome(row, { status: 'processing' });
      }
    }
    /** The next claimed row. A lane that finds none while another lane's claim is under way waits for it rather than stopping. */
    async function take(): Promise<repo.OrderRow | undefined> {
      for (;;) {
        if (failure) return undefined;
        if (claimed.length > 0) return claimed.shift();
        if (claiming) {
          await claiming;
          continue;
        }
        if (nextToClaim >= rows.length) return undefined;
        claiming = claimChunk().finally(() => (claiming = null));
      }
    }
    async function record(batch: typeof made): Promise<void> {
      if (batch.length === 0) return;
      const outcomes = await storeAndRecord(batch);
      for (const [i, { order }] of batch.entries()) {
        held.delete(order.id);
        await onOutcome(order, outcomes[i]);
      }
    }
    async function makeOne(order: repo.OrderRow): Promise<void> {
      let result;
      try {
        result = await buyLabel(order);
      } catch (error) {
        // The renderer's queue is full: the job fails and runs again later (the rows are let go below), no row cancelled.
        if (error instanceof PoolFull) throw error;
        held.delete(order.id);
        return onOutcome(order, await refusedOrUnsure(order, error));
      }
      if (result.status === 'completed') {
        if (made.length === 0) oldestMadeAt = Date.now();
        made.push({ order, label: result });
        if (made.length >= RECORD_BATCH || Date.now() - oldestMadeAt >= RECORD_WITHIN_MS) await record(made.splice(0));
        return;
      }
      await repo.markProcessing(db, order.id, result.providerRef, nowIso(), isoIn(result.retryInMs ?? pollMs));
      held.delete(order.id);
      return onOutcome(order, { status: 'processing' });
    }
    const lane = async () => {
      try {
        for (let order = await take(); order; order = await take()) await makeOne(order);
      } catch (error) {
        failure ??= { error };
      }
    };
    try {
      await Promise.all(Array.from({ length: lanes }, lane));
      if (failure) throw (failure as { error: unknown }).error;
      await record(made.splice(0));
    } catch (error) {
      // Let go at once, so the retry need not wait for the claims to run out; when the error was the database going
      // away (a restart), as soon as it is back.
      await whenAvailable(() => repo.releaseOrders(db, [...held]), claimMs).catch(() => {});
      throw error;
    }
  }

  /**
   * Cancels a waiting order and gives its price back, once: the refund's ledger row is unique per order (or bulk row).
   * False when the order was no longer waiting. The event of a single order, and an operator's audit row, are written
   * in the same transaction.
   */
  async function refundWaiting(order: repo.OrderRow, reason: string, audit?: AuditHook): Promise<boolean> {
    const at = nowIso();
    const events = cancelledEvents(order, at);
    const refunded = await db.transaction().execute(async (trx) => {
      if (!(await repo.cancelOrder(trx, order.id, reason, at))) return false;
      const balance = await changeBalance(
        trx,
        { userId: order.user_id, amountCents: Number(order.price_cents), ...refundOf(order), note: `Refund: ${reason}` },
        { shop_events: events },
      );
      await audit?.(trx, {
        targetId: order.id,
        before: { status: order.status },
        after: { status: 'cancelled', reason, refunded: centsToDollars(Number(order.price_cents)), balance: centsToDollars(balance) },
      });
      return true;
    });
    if (refunded) outbox.committed(events);
    return refunded;
  }

  async function cancelAndRefund(order: repo.OrderRow, reason: string): Promise<LabelOutcome> {
    const refunded = await refundWaiting(order, reason);
    if (refunded) metrics?.labels.inc({ type: order.label_type_uid, outcome: 'failed' });
    return { status: 'cancelled', message: reason };
  }

  /**
   * A paid order whose purchase ended in an error that is not the upstream's refusal (a local fault while recording
   * it, or an upstream that may have sold the label before the answer was lost): the upstream may have sold it, so it
   * is never refunded here. It shows Processing with no provider reference, and the completion sweep (recheck) asks
   * the provider for the label bought under its id (findLabel) before buying or refusing it.
   */
  async function unsure(order: repo.OrderRow, error: unknown): Promise<LabelOutcome> {
    log.error({ err: error, orderId: order.id }, 'the label purchase ended in an error; the completion sweep asks the provider again');
    await repo
      .markUnsure(db, order.id, nowIso(), isoIn(pollMs))
      .catch((failed) => log.error({ err: failed, orderId: order.id }, 'the order could not be marked; its claim runs out and the sweep takes it'));
    return { status: 'processing' };
  }

  /** Only the upstream's refusal (nothing bought) cancels and refunds; any other error leaves the order to the sweep. */
  const refusedOrUnsure = (order: repo.OrderRow, error: unknown): Promise<LabelOutcome> =>
    error instanceof LabelProviderError ? cancelAndRefund(order, error.message) : unsure(order, error);

  /**
   * The label of a pending order this process holds, bought at most once whatever crashed before. Every take of an
   * order is counted before its holder asks (repo.claimOrders, in the statement that takes it, so a bulk order's rows
   * are marked a claim batch at a time at no extra statement; a single order is written already taken once). One taken
   * before may have had its label bought by a process that died before recording it: the provider is asked for that
   * label by our order id first, and only a label it does not have is bought.
   */
  async function buyLabel(order: repo.OrderRow): Promise<LabelReady | LabelPending> {
    const request = labelRequestFor(order);
    if (order.claims > 1) {
      const bought = await labels.findLabel(request);
      if (bought) return bought;
    }
    return labels.createLabel(request);
  }

  /**
   * Asks the provider for the label of a paid, pending order (buyLabel) and records what it answers: the PDF
   * stored and the order completed, 'processing' with the provider's reference, or cancelled and
   * refunded.
   */
  async function makeLabel(order: repo.OrderRow): Promise<LabelOutcome> {
    let result;
    try {
      result = await buyLabel(order);
    } catch (error) {
      // The renderer's queue is full: the order stays waiting, and the caller's job runs again later.
      if (error instanceof PoolFull) throw error;
      return refusedOrUnsure(order, error);
    }
    try {
      if (result.status === 'completed') return await storeLabel({ order, label: result });
      await repo.markProcessing(db, order.id, result.providerRef, nowIso(), isoIn(result.retryInMs ?? pollMs));
      return { status: 'processing' };
    } catch (error) {
      // Bought (or under way) upstream and not recorded here: the sweep finds it by our order id.
      return unsure(order, error);
    }
  }

  /** Runs `work` on the order only if this process can claim it; another holder (or an order no longer waiting) answers 'processing'. */
  async function whileClaimed(order: repo.OrderRow, work: (order: repo.OrderRow) => Promise<LabelOutcome>): Promise<LabelOutcome> {
    const claimed = await repo.claimOrder(db, order.id, isoIn(claimMs), nowIso());
    if (!claimed) return { status: 'processing' };
    try {
      return await work(claimed);
    } catch (error) {
      // A failed attempt lets go at once, so the retry need not wait for the lease to run out (with the database away,
      // as soon as it is back).
      await whenAvailable(() => repo.releaseOrders(db, [order.id]), claimMs).catch(() => {});
      throw error;
    }
  }

  /**
   * Buys the label of a paid order, waiting for it at most labelWaitMs: past that the order shows Processing (spec
   * status flow: the history polls it) and the purchase, still holding the order's claim, records what it comes to.
   */
  async function fulfil(order: repo.OrderRow): Promise<PlaceResult> {
    // Charged: whatever fails now, the answer is the order (Processing), never an error a client would retry and pay again.
    const making = makeLabel(order).catch((error) => unsure(order, error));
    if (deps.labelWaitMs === undefined) return placed(order, await making);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(resolve, deps.labelWaitMs, null)));
    const outcome = await Promise.race([making, late]).finally(() => clearTimeout(timer));
    if (outcome) return placed(order, outcome);
    await repo
      .markStillBuying(db, order.id, nowIso())
      .catch((error) => log.error({ err: error, orderId: order.id }, 'the order could not be shown Processing; its purchase goes on'));
    return placed(order, { status: 'processing' });
  }

  const placed = (order: repo.OrderRow, outcome: LabelOutcome): PlaceResult =>
    outcome.status === 'cancelled'
      ? { ok: false, orderId: order.id, labelType: order.label_type_uid, message: labelFailedMessage(outcome.message) }
      : { ok: true, orderId: order.id, labelType: order.label_type_uid };

  /**
   * The order's type and price, or a 400 naming every broken rule of its type at once, a weight outside its tiers among
   * them. Under a quote (or a strategy) the type is the one chosen and the price the quote's.
   */
  async function quote(input: CreateOrderInput, chosen: QuotedChoice | null): Promise<Quote> {
    const type = chosen?.type ?? (await catalog.orderableType(input.labelType));
    const issues = orderRuleViolations(input, type.uid);
    const price = chosen ? ({ ok: true, priceCents: chosen.priceCents } as const) : priceFor(type, input.Weight);
    if (!price.ok) issues.push({ field: 'Weight', message: price.message });
    if (!price.ok || issues.length > 0) throw invalidOrder(issues);
    return { type, priceCents: price.priceCents };
  }

  const inTypeUnit = async (input: CreateOrderInput & { WeightUnit: 'lb' | 'oz' }): Promise<CreateOrderInput> => ({
    ...input,
    Weight: weightFor((await catalog.orderableType(input.labelType)).uid, input.Weight, input.WeightUnit),
  });

  /**
   * The 400 of a body that failed createOrderBody: every bad field, then the rules of its label type
   * (when it names one that can be ordered) over the fields that passed, and the weight's price.
   */
  async function invalidBody(body: unknown): Promise<HttpError> {
    const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const ref = typeof fields.labelType === 'string' ? fields.labelType.trim() : '';
    let type: CatalogType | undefined;
    let typeIssue: OrderIssue | undefined;
    if (ref) {
      try {
        type = await catalog.orderableType(ref);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        typeIssue = { field: 'labelType', message: error.message };
      }
    }
    const checked = orderIssues(fields, type?.uid);
    // A quote or a strategy chooses the type: none is missing.
    const chosen = Boolean(fields.quoteId || fields.strategy);
    const issues = checked.ok ? [] : checked.issues.filter((issue) => !(chosen && issue.field === 'labelType'));
    if (typeIssue) issues.unshift(typeIssue);
    const weight = Number(fields.Weight);
    if (type && !issues.some((i) => i.field === 'Weight') && weight > 0) {
      const price = priceFor(type, weight);
      if (!price.ok) issues.push({ field: 'Weight', message: price.message });
    }
    return invalidOrder(issues.length > 0 ? issues : [{ field: null, message: 'The order is not valid' }]);
  }

  /**
   * Prices the order itself, then writes it with its charge and ledger row (all or nothing: changeBalance, whose one
   * conditional update refuses an order the balance cannot cover). A provider whose labels cost nothing is asked
   * first, and the order written once, as its answer left it: the customer's balance is read before (balanceOf), so a
   * customer who cannot pay never has labels rendered and stored. Any other provider is asked once the order is paid.
   */
  async function place(userId: string, request: CreateOrderRequest, options: { onCharged?: OnCharged } = {}): Promise<PlaceResult> {
    const chosen = request.quoteId || request.strategy ? await deps.rates.forOrder(userId, request) : null;
    if (!chosen && !request.labelType) throw invalidOrder([{ field: 'labelType', message: LABEL_TYPE_REQUIRED }]);
    // A weight given in another unit than the type's (a saved package's, in ounces for a type in pounds) is converted.
    const input =
      chosen?.input ?? (request.WeightUnit ? await inTypeUnit(request as CreateOrderInput & { WeightUnit: 'lb' | 'oz' }) : (request as CreateOrderInput));
    const { type, priceCents } = await quote(input, chosen);
    // Strictly increasing, so orders placed in one burst list in the order they were placed.
    const order = orderRowFor(userId, input, type, priceCents, {
      provider: labels.name,
      createdAt: nowIsoIncreasing(),
      claimedUntil: isoIn(claimMs),
      quoteId: chosen?.quoteId,
      quoted: chosen?.quoted,
    });
    // The quote is the order's in the transaction that charges it, so two orders never buy one quote.
    const onCharged: OnCharged | undefined = chosen
      ? async (trx, orderId) => {
          await deps.rates.use(trx, chosen.quoteId, orderId);
          await options.onCharged?.(trx, orderId);
        }
      : options.onCharged;
    const pay = (row: repo.OrderRow) => charge(row, onCharged);
    if (!labels.freeLabels) {
      await pay(order);
      return fulfil(order);
    }
    if (((await balanceOf(userId)) ?? 0) < priceCents) throw paymentRequired(INSUFFICIENT_BALANCE);
    let result;
    try {
      // No order is written before this ask, so none can be resumed to buy its label again: a crash here leaves a free
      // label made for no order, nothing charged. The one statement of a single order stays one.
      result = await labels.createLabel(labelRequestFor(order));
    } catch (error) {
      // Any other fault (the renderer's queue full: a 503 with Retry-After): nothing is written nor charged, and the
      // customer may send the order again.
      if (!(error instanceof LabelProviderError)) throw error;
      // Paid, then cancelled and refunded, as a refusal after payment is: the order and its reason stay in the history.
      await pay(order);
      return placed(order, await cancelAndRefund(order, error.message));
    }
    if (result.status === 'processing') {
      await pay({ ...order, status: 'processing', provider_ref: result.providerRef, claimed_until: isoIn(pollMs) });
      return placed(order, { status: 'processing' });
    }
    // A label stored for an order that then cannot be paid is never referenced: bytes left in a pack, no postage.
    const pdfKey = await packLabel(result.pdf);
    const completed = completedEvent(order, order.created_at);
    await charge({ ...order, status: 'completed', tracking: result.tracking, pdf_key: pdfKey, claimed_until: null }, onCharged, [completed]);
    metrics?.labels.inc({ type: order.label_type_uid, outcome: 'made' });
    outbox.committed([completed]);
    return placed(order, { status: 'processing' });
  }

  /**
   * Writes the order (and the events given: its completion) with its charge, and the caller's onCharged, in one
   * transaction: without the charge there is no order. The debit is one conditional update (changeBalance), which
   * refuses an order the balance cannot cover.
   */
  async function charge(order: repo.OrderRow, onCharged?: OnCharged, events: ShopEventRow[] = []): Promise<void> {
    const change = {
      userId: order.user_id,
      amountCents: -Number(order.price_cents),
      kind: 'order_charge',
      reference: order.id,
      note: `Order ${order.id.slice(0, 8).toUpperCase()}`,
    } as const;
    const rows = { orders: [order], shop_events: events };
    // The charge last: on PostgreSQL it locks the customer's row until commit, the next round trip.
    if (onCharged) {
      await db.transaction().execute(async (trx) => {
        await onCharged(trx, order.id);
        await changeBalance(trx, change, rows);
      });
    } else {
      await changeBalance(db, change, rows);
    }
  }

  /** Asks again about one waiting order: a pending one is sent again, a processing one is checked. */
  async function recheck(order: repo.OrderRow): Promise<LabelOutcome> {
    // Pending, or left unsure by an error after its purchase (no reference): the provider is asked for the label
    // bought under our order id first (buyLabel: the sweep's take is not the first), and only then buys or refuses.
    if (order.status === 'pending' || !order.provider_ref) return makeLabel(order);
    let result;
    try {
      result = await labels.checkLabel(labelRequestFor(order), order.provider_ref ?? '');
    } catch (error) {
      // A check that errors is asked again on a later round, not taken as a refusal.
      log.warn({ err: error, orderId: order.id }, 'label check failed');
      await repo.checkAgainAt(db, order.id, isoIn(pollMs));
      return { status: 'processing' };
    }
    if (result.status === 'completed') return storeLabel({ order, label: result }).catch((error) => unsure(order, error));
    if (result.status === 'failed') return cancelAndRefund(order, result.message);
    // A new reference (an upstream's count of failed tries) is kept; otherwise only the next check moves.
    if (result.providerRef !== order.provider_ref) await repo.markProcessing(db, order.id, result.providerRef, nowIso(), isoIn(result.retryInMs ?? pollMs));
    else await repo.checkAgainAt(db, order.id, isoIn(result.retryInMs ?? pollMs));
    return { status: 'processing' };
  }

  /** The stored 4x6 PDF of a completed order. */
  async function storedPdf(order: repo.OrderRow): Promise<Uint8Array> {
    const pdf = order.pdf_key ? await readLabel(files, order.pdf_key) : null;
    if (!pdf) throw new HttpError(500, `Label file missing for order ${order.id}`);
    return pdf;
  }

  /**
   * A completed order's label as ZPL: the sandbox's made here from the order (also for orders it made before the shop
   * moved to another provider); an upstream's converted by the provider that sold it, once, and kept.
   */
  async function zplOf(order: repo.OrderRow): Promise<Uint8Array> {
    // A sandbox label made before the shop moved to another provider: the sandbox's renderer, here.
    if (order.provider === 'sandbox' && labels.name !== 'sandbox') return Buffer.from(renderZpl(labelRequestFor(order)));
    if (order.provider !== labels.name || !labels.zplLabel) throw conflict('This label cannot be converted to ZPL; download it as PDF');
    // Rendered here (the sandbox): nothing to keep.
    if (labels.freeLabels) return labels.zplLabel(labelRequestFor(order));
    const kept = await files.get(zplKey(order.id));
    if (kept) return kept;
    let zpl: Uint8Array;
    try {
      zpl = await labels.zplLabel(labelRequestFor(order));
    } catch (error) {
      if (error instanceof LabelProviderError) throw conflict(`This label cannot be converted to ZPL: ${error.message}`);
      log.warn({ err: error, orderId: order.id }, 'ZPL conversion failed');
      throw providerUnavailable('The label provider is not available to convert the label to ZPL; try again in a moment');
    }
    await files.put(zplKey(order.id), Buffer.from(zpl));
    return zpl;
  }

  /**
   * Completed orders' labels as one file, written to `out` as it is made: 4x6 PDF pages, Letter pages of two, or ZPL.
   * Each label is read when its turn comes, and Letter pages are laid out LETTER_LABELS at a time, so a bulk order's
   * thousands hold memory and the event loop for a few labels at a time.
   */
  async function writeLabels(orders: repo.OrderRow[], format: LabelFormat, out: Pick<FileWriter, 'write'>): Promise<void> {
    if (format === 'zpl') {
      for (const order of orders) await out.write(await zplOf(order));
      return;
    }
    const merger = createPdfMerger(out);
    for (let i = 0; i < orders.length; i += format === 'pdf' ? 1 : LETTER_LABELS) {
      if (format === 'pdf') await merger.add(await storedPdf(orders[i]));
      else await merger.add(await letterPdf(await Promise.all(orders.slice(i, i + LETTER_LABELS).map(storedPdf))));
    }
    await merger.end();
  }

  /** writeLabels' file whole, for a few labels (a single order, a selection); one 4x6 label is its stored file. */
  async function labelsIn(orders: repo.OrderRow[], format: LabelFormat): Promise<Uint8Array> {
    if (orders.length === 1 && format === 'pdf') return storedPdf(orders[0]);
    const parts: Uint8Array[] = [];
    await writeLabels(orders, format, { write: async (bytes) => void parts.push(bytes) });
    return Buffer.concat(parts);
  }

  return {
    /** The label provider's name, written on every order row. */
    providerName: labels.name,
    /** How many labels of a bulk order are asked for at once, when the provider says (EASYPOST_CONCURRENCY). */
    labelLanes: labels.concurrency,
    place,
    invalidBody,
    makeLabels,
    /** Asks again about a bulk row that waits, under its claim like makeLabel. */
    recheck: (order: repo.OrderRow) => whileClaimed(order, recheck),
    /** Cancels a waiting order and refunds it (once); nothing happens to an order no longer waiting. */
    cancel: cancelAndRefund,

    /**
     * Ends a waiting order the shop gives up on (a bulk order's last attempt): a label the upstream sold under its id is
     * recorded (completed); with none, the order is cancelled and refunded once. Throws when the upstream cannot be
     * asked or the label cannot be recorded, so nothing is refunded blind and a later run asks again.
     */
    async giveUp(order: repo.OrderRow, reason: string): Promise<LabelOutcome> {
      if (!labels.freeLabels) {
        const sold = await labels.findLabel(labelRequestFor(order));
        if (sold?.status === 'processing') throw new Error(`the label provider could not be asked whether it sold the label of order ${order.id}`);
        if (sold) return storeLabel({ order, label: sold });
      }
      return cancelAndRefund(order, reason);
    },

    async duplicate(userId: string, orderId: string, onCharged?: OnCharged): Promise<PlaceResult> {
      const original = await repo.findOwnOrder(db, userId, orderId);
      if (!original) throw notFound(ORDER_NOT_FOUND);
      return place(userId, inputFrom(original), { onCharged });
    },

    async list(userId: string, filter: repo.OrderFilter): Promise<{ orders: Order[]; totalPages: number; total: number }> {
      const { rows, total } = await repo.listOwnOrders(db, userId, filter);
      return { orders: rows.map(toOrder), totalPages: Math.max(1, Math.ceil(total / filter.limit)), total };
    },

    /** A page of the user's orders after one of theirs (keyset paging, the reseller API's starting_after); 400 when `afterId` is not theirs. */
    async listAfter(
      userId: string,
      filter: repo.OrderFilter,
      afterId: string,
    ): Promise<{ orders: Order[]; totalPages: number; total: number; hasMore: boolean }> {
      const after = await repo.findOwnOrder(db, userId, afterId);
      if (!after) throw badRequest(STARTING_AFTER_NOT_FOUND);
      const { rows, total, hasMore } = await repo.listOwnOrdersAfter(db, userId, filter, after);
      return { orders: rows.map(toOrder), totalPages: Math.max(1, Math.ceil(total / filter.limit)), total, hasMore };
    },

    /** The user's own order as the history lists it; 404 for another user's. */
    async getOwn(userId: string, orderId: string): Promise<Order> {
      const order = await repo.findOwnOrder(db, userId, orderId);
      if (!order) throw notFound(ORDER_NOT_FOUND);
      return toOrder(order);
    },

    /**
     * The whole order with the ledger rows it caused: the user's own (another user's is not found),
     * or with userId null any customer's (the console).
     */
    async detail(userId: string | null, orderId: string): Promise<OrderDetail> {
      const row = userId === null ? await repo.findOrder(db, orderId) : await repo.findOwnOrder(db, userId, orderId);
      if (!row) throw notFound(ORDER_NOT_FOUND);
      const ledger = await repo.ledgerOfOrder(db, row);
      return {
        order: {
          ...toOrder(row),
          from: partyOf(row, 'from'),
          to: partyOf(row, 'to'),
          length: row.length,
          width: row.width,
          height: row.height,
          bulkOrderId: row.bulk_order_id,
          bulkRow: row.bulk_order_id ? row.bulk_row : null,
          updatedAt: row.updated_at,
          printedAs: await printedAsOf(row),
        },
        ledger: ledger.map((l) => ({
          _id: l.id,
          createdAt: l.created_at,
          kind: l.kind,
          amount: centsToDollars(Number(l.amount_cents)),
          reference: l.reference,
          note: l.note,
        })),
      };
    },

    /** Everyone's orders, filtered, newest first, a page of them and how many in all (the console). */
    listAll: (filter: repo.AllOrdersFilter, page: { offset: number; limit: number }) => repo.listAllOrders(db, filter, page),

    /** Every status with its orders, everyone's (the console's overview). */
    countByStatus: () => repo.countByStatus(db),

    /** Writes paid order rows in the caller's transaction: a bulk order writes its rows with its charge. */
    insertRows: (trx: Trx, rows: repo.OrderRow[]) => repo.insertOrders(trx, rows),

    /** Any customer's order (the console), or undefined. */
    find(orderId: string): Promise<repo.OrderRow | undefined> {
      return repo.findOrder(db, orderId);
    },

    /**
     * An operator's cancel of any customer's order still pending or processing; 404 unknown, 409 no longer waiting.
     * The upstream is asked first for a label sold under the order's id: with none, the order is cancelled and refunded
     * once ('cancelled'); with one, that label is recorded and the order completed ('bought': the caller voids it before
     * any refund). An upstream that cannot be asked: 503, nothing changed. A purchase that ends after the cancel finds
     * the order cancelled and voids its label (storeAndRecord). The sandbox sells nothing upstream: cancelled at once.
     */
    async cancelWaiting(orderId: string, reason: string, audit: AuditHook): Promise<'cancelled' | 'bought'> {
      const order = await repo.findOrder(db, orderId);
      if (!order) throw notFound(ORDER_NOT_FOUND);
      if (!repo.WAITING.includes(order.status)) throw conflict(ORDER_NOT_WAITING);
      if (!labels.freeLabels) {
        let sold: LabelReady | LabelPending | null;
        try {
          sold = await labels.findLabel(labelRequestFor(order));
          if (sold?.status === 'completed' && (await storeLabel({ order, label: sold })).status !== 'completed') throw conflict(ORDER_NOT_WAITING);
        } catch (error) {
          if (error instanceof HttpError) throw error;
          log.warn({ err: error, orderId }, 'cancel: the label provider could not be asked about the order');
          sold = { status: 'processing', providerRef: '' };
        }
        // Under way or not known: nothing is changed.
        if (sold?.status === 'processing') throw providerUnavailable(UPSTREAM_NOT_ASKED);
        if (sold) return 'bought';
      }
      if (!(await refundWaiting(order, reason, audit))) throw conflict(ORDER_NOT_WAITING);
      return 'cancelled';
    },

    /** The label PDF of the user's own completed order; with userId null, of any customer's (the console). */
    async labelPdf(userId: string | null, orderId: string): Promise<{ tracking: string; pdf: Buffer }> {
      const order = downloadable(userId === null ? await repo.findOrder(db, orderId) : await repo.findOwnOrder(db, userId, orderId));
      const pdf = await readLabel(files, order.pdf_key);
      if (!pdf) throw new HttpError(500, `Label file missing for order ${order.id}`);
      return { tracking: order.tracking, pdf };
    },

    /** The label of the user's own completed order in `format` ({tracking}.pdf or .zpl); userId null: any customer's. */
    async labelFile(userId: string | null, orderId: string, format: LabelFormat): Promise<LabelFile> {
      const order = downloadable(userId === null ? await repo.findOrder(db, orderId) : await repo.findOwnOrder(db, userId, orderId));
      const type = labelFileType(format);
      return { data: await labelsIn([order], format), fileName: `${order.tracking}.${type.extension}`, contentType: type.contentType };
    },

    /** Several of the user's own completed orders as one file in `format`, in the order given: 404 when one is not theirs, 409 when one has no label. */
    async selectedLabels(userId: string, ids: string[], format: LabelFormat): Promise<LabelFile> {
      const unique = [...new Set(ids)].slice(0, SELECTED_LABELS_MAX);
      const found = new Map((await repo.findOwnOrders(db, userId, unique)).map((order) => [order.id, order]));
      if (found.size !== unique.length) throw notFound(ORDER_NOT_FOUND);
      const orders = unique.map((id) => found.get(id)!);
      const notReady = orders.filter((order) => order.status !== 'completed' || !order.pdf_key).length;
      if (notReady > 0) throw conflict(selectedNotReady(notReady));
      orders.forEach(downloadable); // a label whose refund is asked or made is not downloaded
      const type = labelFileType(format);
      return { data: await labelsIn(orders, format), fileName: `labels.${type.extension}`, contentType: type.contentType };
    },

    labelsIn,
    /** A bulk order's labels as one file, made when downloaded (in a format other than 4x6 PDF, or without refunded rows). */
    writeLabels,

    /**
     * One round of the completion sweep (a scheduled queue job): claims single orders that are due
     * (processing ones whose check is due, and pending ones whose placing process died) and asks
     * the provider about each. A claim is a conditional update, so however many workers sweep at
     * once, each order is asked about by one of them. Answers how many orders it asked about.
     */
    async completeWaiting(): Promise<number> {
      let asked = 0;
      for (const due of await repo.claimableOrders(db, nowIso(), BATCH)) {
        const order = await repo.claimOrder(db, due.id, isoIn(claimMs), nowIso());
        if (!order) continue;
        asked++;
        try {
          await recheck(order);
        } catch (error) {
          log.error({ err: error, orderId: order.id }, 'completing order failed');
        }
      }
      return asked;
    },
  };
}
export type OrderService = ReturnType<typeof createOrderService>;

/** The provider's request for an order's label, in label-request.ts (refunds.ts uses it too). */
export { labelRequestFor };
/** Label refunds live in refunds.ts; other modules reach them through here. */
export type { RefundFilter, RefundService } from './refunds.ts';
