import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { RESELLER_API_PREFIX, SCAN_FORM_REFUSALS, onScanForm, scanFormName, scanFormsMade } from '@portal/contract';
import { orderParties } from '../apps/server/test/sample-addresses.ts';
import { bulkRow } from '../apps/server/test/reseller-fixtures.ts';
import { api, fundedSession, useShop } from './harness.ts';

const shop = useShop({ env: { RATE_LIMIT_MAX: '1000', ORDER_POLL_INTERVAL_MS: '200' } });

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const ORDER = { labelType: 'priority', design: 'normal', Weight: 2, ...orderParties() };
type Listed = { _id: string; OrderId: string; toName: string; tracking: string | null; status: string };

const row = (page: Page, text: string) => page.getByTestId('order-row').filter({ hasText: text });

describe('End of day: SCAN forms', () => {
  it("puts a group of today's labels on a form, downloads its PDF, shows it on the orders, and fits a phone", async () => {
    const { page, token } = await fundedSession(shop.browser, shop.server, 10_000, { viewport: DESKTOP });
    // Two labels from one sender, one from another street: two groups, two forms.
    for (const ToName of ['Pair One', 'Pair Two']) await api(shop.server.url, '/order/create', { ...ORDER, ToName }, token);
    await api(shop.server.url, '/order/create', { ...ORDER, ToName: 'Lone Label', FromStreet: '99 Other Street' }, token);
    await expect
      .poll(async () => (await api<{ orders: Listed[] }>(shop.server.url, '/order/read?limit=100', undefined, token)).orders.map((o) => o.status))
      .toEqual(['completed', 'completed', 'completed']);
    const orders = (await api<{ orders: Listed[] }>(shop.server.url, '/order/read?limit=100', undefined, token)).orders;
    const pairOne = orders.find((o) => o.toName === 'Pair One')!;

    await page.goto(`${shop.server.url}/scan-forms`);
    await page.getByRole('heading', { name: 'End of day' }).waitFor();
    const groups = page.getByTestId('scan-group');
    await expect.poll(() => groups.count()).toBe(2);
    const pair = groups.filter({ hasText: '123 Main Street' });
    expect(await pair.innerText()).toContain('2 labels');
    expect(await pair.innerText()).toContain(pairOne.tracking);
    await pair.getByRole('button', { name: 'Create SCAN form' }).click();
    await page
      .getByTestId('scan-form-success')
      .filter({ hasText: scanFormsMade(1, 2) })
      .waitFor();

    // The sandbox makes the form within a second; the list is read again until it is Ready.
    const form = page.getByTestId('scan-form-row').first();
    await form.locator('[data-scan-form-status="created"]', { hasText: 'Ready' }).waitFor();
    const [made] = (await api<{ forms: { _id: string; name: string }[] }>(shop.server.url, '/scan-form/read', undefined, token)).forms;
    const name = scanFormName(made!._id);
    expect((await form.locator('td').first().innerText()).trim()).toBe(name);
    expect(await form.innerText()).toContain('USPS');
    const [download] = await Promise.all([page.waitForEvent('download'), form.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe(`${name}.pdf`);
    expect(
      fs
        .readFileSync(await download.path())
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');
    // The labels on it have left today's list; the other sender's group stays.
    await expect.poll(() => groups.count()).toBe(1);
    expect(await groups.first().innerText()).toContain('99 Other Street');

    // Order Details names the form, and a label on it offers no refund.
    await page.goto(`${shop.server.url}/`);
    await row(page, 'Pair One').getByTestId('order-scan-form-badge').waitFor();
    await row(page, 'Pair One').getByRole('button', { name: 'Details' }).click();
    const details = page.getByTestId('order-details');
    await details
      .getByTestId('order-scan-form')
      .filter({ hasText: onScanForm(made!._id) })
      .waitFor();
    expect(await details.getByRole('button', { name: 'Request refund' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await details.waitFor({ state: 'detached' });

    // On a phone the page does not scroll sideways and the remaining group's button is in reach.
    await page.setViewportSize(PHONE);
    await page.goto(`${shop.server.url}/scan-forms`);
    await expect.poll(() => groups.count()).toBe(1);
    await page.getByTestId('scan-form-row').first().waitFor();
    const button = groups.first().getByRole('button', { name: 'Create SCAN form' });
    await button.waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    const box = (await button.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    expect(await button.isVisible()).toBe(true);

    // Order History's selection: one label goes on a form, the one already on a form is named with why.
    await page.setViewportSize(DESKTOP);
    await page.goto(`${shop.server.url}/`);
    for (const toName of ['Lone Label', 'Pair Two']) await row(page, toName).getByRole('checkbox').check();
    await page.getByTestId('order-selection').getByRole('button', { name: 'SCAN form' }).click();
    const warning = page.locator('.Toastify__toast--warning').filter({ hasText: scanFormsMade(1, 1) });
    await warning.waitFor();
    expect(await warning.innerText()).toContain(SCAN_FORM_REFUSALS.onForm(made!._id));
    await row(page, 'Lone Label').getByTestId('order-scan-form-badge').waitFor();
  });

  it("puts a bulk order's labels on a form from its row in CSV Orders", async () => {
    const { page, token } = await fundedSession(shop.browser, shop.server, 10_000, { viewport: DESKTOP });
    const { api_key: apiKey } = await api<{ api_key: string }>(shop.server.url, '/auth/access', undefined, token);
    const placed = await fetch(`${shop.server.url}${RESELLER_API_PREFIX}/order/create-bulk-order`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ labelType: 'priority', design: 'normal', data: [1, 2].map((i) => bulkRow(i, { FromName: 'One Sender' })) }),
    });
    expect(placed.status).toBe(200);
    await page.goto(`${shop.server.url}/csv-orders`);
    const button = page.getByRole('button', { name: 'SCAN form', exact: true });
    // Offered once the bulk order is done.
    await button.waitFor({ timeout: 30_000 });
    await button.click();
    await page
      .locator('.Toastify__toast--success')
      .filter({ hasText: scanFormsMade(1, 2) })
      .waitFor();
  });
});
