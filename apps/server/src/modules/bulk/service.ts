import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import type { FastifyBaseLogger } from 'fastify';
import type { AddressVerifier } from '../addresses/service.ts';
import {
  BULK_LIST_LIMIT,
  BULK_NOT_READY,
  BULK_NO_LABELS,
  BULK_ORDER_NOT_FOUND,
  BULK_QUEUE_THRESHOLD,
  CSV_COLUMNS,
  CSV_VALIDATED,
  ORDERS_CREATED,
  PLEASE_SELECT_CSV_FILE,
  CSV_FILE_EMPTY,
  PRICES_CHANGED,
  TEMPLATE_REQUIRED,
  bulkDownloadPaths,
  centsToDollars,
  countryFor,
  createOrderFromCsvFields,
  dollarsToCents,
  isBulkFinished,
  templateRequired,
  validateCsvFields,
  type BulkOrder,
  type CreateOrderInput,
  CSV_PRINTED_COLUMNS,
  CSV_HAS_ERRORS,
  orderRuleViolations,
  type CsvRowError,
  type ValidateCsvResponse,
  labelFileType,
  type LabelFormat,
} from '@portal/contract';
import type { Db } from '../../db/database.ts';
import { HttpError, badRequest, conflict, notFound } from '../../lib/http-errors.ts';
import { newId, nowIso, nowIsoIncreasing } from '../../lib/ids.ts';
import { eventRow, idleOutbox, recordEvents, type ShopEventOutbox } from '../../lib/shop-events.ts';
import { MAX_ATTEMPTS, type JobContext, type JobCounts, type JobInfo, type JobQueue } from '../../queue/job-queue.ts';
import { openFileWriter, type FileStore } from '../../providers/storage/file-store.ts';
import { changeBalance } from '../billing/service.ts';
import { insurancePriceFor, type CatalogService, type CatalogType } from '../catalog/service.ts';
import { isRefundHeld, orderRowFor, readLabel, type BulkOrderPort, type LabelOutcome, type OnCharged } from '../orders/service.ts';
import type { OrdersTable as OrderRow } from '../../db/schema.ts';
import { eachLimited } from '../../lib/each-limited.ts';
import { CsvFileError, checkBulkRows, readBulkFile, readCsvTable, type BulkFileRow } from './bulk-file.ts';
import type { RatesService } from '../rates/service.ts';
import { toCsv } from '../../lib/csv.ts';
import { buildReport, createBulkFilesWriter, createLabelZip, streamedFile, uniqueFileNames } from './bulk-results.ts';
import * as repo from './repository.ts';
import type { Metrics } from '../../lib/metrics.ts';
import type { Readable } from 'node:stream';

/** Labels asked for at a time within one bulk order: enough to keep the render threads (or an upstream API) busy. See ARCHITECTURE.md#label-lanes. */
export const BULK_LABEL_LANES = 8;
/** A bulk order still processing that nothing moved for this long lost its runner, and is queued again when workers start. */
export const STALLED_BULK_MS = 2 * 60_000;
/** Progress is written at most this often while labels are made (stage marks are always written). */
const PROGRESS_EVERY_MS = 250;

/** The queue's jobs (jobs.ts hands them to the service): a bulk order's run, and the sweep of stalled ones. */
export const BULK_ORDER_JOB = 'bulk-order';
export const BULK_SWEEP_JOB = 'bulk-sweep';

export const bulkJobId = (bulkOrderId: string) => `bulk-${bulkOrderId}`;
export const bulkFileKey = (bulkOrderId: string, name: string) => `bulk/${bulkOrderId}/${name}`;

/** A multipart upload as the route read it: text fields and the `csv` file (null when none was sent). */
export type BulkUpload = { fields: Record<string, string>; csv: Buffer | null };
export type BulkFileKind = 'zip' | 'csv' | 'pdf';
export const BULK_FILE_TYPES: Record<BulkFileKind, { fileName: string; contentType: string }> = {
  zip: { fileName: 'label.zip', contentType: 'application/zip' },
  csv: { fileName: 'label.csv', contentType: 'text/csv; charset=utf-8' },
  pdf: { fileName: 'label.pdf', contentType: 'application/pdf' },
};

type Progress = Pick<JobContext, 'updateProgress'>;

function fieldsOf<T>(schema: z.ZodType<T>, fields: Record<string, string>): T {
  const parsed = schema.safeParse(fields);
  if (!parsed.success) throw badRequest(parsed.error.issues[0].message);
  return parsed.data;
}

function csvOf(upload: BulkUpload): Buffer {
  if (!upload.csv) throw badRequest(PLEASE_SELECT_CSV_FILE);
  if (upload.csv.length === 0) throw badRequest(CSV_FILE_EMPTY);
  return upload.csv;
}

/** How long a signed download link of a bulk file works: long enough to start the download. */
const SIGNED_LINK_SECONDS = 300;

export function createBulkService(deps: {
  db: Db;
  catalog: CatalogService;
  orders: BulkOrderPort;
  /** Rows whose Service is a strategy (cheapest, fastest) are quoted one by one. */
  rates: RatesService;
  files: FileStore;
  queue: JobQueue;
  log: FastifyBaseLogger;
  /** Names the rows whose addresses the carrier does not know in a validation (EASYPOST_VERIFY_ADDRESSES). */
  addressVerifier?: AddressVerifier;
  /** How often labels the provider makes later are asked about. */
  pollMs: number;
  /** Given the event of a bulk order that ended (completed or failed) once it is committed. */
  outbox?: ShopEventOutbox;
  metrics?: Pick<Metrics, 'bulkDuration'>;
  /** Downloads go straight to the file store by a signed link, where it has them (S3_SIGNED_DOWNLOADS). */
  signedDownloads?: boolean;
}) {
  const { db, catalog, orders, files, queue, log, pollMs, metrics } = deps;
  const outbox = deps.outbox ?? idleOutbox;
  /** Rows quoted at once for their strategy, when the provider sets no concurrency of its own. */
  const STRATEGY_LANES = 8;

  /** The orderable type a row's Service names, by uid or id (the catalog read once per file). */
  async function typeLookup(): Promise<(ref: string) => CatalogType | undefined> {
    const types = await catalog.enabledTypes();
    return (ref) => types.find((t) => t.uid === ref || t.id === ref);
  }

  /**
   * Quotes each row whose Service is a strategy and buys it as the type the quote chooses, at its price (one ask of the
   * provider a row, STRATEGY_LANES at once): a row no type can take, or whose fields break its chosen type's rules, is
   * named like any bad row, with every other. Answers the file with those rows priced and the new total.
   */
  async function resolveStrategies<T extends { rows: BulkFileRow[]; totalCents: number }>(userId: string, file: T): Promise<T> {
    const waiting = file.rows.filter((r) => r.strategy);
    if (waiting.length === 0) return file;
    const errors: CsvRowError[] = [];
    await eachLimited(waiting, orders.labelLanes ?? STRATEGY_LANES, async (row) => {
      try {
        const choice = await deps.rates.forOrder(userId, { ...row.input, labelType: undefined, strategy: row.strategy, WeightUnit: 'lb' });
        for (const issue of orderRuleViolations(choice.input, choice.type.uid))
          errors.push({ row: row.row, column: issue.field, message: `${choice.type.name}: ${issue.message}` });
        Object.assign(row, {
          input: choice.input,
          type: choice.type,
          priceCents: choice.priceCents,
          quote: { quoteId: choice.quoteId, quoted: choice.quoted },
        });
      } catch (error) {
        if (!(error instanceof HttpError) || error.statusCode !== 400) throw error;
        errors.push({ row: row.row, column: 'Service', message: error.message });
      }
    });
    if (errors.length > 0)
      throw new CsvFileError(
        CSV_HAS_ERRORS(new Set(errors.map((e) => e.row)).size),
        errors.sort((a, b) => a.row - b.row),
      );
    return { ...file, totalCents: file.rows.reduce((sum, r) => sum + r.priceCents, 0) };
  }

  /**
   * Prices each row's insurance (its Insurance column) by the shop's rule, on top of its label: a value the shop does
   * not insure is named like any bad row. Answers the file with the new total. The last step of pricing a file.
   */
  function withInsurance<T extends { rows: BulkFileRow[]; totalCents: number }>(file: T): T {
    const errors: CsvRowError[] = [];
    for (const row of file.rows) {
      if (!row.input.Insurance) continue;
      const insurance = insurancePriceFor(catalog.insurance, dollarsToCents(row.input.Insurance));
      if (insurance.ok) row.insuranceCents = insurance.priceCents;
      else errors.push({ row: row.row, column: 'Insurance', message: insurance.message, value: String(row.input.Insurance) });
    }
    if (errors.length > 0) throw new CsvFileError(CSV_HAS_ERRORS(errors.length), errors);
    return { ...file, totalCents: file.rows.reduce((sum, r) => sum + r.priceCents + (r.insuranceCents ?? 0), 0) };
  }

  /** A checked file priced whole: its strategies' rows quoted, then every row's insurance. */
  const priced = async <T extends { rows: BulkFileRow[]; totalCents: number }>(userId: string, file: T): Promise<T> =>
    withInsurance(await resolveStrategies(userId, file));

  /**
   * The merged file or the ZIP of a finished bulk order made from its rows' labels when asked: in a format other than
   * the 4x6 PDF its files were written in (Letter pages of two, or ZPL), or without the labels whose refund is asked
   * or made. The ZIP's entries are one label each and the report. Streamed as it is made; its first bytes are made
   * before answering, so a file that cannot be made at all (a label ZPL cannot be had for) answers its error.
   */
  async function filesIn(bulk: repo.BulkOrderRow, kind: 'zip' | 'pdf', format: LabelFormat) {
    const rows = (await repo.bulkRows(db, bulk.id)).filter((row) => row.status === 'completed' && row.pdf_key && !isRefundHeld(row.refund_status));
    if (kind === 'pdf' && rows.length === 0) throw notFound(BULK_NO_LABELS);
    const type = labelFileType(format);
    const out = streamedFile();
    const writing =
      kind === 'pdf'
        ? orders.writeLabels(rows, format, out)
        : (async () => {
            const zip = createLabelZip(out);
            const fileName = uniqueFileNames(type.extension);
            for (const row of rows) await zip.add(fileName({ tracking: row.tracking, bulkRow: row.bulk_row }), await orders.labelsIn([row], format));
            const report = bulk.report_key ? await files.get(bulk.report_key) : null;
            await zip.end({ name: 'label.csv', csv: report ?? Buffer.alloc(0) });
          })();
    let answered = false;
    void writing.then(
      () => out.stream.end(),
      (error) => {
        if (answered) log.warn({ err: error, bulkOrderId: bulk.id }, 'a bulk order file stopped while it was sent');
        out.stream.destroy(answered ? error : undefined);
      },
    );
    await Promise.race([out.started, writing]);
    answered = true;
    return kind === 'pdf'
      ? { data: out.stream, fileName: `label.${type.extension}`, contentType: type.contentType }
      : { data: out.stream, ...BULK_FILE_TYPES.zip };
  }

  /** Ends a bulk order (its files and counts) and writes its bulk.completed event in the same transaction. */
  async function finish(bulk: Pick<repo.BulkOrderRow, 'id' | 'user_id'>, done: Parameters<typeof repo.markBulkFinished>[2]): Promise<void> {
    const events = [eventRow({ type: 'bulk.completed', userId: bulk.user_id, bulkOrderId: bulk.id }, done.at)];
    await db.transaction().execute(async (trx) => {
      await repo.markBulkFinished(trx, bulk.id, done);
      await recordEvents(trx, events);
    });
    outbox.committed(events);
  }

  /** Writes progress to the bulk order (what read-bulk-orders shows) and to its job; never backwards, at most every 250 ms unless forced. */
  function progressWriter(bulkOrderId: string, job: Progress | null) {
    let last = -1;
    let lastAt = 0;
    return async (percent: number, force = false) => {
      const value = Math.min(100, Math.floor(percent));
      const now = Date.now();
      if (value <= last || (!force && now - lastAt < PROGRESS_EVERY_MS)) return;
      last = value;
      lastAt = now;
      await Promise.all([repo.setProgress(db, bulkOrderId, value, nowIso()), job?.updateProgress(value)]);
    };
  }

  /**
   * Makes every label of a bulk order not made yet and then its files. Safe to run again after a
   * crash at any point: a row whose label is recorded is never asked for again, a refund is unique
   * per row, and the files are written whole again.
   * Stages (spec): 0-80% labels, 85% CSV report, 90% merged PDF, 95% ZIP, 98% database update, 100% done.
   * The merged PDF and the ZIP are written while the labels are made; their stages end them.
   */
  async function processBulk(
    bulkOrderId: string,
    job: Progress | null,
    options: { waitForProvider: boolean; ending?: { status: 'failed'; note: string } } = { waitForProvider: true },
  ): Promise<'completed' | 'waiting'> {
    const bulk = await repo.findBulkOrder(db, bulkOrderId);
    if (!bulk || isBulkFinished(bulk.status)) return 'completed';
    const started = performance.now();
    const progress = progressWriter(bulkOrderId, job);
    const rows = await repo.bulkRows(db, bulkOrderId);
    const indexOf = new Map(rows.map((row, i) => [row.id, i]));
    const pdfKey = bulkFileKey(bulkOrderId, 'label.pdf');
    const zipKey = bulkFileKey(bulkOrderId, 'label.zip');
    // The merged PDF and the ZIP are written while the labels are made, each label as soon as the rows above it are done.
    const output = createBulkFilesWriter(rows.length, { pdf: openFileWriter(files, pdfKey), zip: openFileWriter(files, zipKey) }, async (key) => {
      const pdf = await readLabel(files, key);
      if (!pdf) throw new Error(`Label file ${key} of bulk order ${bulkOrderId} is missing`);
      return pdf;
    });
    const settled = new Set<string>();
    /** Row `order` is done: its label goes into the files (read back from the store when `pdf` is null), or none. */
    const settle = (order: OrderRow, label: { tracking: string | null; pdf: Uint8Array | null; pdfKey: string | null } | null) => {
      settled.add(order.id);
      output.settle(indexOf.get(order.id)!, label && { ...label, bulkRow: order.bulk_row });
    };
    const settleAsStored = (order: OrderRow) =>
      settle(order, order.status === 'completed' && order.pdf_key ? { tracking: order.tracking, pdf: null, pdfKey: order.pdf_key } : null);
    try {
      const total = Math.max(1, rows.length);
      // Labels made by an earlier run (before a crash) are read back from the store.
      for (const order of rows) if (order.status === 'completed' || order.status === 'cancelled') settleAsStored(order);
      await progress((80 * settled.size) / total, true);
      const record = async (order: OrderRow, outcome: LabelOutcome) => {
        if (outcome.status === 'processing') return;
        // Not made by this run: the row was cancelled, or another process that took it after this run's claim ran out
        // (a slow machine) recorded its label first, and that label goes into the files.
        const recordedElsewhere = outcome.status === 'cancelled' ? await repo.findBulkRow(db, order.id) : undefined;
        if (recordedElsewhere?.status === 'completed') settleAsStored(recordedElsewhere);
        else settle(order, outcome.status === 'completed' ? { tracking: outcome.tracking, pdf: outcome.pdf, pdfKey: outcome.pdfKey } : null);
        await progress((80 * settled.size) / total);
      };
      await orders.makeLabels(
        rows.filter((r) => r.status === 'pending'),
        orders.labelLanes ?? BULK_LABEL_LANES,
        record,
      );
      // Labels the provider makes later (or rows another process held for a moment) are asked about until each is made or refused.
      for (;;) {
        const waiting = await repo.waitingBulkRows(db, bulkOrderId);
        if (waiting.length === 0) break;
        if (!options.waitForProvider) {
          await output.abort();
          return 'waiting';
        }
        await sleep(pollMs);
        await eachLimited(waiting, orders.labelLanes ?? BULK_LABEL_LANES, async (order) => record(order, await orders.recheck(order)));
      }
      await progress(80, true);
      const labelsDone = performance.now();

      const final = await repo.bulkRows(db, bulkOrderId);
      // A row another process finished (it held the row's claim) is settled as the database has it.
      for (const order of final) if (!settled.has(order.id)) settleAsStored(order);
      const input = await files.get(bulk.input_key);
      if (!input) throw new Error(`Input file of bulk order ${bulkOrderId} is missing`);
      const report = Buffer.from(buildReport(await readCsvTable(input), new Map(final.map((o) => [o.bulk_row!, o]))));
      const reportKey = bulkFileKey(bulkOrderId, 'label.csv');
      await files.put(reportKey, report);
      await progress(85, true);
      const reportDone = performance.now();

      const { pages } = await output.finishPdf();
      await progress(90, true);
      const pdfDone = performance.now();
      await output.finishZip({ name: 'label.csv', csv: report });
      await progress(95, true);
      const zipDone = performance.now();

      await progress(98, true);
      const made = final.filter((o) => o.status === 'completed' && o.pdf_key);
      const failed = final.filter((o) => o.status === 'cancelled');
      await finish(bulk, {
        // Not one label made (every row refunded): the order failed, it did not complete.
        status: options.ending?.status ?? (made.length === 0 && failed.length > 0 ? 'failed' : 'completed'),
        reportKey,
        pdfKey: pages > 0 ? pdfKey : null,
        zipKey,
        made: made.length,
        failed: failed.length,
        refundedCents: failed.reduce((sum, o) => sum + Number(o.price_cents), 0),
        note: options.ending?.note ?? (made.length === 0 && failed.length > 0 ? 'Every label failed; each row was refunded' : null),
        at: nowIso(),
      });
      await job?.updateProgress(100);
      metrics?.bulkDuration.observe((performance.now() - started) / 1000);
      const ms = (a: number, b: number) => Math.round(b - a);
      log.info(
        {
          bulkOrderId,
          rows: rows.length,
          made: made.length,
          failed: failed.length,
          ms: {
            labels: ms(started, labelsDone),
            report: ms(labelsDone, reportDone),
            pdf: ms(reportDone, pdfDone),
            zip: ms(pdfDone, zipDone),
            db: ms(zipDone, performance.now()),
            total: ms(started, performance.now()),
          },
        },
        'bulk order completed',
      );
      return 'completed';
    } catch (error) {
      await output.abort();
      throw error;
    }
  }

  /**
   * The last attempt failed: rows still waiting are refunded (each with its own ledger row), unless the upstream sold
   * their label (recorded then), and the order ends 'failed' with the files of the labels that were made, or without
   * files if even those cannot be written.
   */
  async function giveUp(bulkOrderId: string, reason: string): Promise<void> {
    for (const order of await repo.bulkRows(db, bulkOrderId)) {
      // A row whose label the upstream sold is completed with it, never refunded while its postage stays paid.
      if (order.status === 'pending' || order.status === 'processing') await orders.giveUp(order, 'the bulk order could not be finished');
    }
    const ending = { status: 'failed' as const, note: reason.slice(0, 500) };
    try {
      await processBulk(bulkOrderId, null, { waitForProvider: false, ending });
    } catch (error) {
      log.error({ err: error, bulkOrderId }, 'bulk order files could not be made');
      const bulk = await repo.findBulkOrder(db, bulkOrderId);
      if (!bulk) return;
      const final = await repo.bulkRows(db, bulkOrderId);
      const failed = final.filter((o) => o.status === 'cancelled');
      await finish(bulk, {
        ...ending,
        reportKey: null,
        pdfKey: null,
        zipKey: null,
        made: final.length - failed.length,
        failed: failed.length,
        refundedCents: failed.reduce((s, o) => s + Number(o.price_cents), 0),
        at: nowIso(),
      });
    }
  }

  async function present(bulks: repo.BulkOrderRow[]): Promise<BulkOrder[]> {
    const ids = bulks.map((b) => b.id);
    const madeIds = new Map<string, string[]>(ids.map((id) => [id, []]));
    for (const row of await repo.madeOrderIds(db, ids)) madeIds.get(row.bulk_order_id!)?.push(row.id);
    const running = new Map(
      (
        await repo.failedRowTotals(
          db,
          bulks.filter((b) => !isBulkFinished(b.status)).map((b) => b.id),
        )
      ).map((r) => [r.bulk_order_id!, { failed: Number(r.failed), refunded: Number(r.refunded) }]),
    );
    return bulks.map((b) => toBulkOrder(b, madeIds.get(b.id) ?? [], running.get(b.id)));
  }

  /**
   * Writes a checked bulk order: the bulk order, one order per row and the one debit of the whole
   * total in one transaction (with `onCharged`), then runs it: from BULK_QUEUE_THRESHOLD rows (or
   * always with `alwaysQueue`) as a queued job; fewer are made before answering.
   */
  async function persistAndRun(
    userId: string,
    type: CatalogType,
    design: CreateOrderInput['design'],
    checked: { rows: BulkFileRow[]; totalCents: number },
    inputCsv: Buffer,
    options: { alwaysQueue?: boolean; onCharged?: OnCharged } = {},
  ): Promise<repo.BulkOrderRow> {
    const id = newId();
    const createdAt = nowIsoIncreasing();
    const bulk: repo.BulkOrderRow = {
      id,
      user_id: userId,
      label_type_id: type.id,
      label_type_uid: type.uid,
      label_type_name: type.name,
      design: templateRequired(type.uid) ? (design ?? null) : null,
      status: 'processing',
      total_orders: checked.rows.length,
      total_cents: checked.totalCents,
      progress: 0,
      job_attempts: 0,
      job_id: bulkJobId(id),
      // Beside, not inside, the order's folder: a refused payment deletes it and leaves no folder behind.
      input_key: `bulk-input/${id}.csv`,
      report_key: null,
      pdf_key: null,
      zip_key: null,
      made_orders: 0,
      failed_orders: 0,
      refunded_cents: 0,
      note: null,
      created_at: createdAt,
      updated_at: createdAt,
      completed_at: null,
    };
    // Increasing times, so the rows list in the order of the file in the order history.
    const rows = checked.rows.map((r) =>
      orderRowFor(userId, r.input, r.type ?? type, r.priceCents, {
        provider: orders.providerName,
        createdAt: nowIsoIncreasing(),
        bulkOrderId: id,
        bulkRow: r.row,
        quoteId: r.quote?.quoteId,
        // An insured row or a return is rated again at purchase (as a single order is).
        quoted: r.input.Insurance || r.input.Return ? null : r.quote?.quoted,
        insuranceCents: r.insuranceCents,
      }),
    );
    await files.put(bulk.input_key, inputCsv);
    try {
      await db.transaction().execute(async (trx) => {
        await repo.insertBulkOrder(trx, bulk);
        await orders.insertRows(trx, rows);
        if (checked.totalCents > 0) {
          await changeBalance(trx, {
            userId,
            amountCents: -checked.totalCents,
            kind: 'bulk_charge',
            reference: id,
            note: `CSV order ${id.slice(0, 8).toUpperCase()}: ${rows.length} labels`,
          });
        }
        await options.onCharged?.(trx, id);
      });
    } catch (error) {
      await files.delete(bulk.input_key).catch(() => {});
      throw error;
    }

    const enqueue = () => queue.enqueue(BULK_ORDER_JOB, { bulkOrderId: id }, { jobId: bulk.job_id! });
    if (options.alwaysQueue || rows.length >= BULK_QUEUE_THRESHOLD) {
      // Paid is paid: if the queue cannot take it now, the stalled-order sweep queues it when workers start.
      await enqueue().catch((error) => log.error({ err: error, bulkOrderId: id }, 'bulk order could not be queued'));
    } else {
      try {
        // A request does not wait for labels the provider makes later: the job finishes those.
        if ((await processBulk(id, null, { waitForProvider: false })) === 'waiting') await enqueue();
      } catch (error) {
        log.error({ err: error, bulkOrderId: id }, 'bulk order failed; it is queued to be finished');
        await enqueue().catch((e) => log.error({ err: e, bulkOrderId: id }, 'bulk order could not be queued'));
      }
    }
    return bulk;
  }

  /** Labels made and rows failed so far of a bulk order (a finished one keeps its own figures). */
  async function countsOf(row: repo.BulkOrderRow): Promise<{ made: number; failed: number; refundedCents: number }> {
    if (isBulkFinished(row.status)) return { made: row.made_orders, failed: row.failed_orders, refundedCents: Number(row.refunded_cents) };
    const totals = await repo.rowStatusTotals(db, row.id);
    const of = (status: string) => totals.find((t) => t.status === status);
    return { made: Number(of('completed')?.n ?? 0), failed: Number(of('cancelled')?.n ?? 0), refundedCents: Number(of('cancelled')?.cents ?? 0) };
  }

  function toBulkOrder(row: repo.BulkOrderRow, madeIds: string[], running?: { failed: number; refunded: number }): BulkOrder {
    const finished = isBulkFinished(row.status);
    const failed = finished ? row.failed_orders : (running?.failed ?? 0);
    const refunded = finished ? Number(row.refunded_cents) : (running?.refunded ?? 0);
    const paths = bulkDownloadPaths(row.id);
    return {
      _id: row.id,
      createdAt: row.created_at,
      labelType: { name: row.label_type_name, uid: row.label_type_uid },
      design: row.design,
      orders: madeIds,
      totalOrders: row.total_orders,
      failedOrders: failed,
      status: row.status,
      progress: row.progress,
      total: centsToDollars(Number(row.total_cents) - refunded),
      zip: finished && row.zip_key ? paths.zip : null,
      pdf: finished && row.pdf_key ? paths.pdf : null,
      csv: finished && row.report_key ? paths.csv : null,
    };
  }

  return {
    /** validatecsv: every row checked and priced; the total in dollars. */
    async validate(userId: string, upload: BulkUpload): Promise<ValidateCsvResponse> {
      const { labeltype } = fieldsOf(validateCsvFields, upload.fields);
      const csv = csvOf(upload);
      const type = await catalog.orderableType(labeltype);
      const file = await priced(userId, await readBulkFile(csv, type, undefined, await typeLookup()));
      // The transliteration tables (3 MB) load with the first validation, not with the process.
      const { printedDifferently } = await import('@portal/contract/printed-as');
      const printNotes = file.rows
        .map(({ row, input }) => ({ row, printedAs: printedDifferently(input, CSV_PRINTED_COLUMNS) }))
        .filter((note) => Object.keys(note.printedAs).length > 0);
      const unverified = (await deps.addressVerifier?.uncheckedRows(file.rows, () => countryFor(type.uid))) ?? [];
      return {
        message: CSV_VALIDATED,
        totalPrice: centsToDollars(file.totalCents),
        totalOrders: file.rows.length,
        ...(printNotes.length > 0 && { printNotes }),
        ...(unverified.length > 0 && { unverified }),
      };
    },

    /**
     * createOrderFromCSV: checks the file again and the total the user saw, then writes the bulk
     * order, one order per row and the one debit of the whole total in one transaction. From
     * BULK_QUEUE_THRESHOLD rows it runs as a queued job; fewer are made before answering.
     */
    async create(userId: string, upload: BulkUpload, onCharged?: OnCharged): Promise<{ message: string; bulkOrderId: string }> {
      const fields = fieldsOf(createOrderFromCsvFields, upload.fields);
      const csv = csvOf(upload);
      const type = await catalog.orderableType(fields.type);
      if (templateRequired(type.uid) && !fields.design) throw badRequest(TEMPLATE_REQUIRED);
      const file = await priced(userId, await readBulkFile(csv, type, fields.design, await typeLookup()));
      if (dollarsToCents(fields.total_price) !== file.totalCents) throw conflict(PRICES_CHANGED);

      const bulk = await persistAndRun(userId, type, fields.design, file, csv, { onCharged });
      return { message: ORDERS_CREATED, bulkOrderId: bulk.id };
    },

    /** The job's handler: makes the order, and on the last attempt ends it with what could be made (the rest refunded). */
    async runJob(bulkOrderId: string, job: JobContext): Promise<void> {
      // The sweep queues a stopped order again with the engine's count reset: the order's own count still ends it after its last try.
      const runs = await repo.countJobAttempt(db, bulkOrderId, nowIso());
      try {
        await processBulk(bulkOrderId, job);
      } catch (error) {
        if (Math.max(job.attempt, runs) < MAX_ATTEMPTS) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        log.error({ err: error, bulkOrderId, attempt: job.attempt }, 'bulk order failed on its last attempt; refunding what is left');
        await giveUp(bulkOrderId, reason);
      }
    },

    /** read-bulk-orders: the newest BULK_LIST_LIMIT bulk orders of the user. */
    async list(userId: string): Promise<BulkOrder[]> {
      return present(await repo.listOwnBulkOrders(db, userId, BULK_LIST_LIMIT));
    },

    /** Bulk orders as the lists show them: the labels made, and failed rows so far while running (the console lists any customer's). */
    present,

    /** One file of the user's own completed bulk order: 404 for another's, 409 before completion. */
    async file(
      userId: string,
      bulkOrderId: string,
      kind: BulkFileKind,
      format: LabelFormat = 'pdf',
    ): Promise<({ data: Readable | Buffer } | { signedUrl: string }) & { fileName: string; contentType: string }> {
      const bulk = await repo.findOwnBulkOrder(db, userId, bulkOrderId);
      if (!bulk) throw notFound(BULK_ORDER_NOT_FOUND);
      if (!isBulkFinished(bulk.status)) throw conflict(BULK_NOT_READY);
      const key = kind === 'zip' ? bulk.zip_key : kind === 'csv' ? bulk.report_key : bulk.pdf_key;
      if (!key) throw notFound(kind === 'pdf' && bulk.made_orders === 0 ? BULK_NO_LABELS : BULK_NOT_READY);
      if (kind !== 'csv' && (format !== 'pdf' || (await repo.hasRefundHeldRows(db, bulk.id)))) return filesIn(bulk, kind, format);
      const types = BULK_FILE_TYPES[kind];
      if (deps.signedDownloads && files.signedUrl) return { signedUrl: await files.signedUrl(key, types.fileName, SIGNED_LINK_SECONDS), ...types };
      // Streamed: a ZIP of thousands of labels goes out as it is read, never held whole.
      const data = await files.stream(key);
      if (!data) throw new HttpError(500, `File ${key} of bulk order ${bulkOrderId} is missing`);
      return { data, ...types };
    },

    /** Queues again bulk orders that stopped moving (their process died before a job was queued or finished). */
    async resumeStalled(now = Date.now()): Promise<number> {
      const stalled = await repo.stalledBulkOrders(db, new Date(now - STALLED_BULK_MS).toISOString(), 100);
      // Its job may have failed, or completed without finishing it: either way it runs again.
      for (const bulk of stalled) await queue.enqueue(BULK_ORDER_JOB, { bulkOrderId: bulk.id }, { jobId: bulk.job_id ?? bulkJobId(bulk.id), again: true });
      if (stalled.length > 0) log.warn({ count: stalled.length }, 'stalled bulk orders queued again');
      return stalled.length;
    },

    /** The job queue's counts (waiting, active, completed, failed, delayed, total), for the reseller API. */
    queueCounts(): Promise<JobCounts> {
      return queue.counts();
    },

    /** A bulk order job's state and progress, for the reseller API. */
    jobStatus(jobId: string): Promise<JobInfo | null> {
      return queue.getJob(jobId);
    },
    /**
     * A bulk order from rows given as objects (the reseller API's create-bulk-order): the same row
     * checks as a CSV file (every bad row and field named, nothing charged), one charge, always run
     * as a queued job. The rows are kept as a CSV file too, for the report.
     */
    async createFromRows(
      userId: string,
      input: { labelType: string; design?: CreateOrderInput['design']; rows: Record<string, unknown>[] },
      options: { onCharged?: OnCharged } = {},
    ): Promise<repo.BulkOrderRow> {
      const type = await catalog.orderableType(input.labelType);
      if (templateRequired(type.uid) && !input.design) throw badRequest(TEMPLATE_REQUIRED);
      const cellOf = (value: unknown) => (value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));
      const records = input.rows.map((fields, i) => ({ row: i + 1, fields, cells: CSV_COLUMNS.map((c) => cellOf(fields[c])) }));
      const checked = await priced(userId, checkBulkRows(records, type, input.design, await typeLookup()));
      const csv = Buffer.from(toCsv([[...CSV_COLUMNS], ...records.map((r) => r.cells)]));
      return persistAndRun(userId, type, input.design, checked, csv, { alwaysQueue: true, onCharged: options.onCharged });
    },

    /** The user's own bulk order with its counts so far; null for another user's or an unknown one. */
    async findOwn(userId: string, bulkOrderId: string): Promise<(repo.BulkOrderRow & { made: number; failed: number; refundedCents: number }) | null> {
      const row = await repo.findOwnBulkOrder(db, userId, bulkOrderId);
      return row ? { ...row, ...(await countsOf(row)) } : null;
    },

    /** The user's own bulk order by its job id (bulk-<id>), with its job's state; null for another user's. */
    async findOwnJob(
      userId: string,
      jobId: string,
    ): Promise<{ bulk: repo.BulkOrderRow & { made: number; failed: number; refundedCents: number }; job: JobInfo | null } | null> {
      const row = await repo.findOwnBulkOrderByJob(db, userId, jobId);
      if (!row) return null;
      const [counts, job] = await Promise.all([countsOf(row), queue.getJob(jobId)]);
      return { bulk: { ...row, ...counts }, job };
    },
  };
}
export type BulkService = ReturnType<typeof createBulkService>;
