import {
  BULK_ORDER_NOT_FOUND,
  SCANNED_TRACKING_STATUSES,
  SCAN_FORM_MAX_LABELS,
  SCAN_FORM_NOT_FOUND,
  SCAN_FORM_NOT_READY,
  SCAN_FORM_NO_LABELS,
  SCAN_FORM_REFUSALS,
  UPSTREAM_TITLES,
  scanFormName,
  scanFormsMade,
  shopDay,
  type ResellerScanForm,
  type ScanForm,
  type ScanFormDetail,
  type ScanFormFrom,
  type ScanFormRequestBody,
  type ScanFormResult,
  type TodayLabelsResponse,
} from '@portal/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import { HttpError, conflict, notFound } from '../../lib/http-errors.ts';
import { isoIn, newId, nowIso } from '../../lib/ids.ts';
import { eventRow, idleOutbox, recordEvents, type ShopEventOutbox } from '../../lib/shop-events.ts';
import { LabelProviderError, type LabelParty, type LabelProvider, type ScanFormAnswer, type ScanFormRequest } from '../../providers/labels/label-provider.ts';
import type { FileStore } from '../../providers/storage/file-store.ts';
import * as orderRepo from './repository.ts';
import { carrierOf } from './refunds.ts';
import * as repo from './scan-form-repository.ts';

const SCANNED: readonly string[] = SCANNED_TRACKING_STATUSES;
const SWEEP_BATCH = 20;
const LIST_LIMIT = 100;
/** The labels a request reads at once (an IN list well under SQLite's bound variables). */
const READ_CHUNK = 500;

export const scanFormPdfPath = (id: string) => `/api/v1/scan-form/${id}/pdf`;
const pdfKeyOf = (id: string) => `scan-forms/${id}.pdf`;

/** The from address of an order, as a form groups by it (the phone is not part of the address). */
export function fromOf(order: orderRepo.OrderRow): ScanFormFrom {
  return {
    name: order.from_name,
    company: order.from_company,
    street: order.from_street,
    street2: order.from_street2,
    city: order.from_city,
    state: order.from_state,
    zip: order.from_zip,
    country: order.from_country,
  };
}
/** The same address however it was typed in case and spacing. */
const addressKey = (from: ScanFormFrom) => JSON.stringify(Object.values(from).map((value) => value.trim().replace(/\s+/g, ' ').toUpperCase()));

/** The labels one pickup takes together: one upstream, carrier and from address. */
export const groupKeyOf = (order: orderRepo.OrderRow) => JSON.stringify([order.provider, carrierOf(order), addressKey(fromOf(order))]);

const shipDayOf = (order: orderRepo.OrderRow) => order.ship_date ?? shopDay(0, Date.parse(order.created_at));

export function toScanForm(row: repo.ScanFormRow): ScanForm {
  return {
    _id: row.id,
    name: scanFormName(row.id),
    status: row.status,
    carrier: row.carrier,
    shipDate: row.ship_date,
    from: JSON.parse(row.from_json) as ScanFormFrom,
    labelCount: row.label_count,
    bulkOrderId: row.bulk_order_id,
    message: row.message,
    pdf: row.status === 'created' && row.pdf_key ? scanFormPdfPath(row.id) : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A form as the reseller API (and its webhook) shows it, with its orders; null when it is not the user's. */
export async function resellerScanFormOf(db: Db, userId: string, id: string, base: string): Promise<ResellerScanForm | null> {
  const form = await repo.findOwnForm(db, userId, id);
  if (!form) return null;
  const labels = await repo.formLabels(db, id);
  return {
    id: form.id,
    name: scanFormName(form.id),
    status: form.status,
    carrier: form.carrier,
    ship_date: form.ship_date,
    from: JSON.parse(form.from_json) as ScanFormFrom,
    label_count: form.label_count,
    order_ids: labels.map((l) => l.id),
    tracking_codes: labels.map((l) => l.tracking ?? ''),
    bulk_order_id: form.bulk_order_id,
    message: form.message,
    pdf_url: form.status === 'created' && form.pdf_key ? `${base}/api/reseller/v1/scan-form/${form.id}/pdf` : null,
    created_at: form.created_at,
  };
}

type Group = { key: string; provider: string; carrier: string; shipDate: string; from: ScanFormFrom; orders: orderRepo.OrderRow[] };

/**
 * SCAN forms: a customer's labels grouped as the carrier takes them on one form (one upstream, carrier, ship date and
 * from address; shipping today or later; not refunded; each label on one form), a form asked of the upstream per group.
 * The labels are put on the form (orders.scan_form_id) with the form's row, in one transaction, before the upstream is
 * asked; a queue job asks it, and the sweep asks again while it is creating or could not be reached. A later take of a
 * form asks the upstream what became of the earlier ask before asking again, so a lost answer makes no second form.
 * The form's PDF goes to the file store; its creation is the scan_form.created event. A failed form lets its labels go.
 */
export function createScanFormService(deps: {
  db: Db;
  labels: LabelProvider & { named(name: string): LabelProvider | undefined };
  files: FileStore;
  log: FastifyBaseLogger;
  outbox?: ShopEventOutbox;
  /** Queues the job that asks the upstream for the form (a stable id per form). */
  enqueue: (formId: string) => Promise<void>;
  /** How long a process holds a form while it asks (LABEL_CLAIM_MS). */
  claimMs: number;
  /** When to ask again after an upstream that could not be reached (ORDER_POLL_INTERVAL_MS). */
  retryMs: number;
}) {
  const { db, labels, files, log } = deps;
  const outbox = deps.outbox ?? idleOutbox;

  /** Why the label cannot go on a form, or null when it can. */
  function refusal(order: orderRepo.OrderRow, today: string): string | null {
    if (order.status !== 'completed') return SCAN_FORM_REFUSALS.notCompleted;
    if (order.refund_status) return SCAN_FORM_REFUSALS.refunded;
    if (order.is_return) return SCAN_FORM_REFUSALS.returnLabel;
    if (order.scan_form_id) return SCAN_FORM_REFUSALS.onForm(order.scan_form_id);
    if (order.tracking_status && SCANNED.includes(order.tracking_status)) return SCAN_FORM_REFUSALS.scanned;
    const day = shipDayOf(order);
    if (day < today) return SCAN_FORM_REFUSALS.shipDatePassed(day);
    if (!labels.named(order.provider)?.createScanForm) return SCAN_FORM_REFUSALS.noForms(UPSTREAM_TITLES[order.provider] ?? order.provider);
    return null;
  }

  /** The labels that can go on forms, grouped as forms take them, and the others with why. */
  function grouped(orders: orderRepo.OrderRow[]): { groups: Group[]; refused: ScanFormResult['refused'] } {
    const today = shopDay();
    const groups = new Map<string, Group>();
    const refused: ScanFormResult['refused'] = [];
    for (const order of orders) {
      const why = refusal(order, today);
      if (why) {
        refused.push({ orderId: order.id, reason: why });
        continue;
      }
      const from = fromOf(order);
      const carrier = carrierOf(order);
      const shipDate = shipDayOf(order);
      const key = JSON.stringify([order.provider, carrier, shipDate, addressKey(from)]);
      const group = groups.get(key) ?? { key, provider: order.provider, carrier, shipDate, from, orders: [] };
      group.orders.push(order);
      groups.set(key, group);
    }
    return { groups: [...groups.values()], refused };
  }

  /** The customer's orders among `ids`, in chunks; an id of nobody's or another's is refused as not found. */
  async function ownOrders(userId: string, ids: string[]): Promise<{ orders: orderRepo.OrderRow[]; missing: string[] }> {
    const unique = [...new Set(ids)];
    const orders: orderRepo.OrderRow[] = [];
    for (let i = 0; i < unique.length; i += READ_CHUNK) orders.push(...(await orderRepo.findOwnOrders(db, userId, unique.slice(i, i + READ_CHUNK))));
    const found = new Set(orders.map((o) => o.id));
    return { orders, missing: unique.filter((id) => !found.has(id)) };
  }

  /** One form for a group (at most SCAN_FORM_MAX_LABELS labels): its row and its labels, in one transaction. */
  async function makeForm(
    userId: string,
    group: Group,
    orders: orderRepo.OrderRow[],
    bulkOrderId: string | null,
  ): Promise<{ form: repo.ScanFormRow | null; taken: Set<string> }> {
    const id = newId();
    const at = nowIso();
    return db.transaction().execute(async (trx) => {
      const taken = new Set<string>();
      for (let i = 0; i < orders.length; i += READ_CHUNK)
        for (const orderId of await repo.takeLabels(
          trx,
          id,
          userId,
          orders.slice(i, i + READ_CHUNK).map((o) => o.id),
        ))
          taken.add(orderId);
      if (taken.size === 0) return { form: null, taken };
      const form: repo.ScanFormRow = {
        id,
        user_id: userId,
        status: 'creating',
        provider: group.provider,
        carrier: group.carrier,
        ship_date: group.shipDate,
        from_json: JSON.stringify(group.from),
        label_count: taken.size,
        bulk_order_id: bulkOrderId,
        upstream_ref: null,
        upstream_asked_at: null,
        pdf_key: null,
        message: null,
        // Due at once: the job (or, if it is lost, the sweep) takes it.
        due_at: at,
        claims: 0,
        created_at: at,
        updated_at: at,
      };
      await repo.insertForm(trx, form);
      return { form, taken };
    });
  }

  /** What the upstream is asked for a form: its labels with their upstream shipments and tracking numbers. */
  async function requestOf(form: repo.ScanFormRow): Promise<ScanFormRequest> {
    const from = JSON.parse(form.from_json) as ScanFormFrom;
    const party: LabelParty = { ...from, phone: '' };
    const rows = await repo.formLabels(db, form.id);
    return {
      formId: form.id,
      from: party,
      shipDate: form.ship_date,
      carrier: form.carrier,
      labels: rows.map((r) => ({ orderId: r.id, shipmentRef: r.upstream_ref, rateRef: r.upstream_rate_id, tracking: r.tracking ?? '' })),
    };
  }

  /** Fails a creating form with the upstream's reason and lets its labels go, once. */
  async function fail(form: repo.ScanFormRow, message: string): Promise<void> {
    await db.transaction().execute(async (trx) => {
      if (await repo.decideForm(trx, form.id, { status: 'failed', message, due_at: null, updated_at: nowIso() })) await repo.releaseLabels(trx, form.id);
    });
    log.info({ scanFormId: form.id }, 'SCAN form failed');
  }

  /** Brings a form to what the upstream answered: created (its PDF stored, its event written with it), failed, or asked again later. */
  async function apply(form: repo.ScanFormRow, answer: ScanFormAnswer): Promise<void> {
    if (answer.status === 'failed') return fail(form, answer.message);
    if (answer.status === 'creating') {
      await repo.setForm(db, form.id, { upstream_ref: answer.ref, due_at: isoIn(answer.checkInMs ?? deps.retryMs), updated_at: nowIso() });
      return;
    }
    // The file first: a form is never created without its PDF in the store (a crash here asks again, and finds it).
    await files.put(pdfKeyOf(form.id), answer.pdf);
    const at = nowIso();
    const event = eventRow({ type: 'scan_form.created', userId: form.user_id, scanFormId: form.id }, at);
    const done = await db.transaction().execute(async (trx) => {
      const moved = await repo.decideForm(trx, form.id, {
        status: 'created',
        upstream_ref: answer.ref,
        pdf_key: pdfKeyOf(form.id),
        due_at: null,
        updated_at: at,
      });
      if (moved) await recordEvents(trx, [event]);
      return moved;
    });
    if (done) outbox.committed([event]);
  }

  /**
   * Asks the upstream about a form this process takes (the job, or the sweep): what became of an earlier ask first, and
   * a new ask only when the upstream has none. An upstream that cannot be reached is asked again after retryMs.
   */
  async function advance(formId: string): Promise<void> {
    const form = await repo.takeForm(db, formId, nowIso(), isoIn(deps.claimMs));
    if (!form) return;
    const upstream = labels.named(form.provider);
    if (!upstream?.createScanForm) return fail(form, SCAN_FORM_REFUSALS.noForms(UPSTREAM_TITLES[form.provider] ?? form.provider));
    try {
      const request = await requestOf(form);
      const asked = form.upstream_ref !== null || form.upstream_asked_at !== null;
      let answer = asked && upstream.findScanForm ? await upstream.findScanForm(request, form.upstream_ref) : null;
      if (!answer) {
        // Recorded before the ask: if its answer is lost, the next take looks for the form before asking again.
        await repo.setForm(db, form.id, { upstream_asked_at: nowIso() });
        answer = await upstream.createScanForm(request);
      }
      await apply(form, answer);
    } catch (error) {
      if (error instanceof LabelProviderError) return fail(form, error.message);
      log.warn({ err: error, scanFormId: form.id }, 'SCAN form: the upstream could not be asked; asked again later');
      await repo.setForm(db, form.id, { due_at: isoIn(deps.retryMs), updated_at: nowIso() });
    }
  }

  async function ownForm(userId: string, id: string): Promise<repo.ScanFormRow> {
    const form = await repo.findOwnForm(db, userId, id);
    if (!form) throw notFound(SCAN_FORM_NOT_FOUND);
    return form;
  }

  return {
    /** Puts the named labels (or a bulk order's) on forms, one per group; answers the forms asked and each label refused with why. */
    async request(userId: string, body: ScanFormRequestBody): Promise<ScanFormResult> {
      let orders: orderRepo.OrderRow[];
      const refused: ScanFormResult['refused'] = [];
      if (body.bulkOrderId) {
        // Every bulk order has its rows from the start: none of this user's is no bulk order of theirs.
        orders = await db
          .selectFrom('orders')
          .selectAll()
          .where('bulk_order_id', '=', body.bulkOrderId)
          .where('user_id', '=', userId)
          .orderBy('bulk_row')
          .execute();
        if (orders.length === 0) throw notFound(BULK_ORDER_NOT_FOUND);
      } else {
        const own = await ownOrders(userId, body.orderIds!);
        orders = own.orders;
        refused.push(...own.missing.map((orderId) => ({ orderId, reason: SCAN_FORM_REFUSALS.notFound })));
      }
      const { groups, refused: notEligible } = grouped(orders);
      refused.push(...notEligible);
      const forms: repo.ScanFormRow[] = [];
      for (const group of groups)
        for (let i = 0; i < group.orders.length; i += SCAN_FORM_MAX_LABELS) {
          const part = group.orders.slice(i, i + SCAN_FORM_MAX_LABELS);
          const { form, taken } = await makeForm(userId, group, part, body.bulkOrderId ?? null);
          if (form) forms.push(form);
          // Taken meanwhile by a refund request or another form: said as it is now.
          const lost = part.filter((o) => !taken.has(o.id));
          if (lost.length > 0) {
            const now = await ownOrders(
              userId,
              lost.map((o) => o.id),
            );
            for (const order of now.orders) refused.push({ orderId: order.id, reason: refusal(order, shopDay()) ?? SCAN_FORM_REFUSALS.notCompleted });
          }
        }
      await Promise.all(forms.map((form) => deps.enqueue(form.id)));
      const labelCount = forms.reduce((sum, f) => sum + f.label_count, 0);
      // Nothing could go on a form: a refusal, naming each reason once.
      if (forms.length === 0) throw new HttpError(422, `${SCAN_FORM_NO_LABELS}: ${[...new Set(refused.map((r) => r.reason))].join('; ')}`);
      return { message: scanFormsMade(forms.length, labelCount), forms: forms.map(toScanForm), refused };
    },

    /** Today's labels: the customer's completed labels on no form, shipping today or later, grouped as forms take them. */
    async today(userId: string): Promise<TodayLabelsResponse> {
      const today = shopDay();
      const rows = await db
        .selectFrom('orders')
        .selectAll()
        .where('user_id', '=', userId)
        .where('status', '=', 'completed')
        .where('refund_status', 'is', null)
        .where('scan_form_id', 'is', null)
        .where('is_return', '=', 0)
        // Orders without a ship date shipped the day they were made: only the last two days can still be today's.
        .where((eb) => eb.or([eb('ship_date', '>=', today), eb.and([eb('ship_date', 'is', null), eb('created_at', '>=', isoIn(-2 * 86_400_000))])]))
        .orderBy('created_at')
        .limit(SCAN_FORM_MAX_LABELS * 5)
        .execute();
      const { groups } = grouped(rows);
      return {
        groups: groups.map((g) => ({
          shipDate: g.shipDate,
          carrier: g.carrier,
          from: g.from,
          labels: g.orders.map((o) => ({
            _id: o.id,
            OrderId: o.id.slice(0, 8).toUpperCase(),
            tracking: o.tracking,
            toName: o.to_name,
            labelType: o.label_type_name,
          })),
        })),
      };
    },

    async list(userId: string): Promise<ScanForm[]> {
      return (await repo.listOwnForms(db, userId, LIST_LIMIT)).map(toScanForm);
    },

    async detail(userId: string, id: string): Promise<ScanFormDetail> {
      const form = await ownForm(userId, id);
      const rows = await repo.formLabels(db, id);
      return {
        ...toScanForm(form),
        labels: rows.map((r) => ({ _id: r.id, OrderId: r.id.slice(0, 8).toUpperCase(), tracking: r.tracking, toName: r.to_name })),
      };
    },

    /** The form's PDF: 409 until it is created. */
    async pdf(userId: string, id: string): Promise<{ data: Buffer; fileName: string }> {
      const form = await ownForm(userId, id);
      if (form.status !== 'created' || !form.pdf_key)
        throw conflict(form.status === 'failed' ? `${SCAN_FORM_NOT_READY}: ${form.message ?? 'it failed'}` : SCAN_FORM_NOT_READY);
      const data = await files.get(form.pdf_key);
      if (!data) throw notFound(SCAN_FORM_NOT_FOUND);
      return { data, fileName: `${scanFormName(form.id)}.pdf` };
    },

    advance,

    /** The form as the reseller API shows it (links from `base`); null when it is not the user's. */
    resellerView: (userId: string, id: string, base: string) => resellerScanFormOf(db, userId, id, base),

    /** Asks about every creating form that is due (a crash's, an upstream's that was away, one still being made). */
    async sweep(): Promise<number> {
      const due = await repo.dueForms(db, nowIso(), SWEEP_BATCH);
      for (const { id } of due) await advance(id);
      return due.length;
    },

    /** The console: every customer's newest forms (or one customer's), with the owner. */
    async adminList(filter: { status?: repo.ScanFormRow['status']; userId?: string }) {
      return (await repo.listForms(db, LIST_LIMIT, filter)).map((row) => ({
        ...toScanForm(row),
        pdf: row.status === 'created' && row.pdf_key ? `/api/v1/admin/scan-forms/${row.id}/pdf` : null,
        owner: { _id: row.user_id, tgId: row.owner_tg_id, username: row.owner_username },
      }));
    },
    async adminPdf(id: string): Promise<{ data: Buffer; fileName: string }> {
      const form = await repo.findForm(db, id);
      if (!form?.pdf_key || form.status !== 'created') throw notFound(SCAN_FORM_NOT_FOUND);
      const data = await files.get(form.pdf_key);
      if (!data) throw notFound(SCAN_FORM_NOT_FOUND);
      return { data, fileName: `${scanFormName(form.id)}.pdf` };
    },
  };
}

export type ScanFormService = ReturnType<typeof createScanFormService>;
