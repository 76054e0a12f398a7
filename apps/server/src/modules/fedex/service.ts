import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import {
  FEDEX_LABEL_NOT_PDF,
  FEDEX_LINK_INVALID,
  FEDEX_ORDER_CANCELLED,
  FEDEX_ORDER_COMPLETED,
  FEDEX_ORDER_CREATED,
  FEDEX_ORDER_NOT_FOUND,
  FEDEX_ORDER_NOT_PENDING,
  FEDEX_PRICE_NOT_SET,
  centsToDollars,
  type AdminFedexOrder,
  type AdminFedexQueueResponse,
  type CreateFedexOrderInput,
  type DimensionUnit,
  type FedexCurrency,
  type FedexInvoiceItem,
  type FedexListResponse,
  type FedexOrder,
  type ShipmentPurpose,
  type WeightUnit,
} from '@portal/contract';
import type { Db } from '../../db/database.ts';
import type { AuditHook } from '../../lib/audit.ts';
import { HttpError, badRequest, conflict, notFound } from '../../lib/http-errors.ts';
import { newId, nowIso, nowIsoIncreasing, randomToken } from '../../lib/ids.ts';
import { eventRow, idleOutbox, recordEvents, type ShopEventOutbox } from '../../lib/shop-events.ts';
import type { FileStore } from '../../providers/storage/file-store.ts';
import { changeBalance } from '../billing/service.ts';
import type { OnCharged } from '../orders/service.ts';
import * as repo from './repository.ts';

/** A download link lives one to two hours: it changes once an hour, so reloading the list within the hour gives the same link. */
const LINK_PERIOD_SECONDS = 3600;

export const fedexFilePath = (id: string) => `/api/v1/fed/file/${id}`;
export const fedexInvoicePath = (id: string) => `/api/v1/fed/invoice/${id}`;
export const adminFedexInvoicePath = (id: string) => `/api/v1/admin/fedex-orders/${id}/invoice`;
/** Each upload gets its own key, so two operators completing at once never overwrite the winner's file. */
const labelKey = (id: string) => `fedex/${id.slice(0, 2)}/${id}-${randomToken(6)}.pdf`;
const shortId = (id: string) => id.slice(0, 8).toUpperCase();

/** The HMAC of a download link: the order id and the expiry (unix seconds), under a key derived from a server secret. */
export function signFileLink(secret: string, id: string, expires: number): string {
  const key = crypto.createHmac('sha256', secret).update('fedex-file-links').digest();
  return crypto.createHmac('sha256', key).update(`${id}.${expires}`).digest('base64url');
}

/** Is this a PDF: the %PDF- magic bytes, and a document pdf-lib can read. */
export async function isPdf(data: Uint8Array): Promise<boolean> {
  if (Buffer.from(data.subarray(0, 5)).toString('latin1') !== '%PDF-') return false;
  try {
    const { PDFDocument } = await import('pdf-lib'); // loaded when a FedEx label is uploaded, not at start
    return (await PDFDocument.load(data, { updateMetadata: false })).getPageCount() > 0;
  } catch {
    return false;
  }
}

export type FedexDeps = {
  db: Db;
  files: FileStore;
  log: FastifyBaseLogger;
  /** The current flat price of a FedEx order in cents (the operator's setting), or null when none is set. */
  priceCents: () => Promise<number | null>;
  /** The server secret download links are signed with. */
  linkSecret: string;
  now?: () => number;
  /** Told when an operator completes or cancels an order. */
  outbox?: ShopEventOutbox;
  /** SHOP_TIME_ZONE: the commercial invoice is dated with the day the order was placed there (UTC when unset). */
  timeZone?: string;
};

function toFedexOrder(row: repo.FedexOrderRow, file: string | null): FedexOrder {
  const items = JSON.parse(row.invoice_items) as FedexInvoiceItem[];
  const address = (side: 'from' | 'to') => ({
    name: row[`${side}_name`],
    street: row[`${side}_street`],
    street2: row[`${side}_street2`],
    city: row[`${side}_city`],
    state: row[`${side}_state`],
    zip: row[`${side}_zip`],
    phone: row[`${side}_phone`],
    email: row[`${side}_email`],
    country: row[`${side}_country`],
  });
  return {
    _id: row.id,
    uuid: row.id,
    status: row.status,
    price: centsToDollars(Number(row.price_cents)),
    note: row.note,
    createdAt: row.created_at,
    file,
    invoice: fedexInvoicePath(row.id),
    from: address('from'),
    to: address('to'),
    pickupAddress: row.pickup
      ? {
          name: row.pickup_name ?? '',
          street: row.pickup_street ?? '',
          street2: row.pickup_street2 ?? '',
          city: row.pickup_city ?? '',
          state: row.pickup_state ?? '',
          zip: row.pickup_zip ?? '',
          phone: row.pickup_phone ?? '',
          country: row.pickup_country ?? '',
        }
      : null,
    weight: row.weight,
    weightUnit: row.weight_unit as WeightUnit,
    length: row.length,
    width: row.width,
    height: row.height,
    dimensionUnit: row.dimension_unit as DimensionUnit,
    specialNotes: row.special_notes,
    signature: row.signature === 1,
    pickup: row.pickup === 1,
    pickupDate: row.pickup_date,
    pickupTime: row.pickup_time,
    pickupEndTime: row.pickup_end_time,
    timeZone: row.pickup_time_zone,
    shipmentPurpose: row.shipment_purpose as ShipmentPurpose,
    currency: row.currency as FedexCurrency,
    invoiceItems: items,
    // Summed in cents, so ten lines of 0.10 make 1.00.
    totalValue: centsToDollars(items.reduce((sum, item) => sum + item.units * Math.round(item.value * 100), 0)),
  };
}

function rowFor(id: string, userId: string, input: CreateFedexOrderInput, priceCents: number, at: string): repo.FedexOrderRow {
  const pickup = input.pickupInfo;
  return {
    id,
    user_id: userId,
    status: 'pending',
    price_cents: priceCents,
    from_name: input.fromName,
    from_street: input.fromStreet,
    from_street2: input.fromStreet2,
    from_city: input.fromCity,
    from_state: input.fromState,
    from_zip: input.fromZip,
    from_phone: input.fromPhone,
    from_email: input.fromEmail,
    from_country: input.fromCountry,
    to_name: input.toName,
    to_street: input.toStreet,
    to_street2: input.toStreet2,
    to_city: input.toCity,
    to_state: input.toState,
    to_zip: input.toZip,
    to_phone: input.toPhone,
    to_email: input.toEmail,
    to_country: input.toCountry,
    weight: input.weight,
    weight_unit: input.weightUnit,
    length: input.length,
    width: input.width,
    height: input.height,
    dimension_unit: input.dimensionUnit,
    special_notes: input.specialNotes,
    signature: input.signature ? 1 : 0,
    pickup: input.pickup ? 1 : 0,
    pickup_date: input.pickupDate,
    pickup_time: input.pickupTime,
    pickup_end_time: input.pickupEndTime,
    pickup_time_zone: input.timeZone,
    pickup_name: pickup?.name ?? null,
    pickup_street: pickup?.street ?? null,
    pickup_street2: pickup?.street2 ?? null,
    pickup_city: pickup?.city ?? null,
    pickup_state: pickup?.state ?? null,
    pickup_zip: pickup?.zip ?? null,
    pickup_phone: pickup?.phone ?? null,
    pickup_country: pickup?.country ?? null,
    shipment_purpose: input.shipmentPurpose,
    currency: input.currency,
    invoice_items: JSON.stringify(input.invoiceItems),
    note: null,
    file_key: null,
    created_at: at,
    updated_at: at,
  };
}

const totalPages = (total: number, limit: number) => Math.max(1, Math.ceil(total / limit));

export function createFedexService(deps: FedexDeps) {
  const { db, files, log } = deps;
  const now = deps.now ?? Date.now;
  const outbox = deps.outbox ?? idleOutbox;

  /** The signed, expiring path of a completed order's label; null for any other order. */
  function fileLink(row: repo.FedexOrderRow): string | null {
    if (row.status !== 'completed' || !row.file_key) return null;
    const expires = (Math.floor(now() / 1000 / LINK_PERIOD_SECONDS) + 2) * LINK_PERIOD_SECONDS;
    return `${fedexFilePath(row.id)}?expires=${expires}&signature=${signFileLink(deps.linkSecret, row.id, expires)}`;
  }

  function validLink(id: string, expires: string | undefined, signature: string | undefined): boolean {
    if (!expires || !signature || !/^\d{1,12}$/.test(expires) || Number(expires) * 1000 <= now()) return false;
    const expected = Buffer.from(signFileLink(deps.linkSecret, id, Number(expires)));
    const given = Buffer.from(signature);
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  }

  async function pendingOrder(id: string): Promise<repo.FedexOrderRow> {
    const order = await repo.findFedexOrder(db, id);
    if (!order) throw notFound(FEDEX_ORDER_NOT_FOUND);
    if (order.status !== 'pending') throw conflict(FEDEX_ORDER_NOT_PENDING);
    return order;
  }

  const invoiceFile = async (row: repo.FedexOrderRow) => ({
    fileName: `commercial-invoice-${shortId(row.id)}.pdf`,
    data: await (await import('./commercial-invoice.ts')).renderCommercialInvoice(toFedexOrder(row, null), deps.timeZone ?? 'UTC'),
  });

  return {
    /** The current price in dollars, or null when none is set. */
    async price(): Promise<number | null> {
      const cents = await deps.priceCents();
      return cents === null ? null : centsToDollars(cents);
    },

    /** Charges the current price and writes the order and its ledger row in one transaction; 402 and nothing written when the balance is short. */
    async create(userId: string, input: CreateFedexOrderInput, onCharged?: OnCharged): Promise<{ message: string; orderId: string }> {
      const priceCents = await deps.priceCents();
      if (priceCents === null || priceCents <= 0) throw conflict(FEDEX_PRICE_NOT_SET);
      const id = newId();
      await db.transaction().execute(async (trx) => {
        await onCharged?.(trx, id);
        await repo.insertFedexOrder(trx, rowFor(id, userId, input, priceCents, nowIsoIncreasing()));
        await changeBalance(trx, { userId, amountCents: -priceCents, kind: 'fedex_charge', reference: id, note: `FedEx order ${shortId(id)}` });
      });
      return { message: FEDEX_ORDER_CREATED, orderId: id };
    },

    async list(userId: string, filter: repo.FedexFilter): Promise<FedexListResponse> {
      const { rows, total } = await repo.listOwnFedexOrders(db, userId, filter);
      return { docs: rows.map((row) => toFedexOrder(row, fileLink(row))), totalPages: totalPages(total, filter.limit), totalDocs: total };
    },

    /** The label of a completed order behind a signed link; 403 for a missing, tampered or expired signature. */
    async labelByLink(id: string, expires: string | undefined, signature: string | undefined): Promise<{ fileName: string; data: Buffer }> {
      if (!validLink(id, expires, signature)) throw new HttpError(403, FEDEX_LINK_INVALID);
      const order = await repo.findFedexOrder(db, id);
      if (!order || order.status !== 'completed' || !order.file_key) throw notFound(FEDEX_ORDER_NOT_FOUND);
      const data = await files.get(order.file_key);
      if (!data) throw new HttpError(500, `Label file missing for FedEx order ${order.id}`);
      return { fileName: `fedex-${shortId(order.id)}.pdf`, data };
    },

    /** The user's own order as the Orders tab lists it (without its download link), or null for another user's. */
    async findOwn(userId: string, id: string): Promise<FedexOrder | null> {
      const order = await repo.findOwnFedexOrder(db, userId, id);
      return order ? toFedexOrder(order, null) : null;
    },

    /** The commercial invoice of the user's own order; another user's order is not found. */
    async invoiceFor(userId: string, id: string): Promise<{ fileName: string; data: Buffer }> {
      const order = await repo.findOwnFedexOrder(db, userId, id);
      if (!order) throw notFound(FEDEX_ORDER_NOT_FOUND);
      return invoiceFile(order);
    },

    // ---- The operator console ----

    /** How many orders wait for an operator (the console overview's fedexWaiting). */
    waitingCount: (): Promise<number> => repo.countPendingFedexOrders(db),

    /** Pending orders, oldest first, or (state done) completed and cancelled ones, newest first; with their owners. */
    async queue(page: number, limit: number, state: 'pending' | 'done' = 'pending'): Promise<AdminFedexQueueResponse> {
      const { rows, total } = await repo.listFedexOrdersIn(db, state, page, limit);
      const orders = rows.map((row): AdminFedexOrder => ({
        ...toFedexOrder(row, fileLink(row)),
        invoice: adminFedexInvoicePath(row.id),
        owner: { _id: row.user_id, tgId: row.owner_tg_id, username: row.owner_username },
        updatedAt: row.updated_at,
      }));
      return { orders, totalPages: totalPages(total, limit), total };
    },

    async adminInvoice(id: string): Promise<{ fileName: string; data: Buffer }> {
      const order = await repo.findFedexOrder(db, id);
      if (!order) throw notFound(FEDEX_ORDER_NOT_FOUND);
      return invoiceFile(order);
    },

    /**
     * Completes a pending order with the label an operator uploaded (checked to be a PDF). The file is
     * stored first under a key of its own; only the operator whose conditional update wins keeps it (409
     * otherwise). The audit hook writes its row in the same transaction.
     */
    async complete(id: string, upload: { label: Buffer; note: string }, audit: AuditHook): Promise<{ message: string }> {
      const order = await pendingOrder(id);
      if (!(await isPdf(upload.label))) throw badRequest(FEDEX_LABEL_NOT_PDF);
      const key = labelKey(id);
      await files.put(key, upload.label);
      const note = upload.note || null;
      const at = nowIso();
      const events = [eventRow({ type: 'fedex.completed', userId: order.user_id, fedexOrderId: id }, at)];
      try {
        await db.transaction().execute(async (trx) => {
          if (!(await repo.markFedexCompleted(trx, id, { fileKey: key, note, at }))) throw conflict(FEDEX_ORDER_NOT_PENDING);
          await audit(trx, { targetId: id, before: { status: 'pending' }, after: { status: 'completed', note, labelBytes: upload.label.length } });
          await recordEvents(trx, events);
        });
      } catch (error) {
        await files.delete(key).catch((err) => log.warn({ err, key }, 'could not remove an unused FedEx label'));
        throw error;
      }
      outbox.committed(events);
      return { message: FEDEX_ORDER_COMPLETED };
    },

    /** Cancels a pending order and refunds its price with a fedex_refund ledger row (one per order), audited in the same transaction; 409 when no longer pending. */
    async cancel(id: string, note: string, audit: AuditHook): Promise<{ message: string }> {
      const order = await pendingOrder(id);
      const at = nowIso();
      const events = [eventRow({ type: 'fedex.cancelled', userId: order.user_id, fedexOrderId: id }, at)];
      await db.transaction().execute(async (trx) => {
        if (!(await repo.markFedexCancelled(trx, id, note, at))) throw conflict(FEDEX_ORDER_NOT_PENDING);
        const priceCents = Number(order.price_cents);
        await changeBalance(
          trx,
          { userId: order.user_id, amountCents: priceCents, kind: 'fedex_refund', reference: id, note: `Refund of FedEx order ${shortId(id)}: ${note}` },
          { shop_events: events },
        );
        await audit(trx, { targetId: id, before: { status: 'pending' }, after: { status: 'cancelled', note, refunded: centsToDollars(priceCents) } });
      });
      outbox.committed(events);
      return { message: FEDEX_ORDER_CANCELLED };
    },
  };
}
export type FedexService = ReturnType<typeof createFedexService>;
