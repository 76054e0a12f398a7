import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Overview } from '@portal/contract';
import { adminSession, api, newPage, useShop } from './harness.ts';
import { RATES_UNDER_PRICES } from '../apps/server/test/easypost-fixtures.ts';

const shop = useShop({ easyPost: true, env: { RATE_LIMIT_MAX: '1000' } });

const row = (page: Page, uid: string, packageId: string) => page.locator(`[data-testid="price-check-row"][data-uid="${uid}"][data-package="${packageId}"]`);
const colorOf = (page: Page, uid: string, packageId: string) =>
  row(page, uid, packageId)
    .getByTestId('margin')
    .evaluate((cell) => getComputedStyle(cell).color);
const RED = 'rgb(220, 53, 69)'; // Bootstrap's text-danger

it('the price check page shows a margin below cost in red, the overview warns of it and links there; Check now prices again', async () => {
  // FedEx Ground sells at $6.50 up to 5 lb; upstream it costs $7.20 (so its three US reference packages are below cost).
  // Every other service under its prices: the strict fake's own rates, a carrier's, are above most seed prices.
  shop.fake.rates = { ...RATES_UNDER_PRICES, FEDEX_GROUND: '7.20', Priority: '2.40' };
  const { page } = await adminSession(shop.browser, shop.server);
  await page.goto(`${shop.server.url}/admin/price-check`);
  await page.getByRole('heading', { name: 'Price check', exact: true }).waitFor();
  const fedex = row(page, 'fedex_ground', 'ref-us-1lb');
  await fedex.getByTestId('margin').filter({ hasText: '-$0.70 (-10.8%)' }).waitFor();
  expect(await fedex.getByTestId('cost').textContent()).toBe('$7.20');
  expect(await fedex.getByTestId('price').textContent()).toBe('$6.50');
  expect(await fedex.getByText('Negative margin').count()).toBe(1);
  // Where the rate was found.
  expect(await fedex.getByTestId('upstream').textContent()).toBe('EasyPost');
  expect(await colorOf(page, 'fedex_ground', 'ref-us-1lb')).toBe(RED);
  expect(await row(page, 'priority', 'ref-us-1lb').getByTestId('margin').textContent()).toBe('$2.10 (46.7%)');
  expect(await colorOf(page, 'priority', 'ref-us-1lb')).not.toBe(RED);
  // These are a carrier's rates (the fake EasyPost's), not the sandbox's.
  expect(await page.getByTestId('sandbox-rates-note').count()).toBe(0);

  // At phone width the rows are cards, and the margin is still red.
  const phone = await newPage(shop.browser, { viewport: { width: 390, height: 844 }, storageState: await page.context().storageState() });
  await phone.goto(`${shop.server.url}/admin/price-check`);
  await row(phone, 'fedex_ground', 'ref-us-1lb').getByTestId('margin').filter({ hasText: '-$0.70' }).waitFor();
  expect(await phone.locator('[data-testid="price-check-table"] thead').isVisible()).toBe(false);
  expect(await colorOf(phone, 'fedex_ground', 'ref-us-1lb')).toBe(RED);
  expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await phone.context().close();

  await page.getByRole('navigation', { name: 'Operator console' }).getByRole('link', { name: 'Overview', exact: true }).click();
  const warning = page.getByTestId('price-check-warning');
  await warning.filter({ hasText: "3 prices below the upstream's cost" }).waitFor();
  expect(await warning.evaluate((el) => el.classList.contains('alert-danger'))).toBe(true);
  await warning.getByRole('link', { name: 'Open the price check' }).click();
  await page.getByRole('heading', { name: 'Price check', exact: true }).waitFor();

  // The upstream's rate came down: Check now prices again, and the warning of prices below cost goes.
  shop.fake.rates = { ...RATES_UNDER_PRICES, FEDEX_GROUND: '1.25', Priority: '2.40' };
  await page.getByRole('button', { name: 'Check now' }).click();
  await fedex.getByTestId('margin').filter({ hasText: '$5.25 (80.8%)' }).waitFor();
  expect(await colorOf(page, 'fedex_ground', 'ref-us-1lb')).not.toBe(RED);
  await page.getByRole('navigation', { name: 'Operator console' }).getByRole('link', { name: 'Overview', exact: true }).click();
  await expect.poll(() => page.getByTestId('price-check-warning').filter({ hasText: 'below' }).count()).toBe(0);
  await page.context().close();
});

it('the overview warns of a mapped service the upstream does not rate for its route; the reference packages are edited on the page', async () => {
  const { page, token } = await adminSession(shop.browser, shop.server);
  await page.goto(`${shop.server.url}/admin/label-types`);
  const upsRow = page.locator('[data-testid="upstream-mapping"][data-uid="ups_expedited"][data-upstream="easypost"]');
  const service = upsRow.getByRole('combobox', { name: 'Service of ups_expedited at EasyPost', exact: true });
  await service.waitFor();
  // The editor offers the names the upstream rated; a name it does not rate can only be kept, not chosen. Map the
  // type to another carrier's service name, which the upstream never rates for UPS.
  await upsRow.getByRole('textbox', { name: 'Carrier of ups_expedited at EasyPost', exact: true }).fill('UPS');
  const offered = await service.locator('option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
  expect(offered.length).toBeGreaterThan(0);
  // A carrier the upstream does not rate there: none of its services is offered, only the saved name, marked.
  await upsRow.getByRole('textbox', { name: 'Carrier of ups_expedited at EasyPost', exact: true }).fill('NoSuchCarrier');
  const kept = service.locator('option', { hasText: 'not rated for this route' });
  expect(await kept.count()).toBe(1);
  expect(await service.locator('option').evaluateAll((options) => options.filter((o) => (o as HTMLOptionElement).value).length)).toBe(1);
  await service.selectOption((await kept.getAttribute('value'))!);
  await upsRow.getByRole('button', { name: 'Save the EasyPost service of ups_expedited' }).click();
  await page.getByRole('alert').filter({ hasText: 'EasyPost service saved' }).waitFor();
  await upsRow.getByTestId('not-rated').waitFor();

  // The mapping change made the kept check out of date: a read of the overview runs one in the background, for its
  // next read. Wait for that state through the API (reloading the page in a loop would race each load), then open it.
  await expect.poll(async () => (await api<Overview>(shop.server.url, '/admin/overview', undefined, token)).priceCheck?.notRated ?? 0).toBeGreaterThan(0);
  await page.getByRole('navigation', { name: 'Operator console' }).getByRole('link', { name: 'Overview', exact: true }).click();
  await page
    .getByTestId('price-check-warning')
    .filter({ hasText: /mapped services? the upstream does not rate for the route/ })
    .waitFor();

  // Reference packages: add one on the page; the check prices with it.
  await page.goto(`${shop.server.url}/admin/price-check`);
  await page.getByRole('button', { name: 'Add a package' }).click();
  const form = page.getByTestId('reference-package-form');
  await form.getByLabel('Name').fill('Tube 3 lb, Austin to Denver');
  await form.getByLabel('Weight').fill('3');
  await form.getByLabel('From ZIP').fill('78701');
  await form.getByLabel('To ZIP').fill('80202');
  await form.getByRole('button', { name: 'Add package' }).click();
  await page.getByRole('alert').filter({ hasText: 'Reference package added' }).waitFor();
  const added = page.locator('[data-testid="reference-package-row"]', { hasText: 'Tube 3 lb, Austin to Denver' });
  await added.waitFor();
  const packageId = await added.getAttribute('data-id');
  await row(page, 'priority', packageId!).getByTestId('price').filter({ hasText: '$6.75' }).waitFor();
  await added.getByRole('button', { name: 'Delete Tube 3 lb, Austin to Denver' }).click();
  await page.getByRole('alert').filter({ hasText: 'Reference package deleted' }).waitFor();
  await expect.poll(() => row(page, 'priority', packageId!).count()).toBe(0);
  await page.context().close();
});
