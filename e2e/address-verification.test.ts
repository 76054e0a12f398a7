import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CSV_COLUMNS } from '@portal/contract';
import { RECIPIENT, SENDER, orderParties, quickText } from '../apps/server/test/sample-addresses.ts';
import { RATES_UNDER_PRICES } from '../apps/server/test/easypost-fixtures.ts';
import { api, fundedSession, selectLabelType, useShop } from './harness.ts';

const shop = useShop({ easyPost: true, env: { EASYPOST_VERIFY_ADDRESSES: 'true', RATE_LIMIT_MAX: '1000' } });

const toast = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });

const signedIn = (cents: number) => fundedSession(shop.browser, shop.server, cents);

it("the address book offers the carrier's corrected address before saving, and saves it once taken", async () => {
  const { page, token } = await signedIn(0);
  await page.getByTestId('sidebar').getByRole('link', { name: 'Addresses' }).click();
  await page.getByRole('button', { name: 'Add Address' }).click();
  const modal = page.getByRole('dialog');
  await modal.getByLabel('Name', { exact: true }).fill('Ada Checked');
  await modal.getByLabel('Street', { exact: true }).fill('10 Saved Rd');
  await modal.getByLabel('City').fill('Boston');
  await modal.getByLabel('State').selectOption('MA');
  await modal.getByLabel('ZIP').fill('02110');
  await modal.getByRole('button', { name: 'Save' }).click();

  // The fake answers the street in capitals, as EasyPost normalises it: offered, nothing saved yet.
  const suggestion = modal.getByTestId('address-suggestion');
  await suggestion.getByTestId('suggested-address').filter({ hasText: '10 SAVED RD, Boston, MA 02110' }).waitFor();
  expect((await api<{ addresses: unknown[] }>(shop.server.url, '/address/readAll', undefined, token)).addresses).toEqual([]);
  await suggestion.getByRole('button', { name: 'Use suggested address' }).click();
  await expect.poll(() => modal.getByLabel('Street', { exact: true }).inputValue()).toBe('10 SAVED RD');
  await modal.getByRole('button', { name: 'Save' }).click();
  await toast(page, 'Address created successfully').waitFor();
  const saved = (await api<{ addresses: { street: string }[] }>(shop.server.url, '/address/readAll', undefined, token)).addresses;
  expect(saved.map((a) => a.street)).toEqual(['10 SAVED RD']);
});

it('Normal Order: a suggested To address is taken, an unknown From address is said and kept as typed on the second press; one label bought', async () => {
  const { page, token } = await signedIn(2_000);
  await page.getByTestId('sidebar').getByRole('link', { name: 'Instant - USPS/FedEx (US)' }).click();
  await page.getByRole('heading', { name: 'Create Order' }).waitFor();
  await selectLabelType(page.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
  await page.getByLabel('Template').selectOption({ label: 'Normal' });
  await page.getByLabel('Weight').fill('2');
  await page.getByLabel('From Address Data').fill(quickText({ ...SENDER, street: shop.fake.unverifiableStreet }));
  await page.getByLabel('To Address Data').fill(quickText(RECIPIENT));
  await page.getByRole('tab', { name: 'Normal Order' }).click();
  const purchases = shop.fake.purchases;
  shop.fake.rates.Priority = RATES_UNDER_PRICES.Priority; // under the 2 lb price: the test is about addresses, not cost

  await page.getByTestId('create-order').click();
  await page.getByTestId('address-unverified').filter({ hasText: 'From address: the carrier could not verify this address' }).waitFor();
  const to = page.getByTestId('to-card').locator('xpath=..');
  await to.getByTestId('address-suggestion').getByRole('button', { name: 'Use suggested address' }).click();
  await expect.poll(() => page.getByTestId('to-card').getByLabel('Street', { exact: true }).inputValue()).toBe('456 OAK AVENUE');
  expect((await api<{ orders: unknown[] }>(shop.server.url, '/order/read', undefined, token)).orders).toEqual([]);

  // Pressed again: the From address as typed, the To address as the carrier wrote it.
  await page.getByTestId('create-order').click();
  await page.waitForURL(`${shop.server.url}/`);
  await expect
    .poll(async () => (await api<{ orders: { status: string }[] }>(shop.server.url, '/order/read', undefined, token)).orders.map((o) => o.status))
    .toEqual(['completed']);
  expect(shop.fake.purchases - purchases).toBe(1);
  const shipment = [...shop.fake.shipments.values()].at(-1);
  expect(shipment.to_address.street1).toBe('456 OAK AVENUE');
  expect(shipment.from_address.street1).toBe(shop.fake.unverifiableStreet);
});

it('the CSV validation names the rows whose address the carrier could not verify', async () => {
  const { page } = await signedIn(0);
  await page.getByTestId('sidebar').getByRole('link', { name: 'USPS CSV' }).click();
  await page.getByRole('heading', { name: 'CSV Order', exact: true }).waitFor();
  const row = (i: number, toStreet: string): Record<string, string> => ({
    ...orderParties(),
    ToName: `Receiver ${i}`,
    ToStreet: toStreet,
    Weight: '2',
  });
  const rows = [row(1, RECIPIENT.street), row(2, shop.fake.unverifiableStreet), row(3, '458 Oak Avenue')];
  const csv = [CSV_COLUMNS.join(','), ...rows.map((r) => CSV_COLUMNS.map((c) => r[c] ?? '').join(','))].join('\r\n') + '\r\n';
  await selectLabelType(page.getByLabel('Label Type'), 'FedEx Ground');
  await page.getByLabel('CSV File').setInputFiles({ name: 'orders.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByRole('button', { name: 'Validate CSV' }).click();
  const report = page.getByTestId('csv-unverified');
  await report.waitFor();
  expect(await report.locator('li').allTextContents()).toEqual([expect.stringMatching(/^Row 2, To address: .*Unable to verify address/)]);
});
