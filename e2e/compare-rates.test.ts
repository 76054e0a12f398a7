// Compare rates on Create Order: every type for the package with its price and days or why not, a row chosen, the
// order bought at the listed price; on a desktop and on a phone (390 px), where the rows are cards.
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { RECIPIENT, SENDER, quickText } from '../apps/server/test/sample-addresses.ts';
import { api, fundedSession, newPage, useShop, withServerDb } from './harness.ts';

const shop = useShop({ env: { RATE_LIMIT_MAX: '1000' } });

// 10001 to 90210: the sandbox's farthest zone, where the types' days differ.
const FROM_TEXT = quickText(SENDER);
const TO_TEXT = quickText(RECIPIENT);
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

type ListedOrder = { status: string; price: number; weight: number; labelType: { uid: string } };
const listOrders = async (token: string) => (await api<{ orders: ListedOrder[] }>(shop.server.url, '/order/read?limit=100', undefined, token)).orders;
const balanceOf = async (token: string) => (await api<{ balance: number }>(shop.server.url, '/auth/access', undefined, token)).balance;

const rateRow = (page: Page, uid: string) => page.locator(`[data-testid="rate-row"][data-uid="${uid}"]`);
const toast = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });
const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

/** The element lies inside the screen's width and would take a click (visible, enabled, not covered). */
async function expectReachable(page: Page, target: Locator) {
  await target.waitFor();
  await target.scrollIntoViewIfNeeded();
  const box = (await target.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width);
  await target.click({ trial: true, timeout: 5_000 });
}

/** A funded account on Quick Order, its label types loaded, with both addresses and a weight (in pounds: no type yet). */
async function fillPackage(viewport: { width: number; height: number }, weight: string) {
  const { page: signedIn, token } = await fundedSession(shop.browser, shop.server, 10_000);
  // Signed in on a desktop (the sign-in helper waits for the sidebar, a menu on phones), then at the viewport's size.
  const page = await newPage(shop.browser, { viewport, storageState: await signedIn.context().storageState() });
  await signedIn.context().close();
  await page.goto(`${shop.server.url}/createorders`);
  await page.getByLabel('Type', { exact: true }).locator('option', { hasText: 'USPS Priority Mail' }).first().waitFor({ state: 'attached' });
  await page.getByLabel('From Address Data').fill(FROM_TEXT);
  await page.getByLabel('To Address Data').fill(TO_TEXT);
  await page.getByLabel('Weight').fill(weight);
  return { page, token };
}

/** Clicks Compare rates and waits for the list of a new quote. */
async function compare(page: Page) {
  const asked = page.waitForResponse((r) => r.url().endsWith('/api/v1/order/rates') && r.status() === 200);
  await page.getByRole('button', { name: 'Compare rates' }).click();
  await asked;
  await page.getByTestId('rates-out-of-date').waitFor({ state: 'detached' });
}

describe.each([
  ['a desktop', DESKTOP],
  ['a phone (390 px)', PHONE],
])('Compare rates on %s', (_, viewport) => {
  it('lists every type with its days or why not, drops the list when the weight changes, and buys the chosen row at its listed price', async () => {
    const { page, token } = await fillPackage(viewport, '2');
    await compare(page);
    await page.getByTestId('rates-sandbox').waitFor();

    // 2 lb is over USPS Ground (oz)'s weight; the UPS types ship only inside Canada.
    await expect.poll(() => rateRow(page, 'ground_oz').getByTestId('rate-reason').textContent()).toMatch(/^Over its weight: /);
    await expect
      .poll(() => rateRow(page, 'ups_standard').getByTestId('rate-reason').textContent())
      .toBe('Not offered for this route: UPS Standard (Canada) ships only inside Canada');
    expect(await rateRow(page, 'ground_oz').getByRole('button').count()).toBe(0);
    // Days by distance differ between the types (the sandbox's zone 7: Priority 3, FedEx Ground 4).
    expect(await rateRow(page, 'priority').getByTestId('rate-days').textContent()).toMatch(/^3 days · /);
    expect(await rateRow(page, 'fedex_ground').getByTestId('rate-days').textContent()).toMatch(/^4 days · /);
    await rateRow(page, 'priority').getByText('Fastest').waitFor();

    // A lighter package: the list is out of date until compared again; then USPS Ground (oz) takes it, in 5 days.
    await page.getByLabel('Weight').fill('0.5');
    await page.getByTestId('rates-out-of-date').filter({ hasText: 'These rates are out of date' }).waitFor();
    expect(await rateRow(page, 'priority').getByRole('button', { name: 'Choose' }).isDisabled()).toBe(true);
    await compare(page);
    const groundOz = rateRow(page, 'ground_oz');
    expect(await groundOz.getAttribute('data-available')).toBe('true');
    expect(await groundOz.getByTestId('rate-days').textContent()).toMatch(/^5 days · /);
    const listed = (await groundOz.getByTestId('rate-price').textContent())!;
    expect(listed).toMatch(/^\$\d+\.\d\d$/);

    if (viewport === PHONE) {
      // Each row a card: nothing scrolls sideways, and the row's Choose and Create Order are in reach.
      expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
      await expectReachable(page, groundOz.getByRole('button', { name: 'Choose' }));
      await expectReachable(page, page.getByTestId('create-order'));
    }

    // Choosing the row selects the type and puts the weight in its unit (ounces); Create Order shows the listed price.
    await groundOz.getByRole('button', { name: 'Choose' }).click();
    await groundOz.getByRole('button', { name: 'Chosen' }).waitFor();
    await expect.poll(() => page.getByLabel('Type', { exact: true }).locator('option:checked').textContent()).toMatch(/^USPS Ground Advantage \(oz\)/);
    expect(await page.getByLabel('Weight').inputValue()).toBe('8');
    const create = page.getByRole('button', { name: `Create Order ${listed}`, exact: true });
    await create.waitFor();
    expect(await page.getByTestId('rates-out-of-date').count()).toBe(0);

    const creates: unknown[] = [];
    page.on('request', (r) => void (r.url().endsWith('/api/v1/order/create') && creates.push(r.postDataJSON())));
    await create.click();
    await toast(page, 'Order created successfully').waitFor();
    await page.waitForURL(`${shop.server.url}/`);
    // Bought under the quote (its package as quoted: 0.5 lb), charged the listed price.
    expect(creates).toEqual([expect.objectContaining({ labelType: 'ground_oz', quoteId: expect.any(String), Weight: 0.5, WeightUnit: 'lb' })]);
    const price = Number(listed.slice(1));
    expect(await listOrders(token)).toEqual([
      expect.objectContaining({ status: 'completed', price, weight: 8, labelType: expect.objectContaining({ uid: 'ground_oz' }) }),
    ]);
    expect(await balanceOf(token)).toBe(Math.round((100 - price) * 100) / 100);
    await page.getByTestId('order-row').filter({ hasText: listed }).waitFor();
    if (viewport === PHONE) expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await page.context().close();
  });
});

describe('Compare rates on Normal Order', () => {
  it('asks for the ZIP fields’ package and buys the chosen row at its listed price', async () => {
    // The Quick Order tab's addresses and weight carry over to Normal Order's fields.
    const { page, token } = await fillPackage(DESKTOP, '3');
    await page.getByRole('tab', { name: 'Normal Order' }).click();
    const form = page.getByTestId('normal-order-form');
    await expect.poll(() => form.getByTestId('to-card').getByLabel('ZIP').inputValue()).toBe(RECIPIENT.zip);
    await compare(page);
    const fedex = rateRow(page, 'fedex_ground');
    expect(await fedex.getByTestId('rate-days').textContent()).toMatch(/^4 days · /);
    const listed = (await fedex.getByTestId('rate-price').textContent())!;
    await fedex.getByRole('button', { name: 'Choose' }).click();
    await expect.poll(() => form.getByLabel('Type', { exact: true }).locator('option:checked').textContent()).toMatch(/^FedEx Ground/);

    // Another ZIP drops the quote; the ZIP put back, the list holds again.
    const toZip = form.getByTestId('to-card').getByLabel('ZIP');
    await toZip.fill('10002');
    await page.getByTestId('rates-out-of-date').waitFor();
    await toZip.fill(RECIPIENT.zip);
    await page.getByTestId('rates-out-of-date').waitFor({ state: 'detached' });

    const creates: unknown[] = [];
    page.on('request', (r) => void (r.url().endsWith('/api/v1/order/create') && creates.push(r.postDataJSON())));
    await page.getByRole('button', { name: `Create Order ${listed}`, exact: true }).click();
    await toast(page, 'Order created successfully').waitFor();
    expect(creates).toEqual([expect.objectContaining({ labelType: 'fedex_ground', quoteId: expect.any(String), Weight: 3, WeightUnit: 'lb' })]);
    const price = Number(listed.slice(1));
    expect(await listOrders(token)).toEqual([
      expect.objectContaining({ status: 'completed', price, weight: 3, labelType: expect.objectContaining({ uid: 'fedex_ground' }) }),
    ]);
    expect(await balanceOf(token)).toBe(Math.round((100 - price) * 100) / 100);
    await page.context().close();
  });
});

describe('Compare rates: an expired quote', () => {
  it('is refused by Create Order (409), and the list asks to compare again; the new quote is bought', async () => {
    const { page, token } = await fillPackage(DESKTOP, '1');
    await compare(page);
    const fedex = rateRow(page, 'fedex_ground');
    const listed = (await fedex.getByTestId('rate-price').textContent())!;
    await fedex.getByRole('button', { name: 'Choose' }).click();
    await fedex.getByRole('button', { name: 'Chosen' }).waitFor();

    // The quote's 15 minutes have passed.
    await withServerDb(shop.server, (db) => db.updateTable('quotes').set({ expires_at: '2000-01-01T00:00:00.000Z' }).execute());
    await page.getByRole('button', { name: `Create Order ${listed}`, exact: true }).click();
    await toast(page, 'This quote expired; ask for rates again').waitFor();
    await page.getByTestId('rates-out-of-date').filter({ hasText: 'These rates expired. Compare rates again' }).waitFor();
    expect(await fedex.getByRole('button', { name: 'Choose' }).isDisabled()).toBe(true);
    expect(await listOrders(token)).toEqual([]);
    expect(await balanceOf(token)).toBe(100);

    // Compared again, the type stays selected and the order is bought under the new quote.
    await compare(page);
    await fedex.getByRole('button', { name: 'Chosen' }).waitFor();
    await page.getByRole('button', { name: `Create Order ${listed}`, exact: true }).click();
    await toast(page, 'Order created successfully').waitFor();
    const price = Number(listed.slice(1));
    expect(await listOrders(token)).toEqual([
      expect.objectContaining({ status: 'completed', price, labelType: expect.objectContaining({ uid: 'fedex_ground' }) }),
    ]);
    expect(await balanceOf(token)).toBe(Math.round((100 - price) * 100) / 100);
    await page.context().close();
  });
});

describe('Compare rates with a saved package', () => {
  it('picked on Create Order, fills the weight and dimensions, and the list names the types it is too big for', async () => {
    const { page, token } = await fillPackage(DESKTOP, '');
    // 40 x 20 x 20 in: 40 + 2 x (20 + 20) = 120 in of length plus girth, over USPS Priority's 108, within FedEx's 165.
    await api(shop.server.url, '/packages', { name: 'Big box', weight: 10, weightUnit: 'lb', length: 40, width: 20, height: 20 }, token);
    await page.reload();
    await page.getByLabel('From Address Data').fill(FROM_TEXT);
    await page.getByLabel('To Address Data').fill(TO_TEXT);
    const picker = page.getByLabel('Saved Package');
    await picker.locator('option', { hasText: 'Big box' }).waitFor({ state: 'attached' });
    await picker.selectOption({ label: (await picker.locator('option', { hasText: 'Big box' }).textContent())! });
    await expect.poll(() => page.getByLabel('Weight').inputValue()).toBe('10');
    expect(await page.getByLabel('Length').inputValue()).toBe('40');
    expect(await page.getByLabel('Height').inputValue()).toBe('20');
    await compare(page);
    await rateRow(page, 'priority')
      .getByText(/Over its size/)
      .waitFor();
    expect(await rateRow(page, 'fedex_ground').getByRole('button', { name: 'Choose' }).isEnabled()).toBe(true);
    await page.context().close();
  });
});
