import {
  API_KEY_INVALID,
  API_KEY_MISSING,
  BULK_JOB_NOT_FOUND,
  BULK_ORDER_QUEUED,
  IDEMPOTENCY_KEY_IN_PROGRESS,
  IDEMPOTENCY_KEY_REUSED,
  IDEMPOTENCY_KEY_TTL_HOURS,
  LABEL_CREATED,
  centsToDollars,
  type BulkJobStatusAnswer,
  type CreateOrderInput,
  type CreateOrderRequest,
  type LabelFormat,
  type ResellerOrder,
} from '@portal/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import { HttpError, conflict, notFound, unauthorized } from '../../lib/http-errors.ts';
import { isoIn, newId, nowIso } from '../../lib/ids.ts';
import type { AuthService } from '../auth/service.ts';
import type { BulkService } from '../bulk/service.ts';
import { toLabelType, type CatalogService } from '../catalog/service.ts';
import type { RefundService } from '../orders/service.ts';
import type { OnCharged, OrderService } from '../orders/service.ts';
import { bulkJobStatusOf, resellerOrderOf } from './answers.ts';
import * as repo from './repository.ts';
import { whenAvailable } from '../../db/unavailable.ts';
import type { WebhookService } from './webhooks.ts';

export { createWebhookService, signWebhook, type WebhookService } from './webhooks.ts';

import type { ApiAnswer, Idempotency } from '../../lib/idempotency-key.ts';
export type { ApiAnswer, Idempotency };

/** A claimed key whose request has not answered for this long died with its process; the next repeat takes it over. */
export const IDEMPOTENCY_LEASE_MS = 2 * 60_000;
const PURGE_EVERY_MS = 60 * 60_000;
/** How long a paid order's answer is read again while the database is away (whenAvailable). */
const ANSWER_READ_MS = 30_000;

export function createResellerService(deps: {
  db: Db;
  auth: AuthService;
  catalog: CatalogService;
  orders: OrderService;
  bulk: BulkService;
  webhooks: WebhookService;
  refunds: RefundService;
  log: FastifyBaseLogger;
}) {
  const { db, auth, catalog, orders, bulk, log } = deps;
  let lastPurge = 0;

  function purgeExpiredKeys(): void {
    if (Date.now() - lastPurge < PURGE_EVERY_MS) return;
    lastPurge = Date.now();
    repo.deleteExpiredIdempotencyKeys(db, nowIso()).catch((error) => log.warn({ err: error }, 'expired idempotency keys could not be deleted'));
  }

  /**
   * Claims the key with a unique insert. A repeat of a finished request gets its answer again; with
   * another body, 422; while the first still runs, 409. An expired key is claimed anew; a claim whose
   * request died is taken over (answered from what it paid for, or run again when it paid nothing).
   */
  async function claim(
    userId: string,
    idempotency: Idempotency,
    recover: (resourceId: string) => Promise<ApiAnswer>,
  ): Promise<{ run: repo.IdempotencyRow } | { answer: ApiAnswer }> {
    for (let tries = 0; tries < 3; tries++) {
      const at = nowIso();
      const row: repo.IdempotencyRow = {
        id: newId(),
        user_id: userId,
        key: idempotency.key,
        fingerprint: idempotency.fingerprint,
        state: 'running',
        resource_id: null,
        status_code: null,
        response: null,
        created_at: at,
        updated_at: at,
        expires_at: isoIn(IDEMPOTENCY_KEY_TTL_HOURS * 3600_000),
      };
      if (await repo.insertIdempotencyKey(db, row)) {
        purgeExpiredKeys();
        return { run: row };
      }
      const held = await repo.findIdempotencyKey(db, userId, idempotency.key);
      if (!held) continue; // deleted meanwhile (its request failed before paying): claim it again
      if (held.expires_at <= at) {
        await repo.deleteIdempotencyKey(db, held.id, held.updated_at);
        continue;
      }
      if (held.fingerprint !== idempotency.fingerprint) throw new HttpError(422, IDEMPOTENCY_KEY_REUSED);
      if (held.state === 'done') return { answer: { statusCode: held.status_code ?? 200, body: JSON.parse(held.response ?? '{}'), replayed: true } };
      if (Date.parse(held.updated_at) > Date.now() - IDEMPOTENCY_LEASE_MS || !(await repo.retakeIdempotencyKey(db, held.id, held.updated_at, at))) {
        throw conflict(IDEMPOTENCY_KEY_IN_PROGRESS);
      }
      if (!held.resource_id) return { run: { ...held, updated_at: at } };
      const answer = await recover(held.resource_id);
      await repo.completeIdempotencyKey(db, held.id, { statusCode: answer.statusCode, response: JSON.stringify(answer.body), at: nowIso() });
      return { answer: { ...answer, replayed: true } };
    }
    throw conflict(IDEMPOTENCY_KEY_IN_PROGRESS);
  }

  /**
   * Runs a paid call at most once per Idempotency-Key: the key is claimed first, what it paid for is
   * written in the transaction of the charge (onCharged), and the answer is stored for repeats. A
   * call that fails before paying frees its key, so it can be sent again.
   */
  async function idempotent(
    userId: string,
    idempotency: Idempotency | undefined,
    run: (onCharged?: OnCharged) => Promise<ApiAnswer>,
    recover: (resourceId: string) => Promise<ApiAnswer>,
  ): Promise<ApiAnswer> {
    if (!idempotency) return run();
    const claimed = await claim(userId, idempotency, recover);
    if ('answer' in claimed) return claimed.answer;
    const { id } = claimed.run;
    let answer: ApiAnswer;
    try {
      answer = await run((trx, resourceId) => repo.setIdempotencyResource(trx, id, resourceId, nowIso()).then(() => undefined));
    } catch (error) {
      const held = await repo.findIdempotencyKey(db, userId, idempotency.key).catch(() => undefined);
      if (held?.id === id && !held.resource_id) await repo.deleteIdempotencyKey(db, id, held.updated_at).catch(() => {});
      throw error;
    }
    // Paid: the answer is given whatever happens to its record. A key left running is answered from what it paid for
    // (recover) once its lease is over.
    await repo
      .completeIdempotencyKey(db, id, { statusCode: answer.statusCode, response: JSON.stringify(answer.body), at: nowIso() })
      .catch((error) => log.error({ err: error, userId }, 'the answer of an idempotency key could not be kept'));
    return answer;
  }

  /** The order as created, with what its label prints otherwise than sent. */
  const createdOrderOf = async (userId: string, orderId: string, base: string): Promise<ResellerOrder> => {
    const { order } = await orders.detail(userId, orderId);
    return { ...resellerOrderOf(order, base), printedAs: order.printedAs };
  };

  const orderAnswer = async (userId: string, orderId: string, base: string): Promise<ApiAnswer> => ({
    statusCode: 200,
    body: { type: 'success', message: LABEL_CREATED, order: await createdOrderOf(userId, orderId, base) },
  });

  const bulkAnswer = (row: { id: string; job_id: string | null; total_cents: number; total_orders: number }): ApiAnswer => ({
    statusCode: 200,
    body: {
      type: 'success',
      message: BULK_ORDER_QUEUED,
      job_id: row.job_id ?? '',
      bulkorder_id: row.id,
      total: centsToDollars(Number(row.total_cents)),
      totalOrders: row.total_orders,
    },
  });

  return {
    webhooks: deps.webhooks,
    /** The same at-most-once mechanism for the web's own paid calls (an order, a bulk order, a FedEx order). */
    idempotent,

    /** The user of an x-api-key: 401 without one or with a wrong one (403 for a disabled account, in auth). */
    async authenticate(apiKey: string | string[] | undefined): Promise<{ id: string }> {
      if (typeof apiKey !== 'string' || apiKey.trim() === '') throw unauthorized(API_KEY_MISSING);
      const user = await auth.userForApiKey(apiKey.trim());
      if (!user) throw unauthorized(API_KEY_INVALID);
      return { id: user.id };
    },

    async labelTypes() {
      return (await catalog.enabledTypes()).map((type) => {
        const { status: _enabled, ...shown } = toLabelType(type);
        return shown;
      });
    },

    /** One label, placed by the web's own rules, prices and ledger (orders.place). A label the provider refuses is refunded and answered 502. */
    createOrder(userId: string, input: CreateOrderRequest, base: string, idempotency?: Idempotency): Promise<ApiAnswer> {
      return idempotent(
        userId,
        idempotency,
        async (onCharged) => {
          const placed = await orders.place(userId, input, { onCharged });
          if (!placed.ok) return { statusCode: 502, body: { type: 'error', message: placed.message } };
          // Charged: the order is read for its answer while the database is away (up to ANSWER_READ_MS), rather than
          // answering an error that a client without an Idempotency-Key would retry, paying twice.
          return whenAvailable(() => orderAnswer(userId, placed.orderId, base), ANSWER_READ_MS);
        },
        (orderId) => orderAnswer(userId, orderId, base),
      );
    },

    /** A return label of a completed order (its addresses swapped), placed and charged as createOrder is. */
    createReturn(userId: string, orderId: string, base: string, idempotency?: Idempotency): Promise<ApiAnswer> {
      return idempotent(
        userId,
        idempotency,
        async (onCharged) => {
          const placed = await orders.placeReturn(userId, orderId, onCharged);
          if (!placed.ok) return { statusCode: 502, body: { type: 'error', message: placed.message } };
          return whenAvailable(() => orderAnswer(userId, placed.orderId, base), ANSWER_READ_MS);
        },
        (returnId) => orderAnswer(userId, returnId, base),
      );
    },

    /** A page of orders: by page number, or after the order `startingAfter` names (keyset paging). */
    async listOrders(
      userId: string,
      filter: Parameters<OrderService['list']>[1],
      base: string,
      startingAfter?: string,
    ): Promise<{ orders: ResellerOrder[]; total: number; totalPages: number; hasMore: boolean }> {
      if (startingAfter) {
        const page = await orders.listAfter(userId, filter, startingAfter);
        return { orders: page.orders.map((order) => resellerOrderOf(order, base)), total: page.total, totalPages: page.totalPages, hasMore: page.hasMore };
      }
      const page = await orders.list(userId, filter);
      return {
        orders: page.orders.map((order) => resellerOrderOf(order, base)),
        total: page.total,
        totalPages: page.totalPages,
        hasMore: filter.page < page.totalPages,
      };
    },

    /** The 400 of a create-order body that failed its schema: every bad field and every rule of its label type at once. */
    invalidOrderBody: (body: unknown) => orders.invalidBody(body),

    /** The user's balance in dollars. */
    async balance(userId: string): Promise<number> {
      return (await auth.accessUser(userId)).balance;
    },

    /** The price now of a label of this type (uid or _id) and weight; 400 with the reason when there is none. */
    async price(ref: string, weight: number) {
      const { type, priceCents } = await catalog.quote(ref, weight);
      return { price: centsToDollars(priceCents), labelType: { uid: type.uid, name: type.name }, weight };
    },

    /** A label in `format`, or else the format chosen in Account Setting. */
    labelFile: async (userId: string, orderId: string, format?: LabelFormat) => orders.labelFile(userId, orderId, format ?? (await auth.labelFormatOf(userId))),
    /** Label refunds (voids), as the web asks them. */
    refunds: deps.refunds,

    /** A bulk order from objects: the CSV's row checks, one charge, always a queued job. */
    createBulkOrder(
      userId: string,
      input: { labelType: string; design?: CreateOrderInput['design']; rows: Record<string, unknown>[] },
      idempotency?: Idempotency,
    ): Promise<ApiAnswer> {
      return idempotent(
        userId,
        idempotency,
        async (onCharged) => bulkAnswer(await bulk.createFromRows(userId, input, { onCharged })),
        async (bulkOrderId) => {
          const own = await bulk.findOwn(userId, bulkOrderId);
          if (!own) throw new Error(`bulk order ${bulkOrderId} of an idempotency key is missing`);
          return bulkAnswer(own);
        },
      );
    },

    /** The job of the user's own bulk order; another user's job is not found. */
    async bulkJobStatus(userId: string, jobId: string, base: string): Promise<BulkJobStatusAnswer> {
      const found = await bulk.findOwnJob(userId, jobId);
      if (!found) throw notFound(BULK_JOB_NOT_FOUND);
      return bulkJobStatusOf(found.bulk, found.job, base);
    },

    queueStats: () => bulk.queueCounts(),

    bulkZip: async (userId: string, bulkOrderId: string, format?: LabelFormat) =>
      bulk.file(userId, bulkOrderId, 'zip', format ?? (await auth.labelFormatOf(userId))),
  };
}
export type ResellerService = ReturnType<typeof createResellerService>;
