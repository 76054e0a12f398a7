import {
  LABEL_NOT_READY,
  SELECTED_LABELS_MAX,
  labelFileType,
  selectedNotReady,
  type LabelFormat,
  LABEL_REFUNDED_NO_DOWNLOAD,
  LABEL_REFUND_PENDING_NO_DOWNLOAD,
  ORDER_CANCELLED_NO_LABEL,
  ORDER_NOT_FOUND,
} from '@portal/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import { HttpError, conflict, notFound, providerUnavailable } from '../../lib/http-errors.ts';
import { LabelProviderError } from '../../providers/labels/label-provider.ts';
import type { FileStore, FileWriter } from '../../providers/storage/file-store.ts';
import { letterPdf } from '../../providers/labels/label-files.ts';
import { createPdfMerger } from '../../providers/labels/pdf-merger.ts';
import { renderZpl } from '../../providers/labels/render-zpl.ts';
import * as repo from './repository.ts';
import type { UpstreamList } from './upstreams.ts';
import { labelRequestFor } from './label-request.ts';

/** Labels laid out on Letter pages at a time: pdf-lib holds the event loop about 30 ms for 20 sandbox labels. */
const LETTER_LABELS = 20;

const PACKED_LABEL = /^(.+)#(\d+)\+(\d+)$/;

/** What ZPL conversions upstream are kept as, so a label is converted once. */
const zplKey = (orderId: string) => `labels/zpl/${orderId}.zpl`;

/** A label file to send: its bytes, name and type. */
export type LabelFile = { data: Uint8Array; fileName: string; contentType: string };

/**
 * An order's label, from its pdf_key: `<pack>#<offset>+<length>`, a part of a pack file that holds many
 * labels (FileStore.appendToPack: creating a file per label cost more than rendering it), or a file of its
 * own (orders made before packs).
 */
export function readLabel(files: FileStore, pdfKey: string): Promise<Buffer | null> {
  const packed = PACKED_LABEL.exec(pdfKey);
  return packed ? files.getRange(packed[1], Number(packed[2]), Number(packed[3])) : files.get(pdfKey);
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

/** Downloads of completed orders' labels: one order's or a selection's file, and a bulk order's labels written as one file. */
export function createLabelFiles(deps: { db: Db; labels: UpstreamList; files: FileStore; log: FastifyBaseLogger }) {
  const { db, labels, files, log } = deps;

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
    // A sandbox label (whether the shop still has the sandbox or not): rendered here, nothing to keep.
    if (order.provider === 'sandbox') return Buffer.from(renderZpl(labelRequestFor(order)));
    // Converted by the upstream it was bought at, if that one converts labels.
    if (!labels.named(order.provider)?.zplLabel) throw conflict('This label cannot be converted to ZPL; download it as PDF');
    const kept = await files.get(zplKey(order.id));
    if (kept) return kept;
    let zpl: Uint8Array;
    try {
      zpl = await labels.zplLabel!(labelRequestFor(order));
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
  };
}
export type LabelFiles = ReturnType<typeof createLabelFiles>;
