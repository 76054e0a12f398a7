import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { PACKAGE_DIMENSIONS_PARTIAL, packageNameTaken } from '@portal/contract';
import { api, fundedAccount, newPage, useShop } from './harness.ts';

// Every test signs up and in: more than the default auth rate limit allows from one address.
const shop = useShop({ env: { RATE_LIMIT_MAX: '1000' } });

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

const toast = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });
const listPackages = async (token: string) => (await api<{ packages: { name: string }[] }>(shop.server.url, '/packages', undefined, token)).packages;

/** A new customer signed in at this size; on a phone the sidebar is a menu behind the header's button. */
async function signedIn(viewport: { width: number; height: number }) {
  const account = await fundedAccount(shop.server, 0);
  const page = await newPage(shop.browser, { viewport });
  await page.goto(`${shop.server.url}/login`);
  await page.getByLabel('Telegram Username').fill(account.tgId);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.getByTestId('user-menu').waitFor();
  return { ...account, page };
}

async function openPackages(page: Page) {
  const menu = page.getByTestId('sidebar');
  if (await menu.isVisible()) await menu.getByRole('link', { name: 'Packages' }).click();
  else {
    await page.getByRole('button', { name: 'Toggle sidebar' }).click();
    await page.getByRole('dialog').getByRole('link', { name: 'Packages' }).click();
  }
  await page.waitForURL(`${shop.server.url}/packages`);
  await page.getByRole('heading', { name: 'Packages', exact: true }).waitFor();
}

/** Nothing on the page is wider than the screen, and the element lies inside it and would take a click. */
async function expectReachable(page: Page, target: Locator) {
  await target.waitFor();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(page.viewportSize()!.width);
  const box = (await target.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width);
  await target.click({ trial: true, timeout: 5_000 });
}

describe('the Packages page', () => {
  for (const viewport of [DESKTOP, PHONE]) {
    it(`adds, edits and deletes a saved package (${viewport.width} px)`, async () => {
      const { page, token } = await signedIn(viewport);
      await openPackages(page);
      await page.getByText('No saved packages yet').waitFor();

      // Add: the modal checks the fields as the server does.
      await expectReachable(page, page.getByRole('button', { name: 'Add Package' }));
      await page.getByRole('button', { name: 'Add Package' }).click();
      const modal = page.getByRole('dialog');
      await modal.getByText('Add Package').waitFor();
      await modal.getByRole('button', { name: 'Save' }).click();
      await modal.getByText('Name is required').waitFor();
      await modal.getByText('Weight is required').waitFor();
      await modal.getByLabel('Name').fill('Small box');
      await modal.getByLabel('Weight', { exact: true }).fill('2.5');
      await modal.getByLabel('Length').fill('10');
      await modal.getByRole('button', { name: 'Save' }).click();
      await modal.getByText(PACKAGE_DIMENSIONS_PARTIAL).waitFor();
      await modal.getByLabel('Width').fill('8');
      await modal.getByLabel('Height').fill('4');
      await expectReachable(page, modal.getByRole('button', { name: 'Save' }));
      await modal.getByRole('button', { name: 'Save' }).click();
      await toast(page, 'Package created successfully').waitFor();
      await modal.waitFor({ state: 'detached' });
      const row = page.getByTestId('package-row');
      await expect.poll(() => row.first().locator('td').allTextContents()).toEqual(['Small box', '2.5 lb', '10 × 8 × 4 in', 'EditDelete']);
      await expectReachable(page, row.first().getByRole('button', { name: 'Edit' }));
      await expectReachable(page, row.first().getByRole('button', { name: 'Delete' }));

      // A second package of the same name, in another case, is refused by the server and said beside the name.
      await page.getByRole('button', { name: 'Add Package' }).click();
      await modal.getByText('Add Package').waitFor();
      await modal.getByLabel('Name').fill('SMALL BOX');
      await modal.getByLabel('Weight', { exact: true }).fill('1');
      await modal.getByRole('button', { name: 'Save' }).click();
      await modal.locator('.invalid-feedback', { hasText: packageNameTaken('SMALL BOX') }).waitFor();
      await modal.getByRole('button', { name: 'Cancel' }).click();
      await modal.waitFor({ state: 'detached' });
      expect((await listPackages(token)).map((p) => p.name)).toEqual(['Small box']);

      // Edit: the modal opens with the package; ounces and no dimensions are saved as such.
      await row.first().getByRole('button', { name: 'Edit' }).click();
      await modal.getByText('Update Package').waitFor();
      await expect.poll(() => modal.getByLabel('Name').inputValue()).toBe('Small box');
      await expect.poll(() => modal.getByLabel('Height').inputValue()).toBe('4');
      await modal.getByLabel('Name').fill('Letter');
      await modal.getByLabel('Weight', { exact: true }).fill('12');
      await modal.getByLabel('Weight unit').selectOption('oz');
      for (const label of ['Length', 'Width', 'Height']) await modal.getByLabel(label).fill('');
      await modal.getByRole('button', { name: 'Update' }).click();
      await toast(page, 'Package updated successfully').waitFor();
      await modal.waitFor({ state: 'detached' });
      await expect.poll(() => row.first().locator('td').allTextContents()).toEqual(['Letter', '12 oz', '', 'EditDelete']);
      expect(await listPackages(token)).toEqual([
        { _id: expect.any(String), name: 'Letter', weight: 12, weightUnit: 'oz', length: null, width: null, height: null },
      ]);

      // Delete: confirmed in the Delete Package modal.
      await row.first().getByRole('button', { name: 'Delete' }).click();
      const confirm = page.getByTestId('confirm-modal');
      await confirm.getByText('Delete Package').waitFor();
      await confirm.getByText('Letter').waitFor();
      await expectReachable(page, confirm.getByRole('button', { name: 'Delete' }));
      await confirm.getByRole('button', { name: 'Delete' }).click();
      await toast(page, 'Package deleted successfully').waitFor();
      await page.getByText('No saved packages yet').waitFor();
      expect(await listPackages(token)).toEqual([]);
      await page.context().close();
    });
  }
});
