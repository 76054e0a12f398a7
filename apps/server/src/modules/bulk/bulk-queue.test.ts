import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WAIT, uniqueId } from '../../../test/basics.ts';
import { ORDERS_CREATED } from '@portal/contract';
import { dropRedisPrefix, startTestApp, type TestApp } from '../../../test/harness.ts';
import { buildServices } from '../../services.ts';
import { createLocalFileStore, type FileStore } from '../../providers/storage/file-store.ts';
import { ledgerSumCents } from '../billing/service.ts';
import { balanceOf } from '../../../test/order-fixtures.ts';
import { fundedCustomer } from '../../../test/customers.ts';
import { createFromCsv, csvText, download, pdfPageCount, readReport, usRows, validateCsv, waitForCompletion, zipEntries } from '../../../test/bulk-fixtures.ts';

const engines = ['embedded', ...(process.env.TEST_REDIS_URL ? ['bullmq'] : [])] as const;

describe.each(engines)('a bulk order on the %s queue', (engine) => {
  let t: TestApp;
  const prefix = uniqueId('test-bulk');
  beforeAll(async () => {
    t = await startTestApp(engine === 'bullmq' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix } : {});
  });
  afterAll(async () => {
    await t.close();
    if (engine === 'bullmq') await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  });

  it('turns a 25-row file into 25 labels, a 25-page PDF, a ZIP of 26 files and a report of 25 tracking numbers, debited once', async () => {
    const user = await fundedCustomer(t.app, 50_000, t.db);
    const file = csvText(usRows(25));
    const validated = await validateCsv(t.app, user.headers, 'priority', file);
    expect(validated.json()).toMatchObject({ totalOrders: 25, totalPrice: 168.75 });
    const res = await createFromCsv(t.app, user.headers, { type: 'priority', total_price: validated.json().totalPrice, design: 'evs' }, file);
    expect(res.json()).toEqual({ message: ORDERS_CREATED });

    const { order, progress } = await waitForCompletion(t.app, user.headers);
    expect(order).toMatchObject({ status: 'completed', progress: 100, totalOrders: 25, failedOrders: 0, total: 168.75 });
    expect(order.orders).toHaveLength(25);
    expect(progress).toEqual([...progress].sort((a, b) => a - b)); // never backwards
    expect(progress.at(-1)).toBe(100);

    const rows = await t.db
      .selectFrom('orders')
      .select(['id', 'status', 'tracking', 'bulk_row'])
      .where('bulk_order_id', '=', order._id)
      .orderBy('bulk_row')
      .execute();
    expect(rows.map((r) => r.bulk_row)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(rows.every((r) => r.status === 'completed')).toBe(true);
    const trackings = rows.map((r) => r.tracking!);
    expect(new Set(trackings).size).toBe(25);
    expect(order.orders).toEqual(rows.map((r) => r.id));

    const pdf = await download(t.app, user.headers, order.pdf!);
    expect(await pdfPageCount(pdf.rawPayload)).toBe(25);
    const zip = zipEntries((await download(t.app, user.headers, order.zip!)).rawPayload);
    expect(Object.keys(zip)).toHaveLength(26);
    expect(Object.keys(zip).sort()).toEqual([...trackings.map((n) => `${n}.pdf`), 'label.csv'].sort());
    expect(Buffer.from(zip[`${trackings[0]}.pdf`]).subarray(0, 5).toString()).toBe('%PDF-');
    const report = await readReport((await download(t.app, user.headers, order.csv!)).rawPayload);
    const tracking = report.header.indexOf('Tracking');
    expect(report.records.map((r) => r.cells[tracking])).toEqual(trackings);
    expect((await readReport(zip['label.csv'])).records).toEqual(report.records);

    const ledger = await t.db
      .selectFrom('ledger')
      .select(['kind', 'amount_cents', 'reference'])
      .where('user_id', '=', user.userId)
      .where('kind', '!=', 'adjustment')
      .execute();
    expect(ledger).toEqual([{ kind: 'bulk_charge', amount_cents: -16_875, reference: order._id }]);
    expect(await balanceOf(t.app, user.headers)).toBe(500 - 168.75);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(50_000 - 16_875);

    // The job itself ended completed at 100%.
    const jobId = `bulk-${order._id}`;
    if (engine === 'embedded') {
      await vi.waitFor(
        async () =>
          expect(await t.db.selectFrom('jobs').select(['name', 'state', 'progress', 'attempts']).where('id', '=', jobId).executeTakeFirst()).toEqual({
            name: 'bulk-order',
            state: 'completed',
            progress: 100,
            attempts: 1,
          }),
        WAIT,
      );
    } else {
      const { Queue } = await import('bullmq');
      const queue = new Queue('portal-jobs', { connection: { url: process.env.TEST_REDIS_URL! }, prefix });
      await vi.waitFor(async () => {
        const job = await queue.getJob(jobId);
        expect({ name: job?.name, state: await job?.getState(), progress: job?.progress }).toEqual({ name: 'bulk-order', state: 'completed', progress: 100 });
      }, WAIT);
      await queue.close();
    }
  });
});

describe('a bulk order whose labels the provider makes later', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ LABEL_SANDBOX_MODE: 'processing', LABEL_SANDBOX_DELAY_MS: '300', ORDER_POLL_INTERVAL_MS: '50' });
  });
  afterAll(() => t.close());

  it('asks again until every label is made, then completes', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    await createFromCsv(t.app, user.headers, { type: 'ground_oz', total_price: 4 * 2.75 }, csvText(usRows(4)));
    const { order } = await waitForCompletion(t.app, user.headers);
    expect(order).toMatchObject({ status: 'completed', totalOrders: 4, failedOrders: 0, total: 11 });
    expect(order.orders).toHaveLength(4);
    expect(await pdfPageCount((await download(t.app, user.headers, order.pdf!)).rawPayload)).toBe(4);
  });

  it('answers a small order at once and lets its job finish the labels made later', async () => {
    const user = await fundedCustomer(t.app, 10_000, t.db);
    const res = await createFromCsv(t.app, user.headers, { type: 'ground_oz', total_price: 2 * 2.75 }, csvText(usRows(2)));
    expect(res.json()).toEqual({ message: ORDERS_CREATED });
    const { order } = await waitForCompletion(t.app, user.headers);
    expect(order).toMatchObject({ status: 'completed', totalOrders: 2, failedOrders: 0 });
    await vi.waitFor(
      async () => expect(await t.db.selectFrom('jobs').select('state').where('id', '=', `bulk-${order._id}`).execute()).toEqual([{ state: 'completed' }]),
      WAIT,
    );
  });
});

describe.each(engines)('a bulk job that fails on the %s queue', (engine) => {
  // Each app its own BullMQ queue: a worker of one app must not take the other app's jobs.
  const prefixes: string[] = [];
  const open: TestApp[] = [];
  const dirs: string[] = [];
  const stores: FileStore[] = [];
  /** The real app whose file store refuses the files matching `refuse` (label packs: their prefix and a slash) for the first `failures` tries (Infinity: always). */
  const appFailingFor = async (failures: number, refuse: (key: string) => boolean, env: Record<string, string> = {}) => {
    let refused = 0;
    dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bulkfail-')));
    const files = createLocalFileStore(dirs.at(-1)!);
    const failing: FileStore = {
      ...files,
      put: (key, data) => (refuse(key) && refused++ < failures ? Promise.reject(new Error('disk full')) : files.put(key, data)),
      appendToPack: (prefix, data) =>
        refuse(`${prefix}/`) && refused++ < failures ? Promise.reject(new Error('disk full')) : files.appendToPack(prefix, data),
    };
    stores.push(files);
    prefixes.push(uniqueId('test-bulkfail'));
    const t = await startTestApp(
      {
        QUEUE_RETRY_DELAY_MS: '50',
        ORDER_POLL_INTERVAL_MS: '100',
        ...(engine === 'bullmq' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefixes.at(-1)! } : {}),
        ...env,
      },
      { files: failing },
    );
    open.push(t);
    return { ...t, files: failing };
  };
  afterAll(async () => {
    await Promise.all(open.map((t) => t.close()));
    await Promise.all(stores.map((store) => store.close()));
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    if (engine === 'bullmq') for (const prefix of prefixes) await dropRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
  });

  it('fails twice, then completes: one charge, each row made once', async () => {
    const t = await appFailingFor(2, (key) => key.endsWith('/label.pdf'));
    const user = await fundedCustomer(t.app, 10_000, t.db);
    await createFromCsv(t.app, user.headers, { type: 'uspsv9', total_price: 5 * 7.25 }, csvText(usRows(5)));
    const { order } = await waitForCompletion(t.app, user.headers, 60_000);
    expect(order).toMatchObject({ status: 'completed', totalOrders: 5, failedOrders: 0, total: 36.25 });
    const ledger = await t.db
      .selectFrom('ledger')
      .select(['kind', 'amount_cents'])
      .where('user_id', '=', user.userId)
      .where('kind', '!=', 'adjustment')
      .execute();
    expect(ledger).toEqual([{ kind: 'bulk_charge', amount_cents: -3625 }]);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000 - 3625);
    const rows = await t.db.selectFrom('orders').select(['tracking']).where('bulk_order_id', '=', order._id).execute();
    expect(new Set(rows.map((r) => r.tracking)).size).toBe(5);
  }, 90_000);

  it('always fails: ends failed after its last try, every row without a label refunded with its own ledger row', async () => {
    const t = await appFailingFor(Infinity, (key) => key.startsWith('labels/'));
    const user = await fundedCustomer(t.app, 10_000, t.db);
    await createFromCsv(t.app, user.headers, { type: 'uspsv9', total_price: 4 * 7.25 }, csvText(usRows(4)));
    const { order } = await waitForCompletion(t.app, user.headers, 60_000);
    expect(order).toMatchObject({ status: 'failed', totalOrders: 4, failedOrders: 4, total: 0, pdf: null });
    expect(await balanceOf(t.app, user.headers)).toBe(100);
    const refunds = await t.db
      .selectFrom('ledger')
      .select(['reference', 'amount_cents'])
      .where('user_id', '=', user.userId)
      .where('kind', '=', 'bulk_refund')
      .orderBy('reference')
      .execute();
    expect(refunds).toEqual([1, 2, 3, 4].map((row) => ({ reference: `${order._id}:${row}`, amount_cents: 725 })));
    expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000);
    // The report still says what happened to each row.
    expect((await readReport((await download(t.app, user.headers, order.csv!)).rawPayload)).records.map((r) => r.cells.at(-2))).toEqual([
      'failed',
      'failed',
      'failed',
      'failed',
    ]);
  }, 90_000);

  it('counts the runs on the order itself: one that already ran 4 times ends failed on its next failing run, whatever the engine counted', async () => {
    // The web process only queues; the order's count says 4 runs already (as after a sweep reset the engine's count).
    const t = await appFailingFor(Infinity, (key) => key.startsWith('labels/'), { QUEUE_RUN_WORKERS: 'false' });
    const user = await fundedCustomer(t.app, 10_000, t.db);
    await createFromCsv(t.app, user.headers, { type: 'uspsv9', total_price: 4 * 7.25 }, csvText(usRows(4)));
    const { id } = await t.db.selectFrom('bulk_orders').select('id').where('user_id', '=', user.userId).executeTakeFirstOrThrow();
    await t.db.updateTable('bulk_orders').set({ job_attempts: 4 }).where('id', '=', id).execute();

    const worker = await buildServices(t.config, t.app.log, { db: t.db, files: t.files });
    try {
      await worker.startWorkers();
      const { order } = await waitForCompletion(t.app, user.headers, 30_000);
      expect(order).toMatchObject({ status: 'failed', failedOrders: 4, total: 0 });
      expect(await t.db.selectFrom('bulk_orders').select('job_attempts').where('id', '=', id).executeTakeFirst()).toEqual({ job_attempts: 5 });
      expect(await ledgerSumCents(t.db, user.userId)).toBe(10_000);
    } finally {
      await worker.close();
    }
  }, 60_000);
});
