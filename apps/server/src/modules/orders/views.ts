import {
  CSV_PRINTED_COLUMNS,
  ORDER_NOT_FOUND,
  STARTING_AFTER_NOT_FOUND,
  centsToDollars,
  type Order,
  type OrderDetail,
  type OrderPickup,
  type TrackingStatus,
  trackingPagePath,
} from '@portal/contract';
import type { Db } from '../../db/database.ts';
import { badRequest, notFound } from '../../lib/http-errors.ts';
import * as repo from './repository.ts';
import { partyOf } from './label-request.ts';
import { isRefundHeld } from './label-files.ts';

const downloadPath = (id: string) => `/api/v1/order/download/${id}`;

/** The pickups a page of orders is on, by id (pickupsOf). */
export type OrderPickups = ReadonlyMap<string, OrderPickup>;

/** The pickups these orders are on, read at once (not one read an order). */
export async function pickupsOf(db: Db, rows: Pick<repo.OrderListRow, 'pickup_id'>[]): Promise<OrderPickups> {
  const ids = [...new Set(rows.flatMap((row) => (row.pickup_id ? [row.pickup_id] : [])))];
  const found = await repo.pickupsByIds(db, ids);
  return new Map(
    found.map((p) => [p.id, { _id: p.id, status: p.status, confirmation: p.confirmation, minDatetime: p.min_datetime, maxDatetime: p.max_datetime }]),
  );
}

/** An order as the history lists it, with the pickup it is on from `pickups` (pickupsOf of its page). */
export function toOrder(row: repo.OrderListRow, pickups: OrderPickups): Order {
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
    trackingPage: row.status === 'completed' && row.tracking_token ? trackingPagePath(row.tracking_token) : null,
    // A label whose refund is asked or made is not offered for download.
    pdf: row.status === 'completed' && row.pdf_key && !isRefundHeld(row.refund_status) ? downloadPath(row.id) : null,
    note: row.note,
    createdAt: row.created_at,
    refundStatus: row.refund_status,
    refundNote: row.refund_note,
    shipDate: row.ship_date,
    reference: row.reference1,
    reference2: row.reference2,
    scanFormId: row.scan_form_id,
    returnOf: row.return_of,
    isReturn: row.is_return === 1,
    returnId: row.return_order_id,
    insurance: row.insured_cents ? { value: centsToDollars(row.insured_cents), price: centsToDollars(row.insurance_cents) } : null,
    pickup: (row.pickup_id && pickups.get(row.pickup_id)) || null,
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

/** The reads of orders: the customer's history pages, one order, one order whole with its ledger rows, and the console's. */
export function createOrderViews(db: Db) {
  const toOrders = async (rows: repo.OrderListRow[]) => {
    const pickups = await pickupsOf(db, rows);
    return rows.map((row) => toOrder(row, pickups));
  };
  return {
    async list(userId: string, filter: repo.OrderFilter): Promise<{ orders: Order[]; totalPages: number; total: number }> {
      const { rows, total } = await repo.listOwnOrders(db, userId, filter);
      return { orders: await toOrders(rows), totalPages: Math.max(1, Math.ceil(total / filter.limit)), total };
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
      return { orders: await toOrders(rows), totalPages: Math.max(1, Math.ceil(total / filter.limit)), total, hasMore };
    },

    /** The user's own order as the history lists it; 404 for another user's. */
    async getOwn(userId: string, orderId: string): Promise<Order> {
      const order = await repo.findOwnOrder(db, userId, orderId);
      if (!order) throw notFound(ORDER_NOT_FOUND);
      return (await toOrders([order]))[0];
    },

    /**
     * The whole order with the ledger rows it caused: the user's own (another user's is not found),
     * or with userId null any customer's (the console).
     */
    async detail(userId: string | null, orderId: string, linkBase = ''): Promise<OrderDetail> {
      const row = userId === null ? await repo.findOrder(db, orderId) : await repo.findOwnOrder(db, userId, orderId);
      if (!row) throw notFound(ORDER_NOT_FOUND);
      const [ledger, [order]] = await Promise.all([repo.ledgerOfOrder(db, row), toOrders([row])]);
      return {
        order: {
          ...order,
          from: partyOf(row, 'from'),
          to: partyOf(row, 'to'),
          length: row.length,
          width: row.width,
          height: row.height,
          bulkOrderId: row.bulk_order_id,
          bulkRow: row.bulk_order_id ? row.bulk_row : null,
          updatedAt: row.updated_at,
          printedAs: await printedAsOf(row),
          toEmail: row.to_email,
          // On the shop's address (linkBase: PUBLIC_URL, or the request's own), for the customer to hand on.
          trackingUrl: order.trackingPage && `${linkBase}${order.trackingPage}`,
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

    /** The pickups a page of orders is on (the console's lists, for toOrder). */
    pickupsOf: (rows: Pick<repo.OrderListRow, 'pickup_id'>[]) => pickupsOf(db, rows),

    /** Everyone's orders, filtered, newest first, a page of them and how many in all (the console). */
    listAll: (filter: repo.AllOrdersFilter, page: { offset: number; limit: number }) => repo.listAllOrders(db, filter, page),

    /** Every status with its orders, everyone's (the console's overview). */
    countByStatus: () => repo.countByStatus(db),

    /** Any customer's order (the console), or undefined. */
    find(orderId: string): Promise<repo.OrderRow | undefined> {
      return repo.findOrder(db, orderId);
    },
  };
}
