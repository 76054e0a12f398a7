import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { setShopTimeZone, shopDay } from '@portal/contract';
import { RECIPIENT, SENDER, quickText } from '../apps/server/test/sample-addresses.ts';
import { api, fundedSession, newPage, selectLabelType, useShop } from './harness.ts';

// Issue 47: Create Order's ship date and reference lines, and the reference in Order History, its search and details.
// The shop's days are Kiritimati's (UTC+14): from 10:00 UTC on they are a day ahead of UTC's, and the form follows them.
const ZONE = 'Pacific/Kiritimati';
const shop = useShop({ env: { RATE_LIMIT_MAX: '1000', SHOP_TIME_ZONE: ZONE } });
setShopTimeZone(ZONE);

type ListedOrder = { _id: string; OrderId: string; status: string; shipDate: string | null; reference: string; reference2: string };
const listOrders = async (token: string) => (await api<{ orders: ListedOrder[] }>(shop.server.url, '/order/read?limit=100', undefined, token)).orders;

async function openCreateOrder(page: Page) {
  await page.goto(`${shop.server.url}/createorders`);
  await page.getByRole('heading', { name: 'Create Order' }).waitFor();
  await page.getByLabel('Type', { exact: true }).locator('option', { hasText: 'USPS Priority Mail' }).first().waitFor({ state: 'attached' });
}

describe('ship date and reference on Create Order', () => {
  it('takes a ship date within a week and two reference lines at the carrier limit; Order History shows and finds the reference', async () => {
    const { page, token } = await fundedSession(shop.browser, shop.server, 10_000);
    await openCreateOrder(page);
    const form = page.getByTestId('quick-order-form');
    const shipDate = form.getByLabel('Ship date');
    // Today by default, and the picker offers today to 7 days ahead.
    await expect.poll(() => shipDate.inputValue()).toBe(shopDay(0));
    expect(await shipDate.getAttribute('min')).toBe(shopDay(0));
    expect(await shipDate.getAttribute('max')).toBe(shopDay(7));
    await form.getByText(`Today to 7 days ahead (days of the shop's time zone, ${ZONE})`).waitFor();

    // The limit follows the carrier of the chosen type: UPS 35, USPS 25.
    await selectLabelType(form.getByLabel('Type', { exact: true }), 'UPS Standard (Canada)');
    await expect.poll(() => form.getByLabel('Reference', { exact: true }).getAttribute('maxlength')).toBe('35');
    await selectLabelType(form.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
    await expect.poll(() => form.getByLabel('Reference', { exact: true }).getAttribute('maxlength')).toBe('25');
    await form.getByText('At most 25 characters (USPS)').first().waitFor();

    await form.getByLabel('Template').selectOption({ label: 'Normal' });
    await form.getByLabel('Weight').fill('2');
    await form.getByLabel('From Address Data').fill(quickText(SENDER));
    await form.getByLabel('To Address Data').fill(quickText(RECIPIENT));
    await shipDate.fill(shopDay(3));
    const reference = 'PO-7781 Shelf Núñez 12345';
    expect(reference).toHaveLength(25);
    await form.getByLabel('Reference', { exact: true }).fill(reference);
    await form.getByLabel('Reference 2').fill('Gift wrap');
    await page.getByTestId('create-order').click();
    await page.getByRole('alert').filter({ hasText: 'Order created successfully' }).waitFor();
    await page.waitForURL(`${shop.server.url}/`);

    const [order] = await listOrders(token);
    expect(order).toMatchObject({ status: 'completed', shipDate: shopDay(3), reference, reference2: 'Gift wrap' });
    const row = page.getByTestId('order-row').filter({ hasText: order!.OrderId });
    await expect.poll(() => row.getByTestId('order-reference').textContent()).toBe(`Ref: ${reference} / Gift wrap`);

    // A second order without a reference; the search finds the first by its reference, accents aside.
    await page.goto(`${shop.server.url}/createorders`);
    await page.getByTestId('quick-order-form').waitFor();
    await selectLabelType(form.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
    await form.getByLabel('Template').selectOption({ label: 'Normal' });
    await form.getByLabel('Weight').fill('2');
    await form.getByLabel('From Address Data').fill(quickText(SENDER));
    await form.getByLabel('To Address Data').fill(quickText(RECIPIENT));
    await page.getByTestId('create-order').click();
    await page.waitForURL(`${shop.server.url}/`);
    await expect.poll(() => page.getByTestId('order-row').count()).toBe(2);
    await page.getByLabel('Search orders').fill('shelf nunez');
    await expect.poll(() => page.getByTestId('order-row').count()).toBe(1);
    await row.waitFor();

    // Order Details names both.
    await row.getByRole('button', { name: 'Details' }).click();
    await expect.poll(() => page.getByTestId('order-details-reference').textContent()).toBe(`${reference} / Gift wrap`);
    await page.getByTestId('order-facts').getByText(shopDay(3)).waitFor();
    await page.context().close();
  });

  it('fits a 390 px screen: the ship date and reference inputs are on the screen and nothing is wider than it', async () => {
    const { page } = await fundedSession(shop.browser, shop.server, 1_000);
    const phone = await newPage(shop.browser, { viewport: { width: 390, height: 844 }, storageState: await page.context().storageState() });
    await openCreateOrder(phone);
    for (const label of ['Ship date', 'Reference', 'Reference 2']) {
      const input = phone.getByTestId('quick-order-form').getByLabel(label, { exact: true });
      await input.scrollIntoViewIfNeeded();
      const box = (await input.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      await input.click({ trial: true, timeout: 5_000 });
    }
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await phone.context().close();
    await page.context().close();
  });
});
