import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { CSV_COLUMNS, SAMPLE_CSV_PATH } from '@portal/contract';
import { orderParties } from '../apps/server/test/sample-addresses.ts';
import { api, useShop, withServerDb, selectLabelType, fundedSession } from './harness.ts';

const shop = useShop({ env: { RATE_LIMIT_MAX: '1000' } });

type Row = Partial<Record<(typeof CSV_COLUMNS)[number], string>>;

const csvCell = (value: string) => (/[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
const csvFile = (rows: Row[]) =>
  [CSV_COLUMNS.join(','), ...rows.map((row) => CSV_COLUMNS.map((column) => csvCell(row[column] ?? '')).join(','))].join('\r\n') + '\r\n';

/** A valid row: 2 lb Priority between the sample addresses, with a company holding a comma. */
const goodRow = (i: number): Row => ({
  ...orderParties(),
  FromCompany: 'Sender, Inc.',
  FromStreet2: 'Suite 4',
  ToName: `Receiver ${i}`,
  Weight: '2',
  Reference: `ref-${i}`,
});

const ROWS = 5;
const goodRows = Array.from({ length: ROWS }, (_, i) => goodRow(i + 1));
// Row 2 has a ZIP that is not a US ZIP, row 4 has no weight.
const badRows = goodRows.map((row, i) => (i === 1 ? { ...row, ToZip: 'ABCDE' } : i === 3 ? { ...row, Weight: '' } : row));
const asUpload = (name: string, rows: Row[]) => ({ name, mimeType: 'text/csv', buffer: Buffer.from(csvFile(rows)) });

const toast = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });
const payButton = (page: Page) => page.getByTestId('csv-pay');

/** Counts the calls the page sends whose path ends with `suffix`. */
function countCalls(page: Page, suffix: string) {
  const calls = { count: 0 };
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.endsWith(suffix)) calls.count++;
  });
  return calls;
}

/** Clicks the button and checks the saved file's name and first bytes. */
async function expectDownload(page: Page, button: Locator, fileName: string, starts: (head: string) => void) {
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  expect(download.suggestedFilename()).toBe(fileName);
  const head = fs
    .readFileSync(await download.path())
    .subarray(0, 400)
    .toString('utf8');
  starts(head);
}

/** A new account funded with `cents`, signed in through the sign-in screen, on the CSV order screen. */
async function openCsvOrders(cents: number) {
  const { page, ...account } = await fundedSession(shop.browser, shop.server, cents);
  await page.getByTestId('sidebar').getByRole('link', { name: 'USPS CSV' }).click();
  await page.waitForURL(`${shop.server.url}/csv-orders`);
  await page.getByRole('heading', { name: 'CSV Order', exact: true }).waitFor();
  return { ...account, page };
}

describe('CSV order screen', () => {
  it('offers the sample CSV as a plain download of the static file, which validates', async () => {
    const { page } = await openCsvOrders(0);
    const sample = page.getByRole('link', { name: 'Download Sample CSV' });
    await expect.poll(() => sample.getAttribute('href')).toBe(SAMPLE_CSV_PATH);
    const [download] = await Promise.all([page.waitForEvent('download'), sample.click()]);
    expect(download.suggestedFilename()).toBe('sample-orders.csv');
    const path = await download.path();
    const text = fs.readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
    expect(text.split(/\r?\n/)[0]!.toLowerCase()).toContain('fromname');

    // The sample as it is passes validation for a label type without a template.
    await selectLabelType(page.getByLabel('Label Type'), 'FedEx Ground');
    await page.getByLabel('CSV File').setInputFiles(path);
    await page.getByRole('button', { name: 'Validate CSV' }).click();
    await toast(page, 'CSV validated successfully').waitFor();
    await expect.poll(() => payButton(page).isEnabled()).toBe(true);
  });

  it('lists a bad file’s rows, validates the fixed file, pays once, follows the bulk order to completed and downloads its ZIP, CSV and PDF', async () => {
    const { page, token } = await openCsvOrders(10_000);
    const validations = countCalls(page, '/order/validatecsv');
    const payments = countCalls(page, '/order/createOrderFromCSV');
    const type = page.getByLabel('Label Type');
    await type.locator('option', { hasText: 'USPS Priority Mail' }).first().waitFor({ state: 'attached' });
    await page.getByTestId('bulk-orders-table').getByText('No CSV orders yet').waitFor();

    // Pay waits for a validation; the local messages come before any call.
    await expect.poll(() => payButton(page).textContent()).toBe('Choose a type to see the price');
    await expect.poll(() => payButton(page).isDisabled()).toBe(true);
    await expect.poll(() => page.getByLabel('Template').count()).toBe(0);
    // What is missing stays under its field (as the row errors stay on the page) until that field changes.
    const feedback = (field: Locator) => field.locator('xpath=following-sibling::div[contains(@class,"invalid-feedback")][1]');
    await page.getByRole('button', { name: 'Validate CSV' }).click();
    await expect.poll(() => feedback(type).textContent()).toBe('Please select LabelType');
    await selectLabelType(type, 'USPS Priority Mail');
    await expect.poll(() => feedback(type).isVisible()).toBe(false);
    await expect.poll(() => page.getByLabel('Template').locator('option').allTextContents()).toEqual(['Select template', 'Pitney Bowes', 'Normal', 'EVS']);
    await page.getByRole('button', { name: 'Validate CSV' }).click();
    await expect.poll(() => page.getByTestId('csv-file-problem').textContent()).toBe('Please select CSV file');
    expect(validations.count).toBe(0);
    // An empty file is named as such (the server says the same), and the message does not go by itself.
    await page.getByLabel('CSV File').setInputFiles({ name: 'empty.csv', mimeType: 'text/csv', buffer: Buffer.alloc(0) });
    await page.getByRole('button', { name: 'Validate CSV' }).click();
    await expect.poll(() => page.getByTestId('csv-file-problem').textContent()).toBe('The file is empty');
    expect(await page.getByTestId('csv-file-problem').isVisible()).toBe(true);
    expect(await toast(page, 'The file is empty').count()).toBe(0);
    expect(validations.count).toBe(0);

    // A file with bad rows: each is listed with its row and column, and Pay stays disabled.
    const fileInput = page.getByLabel('CSV File');
    await fileInput.setInputFiles(asUpload('orders.csv', badRows));
    await page.getByRole('button', { name: 'Validate CSV' }).click();
    const errors = page.getByTestId('csv-errors');
    await errors.waitFor();
    const listed = await page.getByTestId('csv-error').evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (td) => td.textContent)));
    expect(listed.map(([row]) => row)).toEqual(['2', '4']);
    expect(listed[0]![1]!.toLowerCase()).toBe('tozip');
    expect(listed[0]![2]).toMatch(/ZIP/);
    expect(listed[1]![1]!.toLowerCase()).toBe('weight');
    expect(listed[1]![2]).toMatch(/Weight/);
    expect(validations.count).toBe(1);
    await expect.poll(() => payButton(page).isDisabled()).toBe(true);

    // The fixed file: the errors go, and a validation prices it.
    await fileInput.setInputFiles(asUpload('orders.csv', goodRows));
    await errors.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Validate CSV' }).click();
    await toast(page, 'CSV validated successfully').waitFor();
    await page.getByRole('button', { name: 'Pay $33.75', exact: true }).waitFor();
    await expect.poll(() => payButton(page).isEnabled()).toBe(true);
    await page
      .getByTestId('csv-summary')
      .filter({ hasText: `${ROWS} labels, total $33.75` })
      .waitFor();

    // Another type asks for a new validation.
    await selectLabelType(type, 'FedEx Ground');
    await expect.poll(() => payButton(page).isDisabled()).toBe(true);
    await expect.poll(() => payButton(page).textContent()).toBe('Pay $0.00');
    await selectLabelType(type, 'USPS Priority Mail');
    await page.getByRole('button', { name: 'Validate CSV' }).click();
    await page.getByRole('button', { name: 'Pay $33.75', exact: true }).waitFor();
    expect(validations.count).toBe(3);

    // Priority needs a template before paying; nothing is sent without it.
    await payButton(page).click();
    await page.getByText('Template is required for Priority labels').first().waitFor();
    expect(payments.count).toBe(0);
    await page.getByLabel('Template').selectOption({ label: 'Pitney Bowes' });
    // The message goes once a template is chosen, the field's and the toast's.
    await expect.poll(() => page.getByText('Template is required for Priority labels').count()).toBe(0);

    // Two clicks in the same instant send one payment.
    await payButton(page).evaluate((button: HTMLButtonElement) => {
      button.click();
      button.click();
    });
    await toast(page, 'Request already sent').waitFor();
    await toast(page, 'Orders created successfully').waitFor();
    expect(payments.count).toBe(1);

    // The form resets and Pay is disabled again; the balance is debited once.
    await expect.poll(() => payButton(page).textContent()).toBe('Choose a type to see the price');
    await expect.poll(() => payButton(page).isDisabled()).toBe(true);
    await expect.poll(() => type.inputValue()).toBe('');
    await expect.poll(() => fileInput.evaluate((input: HTMLInputElement) => input.files?.length ?? 0)).toBe(0);
    await expect.poll(() => page.getByLabel('Template').count()).toBe(0);
    await page.getByTestId('header-balance').filter({ hasText: '$66.25' }).waitFor();

    // The bulk order shows up and reaches completed on its own (the table reloads while it runs).
    const row = page.getByTestId('bulk-order-row').first();
    await row.waitFor();
    await expect.poll(() => page.getByTestId('bulk-order-row').count()).toBe(1);
    await page.locator('[data-testid="bulk-order-row"][data-status="completed"]').waitFor({ timeout: 60_000 });
    const cells = await row.locator('td').allTextContents();
    expect(cells).toEqual(expect.arrayContaining(['1', 'USPS Priority Mail', String(ROWS), '$33.75', 'Completed']));
    await expect.poll(() => row.getByTestId('bulk-progress').count()).toBe(0);
    const [bulk] = (
      await api<{ orders: { _id: string; status: string; orders: string[]; totalOrders: number; total: number; design: string | null }[] }>(
        shop.server.url,
        '/order/read-bulk-orders',
        undefined,
        token,
      )
    ).orders;
    expect(bulk).toMatchObject({ status: 'completed', totalOrders: ROWS, total: 33.75, design: 'pitney' });
    expect(bulk!.orders).toHaveLength(ROWS);
    expect((await api<{ balance: number }>(shop.server.url, '/auth/access', undefined, token)).balance).toBe(66.25);

    await expectDownload(page, row.getByRole('button', { name: 'Zip', exact: true }), 'label.zip', (head) => expect(head.startsWith('PK')).toBe(true));
    await expectDownload(page, row.getByRole('button', { name: 'CSV', exact: true }), 'label.csv', (head) => {
      const header = head
        .replace(/^\uFEFF/, '')
        .split(/\r?\n/)[0]!
        .toLowerCase();
      expect(header).toContain('fromname');
      expect(header).toContain('tracking');
    });
    await expectDownload(page, row.getByRole('button', { name: 'PDF', exact: true }), 'label.pdf', (head) => expect(head.startsWith('%PDF')).toBe(true));

    // A bulk order whose job gave up after its last try (the API tests make that happen) shows Failed with its files.
    await withServerDb(shop.server, (db) => db.updateTable('bulk_orders').set({ status: 'failed' }).where('id', '=', bulk!._id).execute());
    await page.reload();
    await page.locator('[data-testid="bulk-order-row"][data-status="failed"]').waitFor();
    await row
      .locator('.badge')
      .filter({ hasText: /^Failed$/ })
      .waitFor();
    await expect.poll(() => row.locator('.badge').getAttribute('class')).toContain('bg-danger');
    await expect.poll(() => row.getByRole('button', { name: 'Zip', exact: true }).isVisible()).toBe(true);
  });
  it('names every bad cell of a row with its value, takes full state names, and lists the first 500 problems of a larger file', async () => {
    const { page } = await openCsvOrders(0);
    await selectLabelType(page.getByLabel('Label Type'), 'USPS Priority Mail');
    const fileInput = page.getByLabel('CSV File');
    const cells = () => page.getByTestId('csv-error').evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (td) => td.textContent)));

    // One row, three problems: each is named with its column and value. 'Illinois' alone would be fine.
    const street = `${'9'.repeat(5)} ${'Long Street Name '.repeat(3)}`.trim().padEnd(55, 'x');
    await fileInput.setInputFiles(
      asUpload('bad.csv', [
        { ...goodRow(1), ToStreet: street, ToState: 'Illinoiz', ToZip: '6060' },
        { ...goodRow(2), ToState: 'Illinois', ToCity: 'Chicago', ToZip: '60601' },
      ]),
    );
    await page.getByRole('button', { name: 'Validate CSV' }).click();
    await expect.poll(cells).toEqual([
      ['1', 'ToStreet', 'To Street must be at most 35 characters', street],
      ['1', 'ToState', 'To State must be a US state, DC or PR', 'Illinoiz'],
      ['1', 'ToZip', 'To ZIP must be a US ZIP code like 12345 or 12345-6789', '6060'],
    ]);
    await page.getByTestId('csv-errors').filter({ hasText: '3 problems in 1 row.' }).waitFor();

    // 300 rows with two bad ZIPs each: the first 500 are listed and the other 100 counted.
    const many = Array.from({ length: 300 }, (_, i) => ({ ...goodRow(i + 1), FromZip: '1', ToZip: '2' }));
    await fileInput.setInputFiles(asUpload('many.csv', many));
    await page.getByRole('button', { name: 'Validate CSV' }).click();
    await expect.poll(() => page.getByTestId('csv-error').count()).toBe(500);
    await page.getByTestId('csv-errors').filter({ hasText: '600 problems.' }).waitFor();
    await expect
      .poll(() => page.getByTestId('csv-errors-more').textContent())
      .toBe('The first 500 problems are listed; 100 more are not. Fix these and validate again to see the rest.');

    // Full state names are codes: the second row alone validates.
    await fileInput.setInputFiles(asUpload('good.csv', [{ ...goodRow(2), FromState: 'new york', ToState: 'Illinois', ToCity: 'Chicago', ToZip: '60601' }]));
    await page.getByRole('button', { name: 'Validate CSV' }).click();
    await page.getByTestId('csv-summary').filter({ hasText: '1 label, total $6.75' }).waitFor();
    await expect.poll(() => page.getByTestId('csv-print-notes').count()).toBe(0);

    // Names in any script validate; the rows that print otherwise than typed are named.
    await fileInput.setInputFiles(
      asUpload('names.csv', [
        { ...goodRow(1), ToName: '李小龙 🎉' },
        { ...goodRow(2), ToName: 'Zoë O’Brien' },
        { ...goodRow(3), FromName: 'Nguyễn Văn Đức' },
      ]),
    );
    await page.getByRole('button', { name: 'Validate CSV' }).click();
    await page.getByTestId('csv-summary').filter({ hasText: '3 labels' }).waitFor();
    await expect
      .poll(() => page.getByTestId('csv-print-notes').locator('li').allTextContents())
      .toEqual(['Row 1: ToName prints as “Li Xiao Long”', 'Row 3: FromName prints as “Nguyen Van Duc”']);
  });
});
