import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { AMAZON_PDF_REQUIRED, AMAZON_UNREADABLE, CSV_COLUMNS } from '@portal/contract';
import { packingSlipPdf, slipNumber } from '../apps/server/test/slip-fixtures.ts';
import { SENDER } from '../apps/server/test/sample-addresses.ts';
import { api, fundedAccount, newPage, selectLabelType, signedInPage, signInThroughPage, useShop } from './harness.ts';

const shop = useShop({ env: { RATE_LIMIT_MAX: '1000' } });

const toast = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });
/** The seller's saved address: the sample sender with a second street line. */
const HOME = { ...SENDER, name: 'Jane Seller', company: '', street2: 'Suite 4' };

describe('Amazon CSV Generator', () => {
  it('turns a 3-slip PDF into amazon.csv with a saved From address, leaves out a scanned page when asked, and the file validates and pays on the USPS CSV page', async () => {
    const account = await fundedAccount(shop.server, 10_000);
    await api(shop.server.url, '/address/create', HOME, account.token);
    const page = await newPage(shop.browser);
    await signInThroughPage(page, shop.server.url, account.tgId, account.password);
    await page.getByTestId('sidebar').getByRole('link', { name: 'Amazon CSV Generator' }).click();
    await page.waitForURL(`${shop.server.url}/amazon-csv`);
    await page.getByRole('heading', { name: 'Generate Amazon CSV' }).waitFor();

    // Nothing is sent without a file and the From details: every missing field is marked under itself at once, not one toast at a time.
    const generations = { count: 0 };
    page.on('request', (request) => {
      if (request.url().includes('/amazon/generate-csv')) generations.count++;
    });
    const invalid = () => page.getByTestId('amazon-form').locator('.invalid-feedback:visible').allTextContents();
    await page.getByTestId('amazon-generate').click();
    await expect
      .poll(invalid)
      .toEqual([
        AMAZON_PDF_REQUIRED,
        'Weight is required',
        'From Name is required',
        'From Street is required',
        'From City is required',
        'From State is required',
        'From ZIP is required',
      ]);
    expect(await toast(page, AMAZON_PDF_REQUIRED).count()).toBe(0);
    expect(generations.count).toBe(0);

    // The From details come from the saved address, and their messages go.
    const saved = page.getByLabel('Saved Address');
    await saved.locator('option', { hasText: HOME.name }).waitFor({ state: 'attached' });
    await saved.selectOption({ label: `${HOME.name} - ${HOME.street}, ${HOME.city}, ${HOME.state}` });
    await expect.poll(invalid).toEqual([AMAZON_PDF_REQUIRED, 'Weight is required']);
    await expect.poll(() => page.getByLabel('Name', { exact: true }).inputValue()).toBe(HOME.name);
    await expect.poll(() => page.getByLabel('Street 2 (Optional)').inputValue()).toBe(HOME.street2);
    await expect.poll(() => page.getByLabel('State').inputValue()).toBe(HOME.state);
    await page.getByLabel('Weight').fill('2');
    await expect.poll(invalid).toEqual([AMAZON_PDF_REQUIRED]);

    // Three slips and a scanned page: the scan is named, and nothing is downloaded until the user chooses.
    const slips = [slipNumber(1), slipNumber(2), slipNumber(3)];
    const pdf = await packingSlipPdf([...slips.map((slip) => ({ slips: [slip] })), { scan: true }]);
    await page.getByLabel('Select File').setInputFiles({ name: 'slips.pdf', mimeType: 'application/pdf', buffer: pdf });
    await page.getByTestId('amazon-generate').click();
    await toast(page, AMAZON_UNREADABLE([4])).waitFor();
    await page.getByTestId('amazon-unreadable').getByText('Page 4: the page has no text (a scan)').waitFor();

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Generate CSV without it' }).click()]);
    expect(download.suggestedFilename()).toBe('amazon.csv');
    const lines = fs
      .readFileSync(await download.path(), 'utf8')
      .replace(/^\uFEFF/, '')
      .trim()
      .split(/\r\n/);
    expect(lines[0]).toBe(CSV_COLUMNS.join(','));
    expect(lines.slice(1).map((line) => line.split(','))).toEqual(
      slips.map((slip) => [
        HOME.name,
        '',
        HOME.street,
        HOME.street2,
        HOME.city,
        HOME.state,
        HOME.zip,
        '',
        slip.shipTo.name,
        '',
        slip.shipTo.street,
        '',
        slip.shipTo.city,
        slip.shipTo.state,
        slip.shipTo.zip,
        '',
        '2',
        '',
        '',
        '',
        slip.orderId,
        // The columns after Reference (Reference2, ShipDate, Service) are left empty.
        ...CSV_COLUMNS.slice(CSV_COLUMNS.indexOf('Reference') + 1).map(() => ''),
      ]),
    );
    const summary = page.getByTestId('amazon-summary');
    await summary.getByText('3 addresses found; amazon.csv was downloaded. Pages skipped: 4.').waitFor();
    await expect.poll(() => page.getByTestId('amazon-unreadable').count()).toBe(0);

    // Open in USPS CSV: the file is chosen there, ready to validate and pay.
    await summary.getByRole('button', { name: 'Open in USPS CSV' }).click();
    await page.waitForURL(`${shop.server.url}/csv-orders`);
    const fileInput = page.getByLabel('CSV File');
    await expect.poll(() => fileInput.evaluate((input: HTMLInputElement) => input.files?.[0]?.name ?? null)).toBe('amazon.csv');
    const type = page.getByLabel('Label Type');
    await type.locator('option', { hasText: 'USPS Priority Mail' }).first().waitFor({ state: 'attached' });
    await selectLabelType(type, 'USPS Priority Mail');
    await page.getByLabel('Template').selectOption({ label: 'Normal' });
    await page.getByRole('button', { name: 'Validate CSV' }).click();
    await toast(page, 'CSV validated successfully').waitFor();
    await page.getByTestId('csv-summary').filter({ hasText: '3 labels, total $20.25' }).waitFor();
    await page.getByRole('button', { name: 'Pay $20.25', exact: true }).click();
    await toast(page, 'Orders created successfully').waitFor();
    await page.getByTestId('header-balance').filter({ hasText: '$79.75' }).waitFor();
  });

  it('shows the server message in an error toast when the file is not a packing-slip PDF', async () => {
    const { page } = await signedInPage(shop.browser, shop.server.url);
    await page.goto(`${shop.server.url}/amazon-csv`);
    await page.getByLabel('Weight').fill('1');
    await page.getByLabel('Name', { exact: true }).fill(HOME.name);
    await page.getByLabel('Street 1').fill(HOME.street);
    await page.getByLabel('City').fill(HOME.city);
    await page.getByLabel('State').selectOption(HOME.state);
    await page.getByLabel('Zip').fill(HOME.zip);
    await page.getByLabel('Select File').setInputFiles({ name: 'slips.pdf', mimeType: 'application/pdf', buffer: await packingSlipPdf([{ scan: true }]) });
    await page.getByTestId('amazon-generate').click();
    await toast(page, 'This PDF has no text: print the packing slips from Seller Central as PDF, not as a scan').waitFor();
    await expect.poll(() => page.getByTestId('amazon-generate').isEnabled()).toBe(true);
    await expect.poll(() => page.getByTestId('amazon-summary').count()).toBe(0);
  });
});
