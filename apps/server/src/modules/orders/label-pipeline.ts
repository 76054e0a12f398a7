import { ORDER_NOT_FOUND, centsToDollars } from '@portal/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import { HttpError, PoolFull, conflict, notFound, providerUnavailable } from '../../lib/http-errors.ts';
import { isoIn, nowIso } from '../../lib/ids.ts';
import { eventRow, idleOutbox, type ShopEventOutbox } from '../../lib/shop-events.ts';
import { changeBalance } from '../billing/service.ts';
import { LabelProviderError, type LabelPending, type LabelReady } from '../../providers/labels/label-provider.ts';
import type { FileStore } from '../../providers/storage/file-store.ts';
import * as repo from './repository.ts';
import type { UpstreamList } from './upstreams.ts';
import { labelRequestFor } from './label-request.ts';
import type { AuditHook } from '../../lib/audit.ts';
import type { Metrics } from '../../lib/metrics.ts';
import { whenAvailable } from '../../db/unavailable.ts';

const BATCH = 50;
/** Bulk rows are claimed this many at a time, in one statement. */
const CLAIM_BATCH = 100;
/** Labels made for bulk rows are stored and recorded this many at a time (or after RECORD_WITHIN_MS): one file, one statement. */
const RECORD_BATCH = 50;
const RECORD_WITHIN_MS = 250;

const LABEL_PACKS = 'labels/packs';

export const ORDER_NOT_WAITING = 'Only a pending or processing order can be cancelled';
export const UPSTREAM_NOT_ASKED = 'The label provider could not be asked whether it sold a label for this order; nothing was changed, try again later';

/** What asking the provider about one paid order came to. */
export type LabelOutcome =
  | { status: 'completed'; tracking: string; pdf: Uint8Array; pdfKey: string }
  /** The provider makes it later; the order stays 'processing'. */
  | { status: 'processing' }
  /** The provider refused it: the order is cancelled and its price refunded. */
  | { status: 'cancelled'; message: string };

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

export type LabelPipelineDeps = {
  db: Db;
  /** The shop's upstreams, as one provider that knows where each order is bought. */
  labels: UpstreamList;
  files: FileStore;
  log: FastifyBaseLogger;
  pollMs: number;
  /**
   * claimMs: how long a process holds a waiting order while it asks the provider (LABEL_CLAIM_MS). A
   * new order is held by the request that placed it; one whose holder died is taken again once it is over.
   */
  claimMs: number;
  /** Given the events of single orders completed or cancelled once they are committed (a bulk order's rows are told as their bulk order). */
  outbox?: ShopEventOutbox;
  metrics?: Pick<Metrics, 'labels'>;
};

/**
 * The label pipeline of paid orders: buys each label at most once (asking the upstream first after a crash), stores and
 * records it, and cancels and refunds an order the upstream refuses or the shop gives up on.
 */
export function createLabelPipeline(deps: LabelPipelineDeps) {
  const { db, labels, files, log, pollMs, claimMs, metrics } = deps;
  const outbox = deps.outbox ?? idleOutbox;

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
      // Read again: the upstream and shipment it was bought as were recorded after the row in hand was read.
      const now = await repo.findOrder(db, order.id);
      if (now?.status !== 'cancelled') return;
      const answer = await labels.requestRefund(labelRequestFor(now));
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

  return {
    /** The label provider's name, written on every order row. */
    providerName: labels.name,
    /** How many labels of a bulk order are asked for at once, when the provider says (EASYPOST_CONCURRENCY). */
    labelLanes: labels.concurrency,
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

    // What placing a single order uses (placing.ts).
    makeLabel,
    unsure,
    cancelAndRefund,
    packLabel,
    completedEvent,
  };
}
export type LabelPipeline = ReturnType<typeof createLabelPipeline>;
