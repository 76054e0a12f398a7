import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDERS_CREATED } from '@portal/contract';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { randomToken } from '../../lib/ids.ts';
import { ledgerSumCents } from '../billing/ledger.ts';
import { balanceOf, fundedUser } from '../orders/order-fixtures.ts';
import { createFromCsv, csvText, download, dropBullmqPrefix, eventually, pdfPageCount, readReport, usRows, validateCsv, waitForCompletion, zipEntries } from './bulk-fixtures.ts';

const engines = ['embedded', ...(process.env.TEST_REDIS_URL ? ['bullmq'] : [])] as const;

describe.each(engines)('a bulk order on the %s queue', (engine) => {
  let t: TestApp;
  const prefix = `test-bulk-${randomToken(6)}`;
  beforeAll(async () => {
    t = await startTestApp(engine === 'bullmq' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix } : {});
  });
  afterAll(async () => {
    await t.close();
    if (engine === 'bullmq') await dropBullmqPrefix(process.env.TEST_REDIS_URL!, prefix);
  });

  it('turns a 25-row file into 25 labels, a 25-page PDF, a ZIP of 26 files and a report of 25 tracking numbers, debited once', async () => {
    const user = await fundedUser(t.app, t.db, 50_000);
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

    const rows = await t.db.selectFrom('orders').select(['id', 'status', 'tracking', 'bulk_row']).where('bulk_order_id', '=', order._id).orderBy('bulk_row').execute();
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
    const report = readReport((await download(t.app, user.headers, order.csv!)).rawPayload);
    const tracking = report.header.indexOf('Tracking');
    expect(report.records.map((r) => r.cells[tracking])).toEqual(trackings);
    expect(readReport(zip['label.csv']).records).toEqual(report.records);

    const ledger = await t.db.selectFrom('ledger').select(['kind', 'amount_cents', 'reference']).where('user_id', '=', user.userId).where('kind', '!=', 'adjustment').execute();
    expect(ledger).toEqual([{ kind: 'bulk_charge', amount_cents: -16_875, reference: order._id }]);
    expect(await balanceOf(t.app, user.headers)).toBe(500 - 168.75);
    expect(await ledgerSumCents(t.db, user.userId)).toBe(50_000 - 16_875);

    // The job itself ended completed at 100%.
    const jobId = `bulk-${order._id}`;
    if (engine === 'embedded') {
      await eventually(async () =>
        expect(await t.db.selectFrom('jobs').select(['name', 'state', 'progress', 'attempts']).where('id', '=', jobId).executeTakeFirst()).toEqual({ name: 'bulk-order', state: 'completed', progress: 100, attempts: 1 }),
      );
    } else {
      const { Queue } = await import('bullmq');
      const queue = new Queue('portal-jobs', { connection: { url: process.env.TEST_REDIS_URL! }, prefix });
      await eventually(async () => {
        const job = await queue.getJob(jobId);
        expect({ name: job?.name, state: await job?.getState(), progress: job?.progress }).toEqual({ name: 'bulk-order', state: 'completed', progress: 100 });
      });
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
    const user = await fundedUser(t.app, t.db, 10_000);
    await createFromCsv(t.app, user.headers, { type: 'ground_oz', total_price: 4 * 2.75 }, csvText(usRows(4)));
    const { order } = await waitForCompletion(t.app, user.headers, 10_000);
    expect(order).toMatchObject({ status: 'completed', totalOrders: 4, failedOrders: 0, total: 11 });
    expect(order.orders).toHaveLength(4);
    expect(await pdfPageCount((await download(t.app, user.headers, order.pdf!)).rawPayload)).toBe(4);
  });

  it('answers a small order at once and lets its job finish the labels made later', async () => {
    const user = await fundedUser(t.app, t.db, 10_000);
    const res = await createFromCsv(t.app, user.headers, { type: 'ground_oz', total_price: 2 * 2.75 }, csvText(usRows(2)));
    expect(res.json()).toEqual({ message: ORDERS_CREATED });
    const { order } = await waitForCompletion(t.app, user.headers, 10_000);
    expect(order).toMatchObject({ status: 'completed', totalOrders: 2, failedOrders: 0 });
    await eventually(async () => expect(await t.db.selectFrom('jobs').select('state').where('id', '=', `bulk-${order._id}`).execute()).toEqual([{ state: 'completed' }]));
  });
});
