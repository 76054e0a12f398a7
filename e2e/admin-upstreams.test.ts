// The console's upstreams: the mapping editor per upstream (Label types page) and the upstreams' health (overview), on
// a shop that buys at the fake EasyPost first and the sandbox second. Shippo is not one of its upstreams (its adapter
// is not wired on this branch yet): its mappings are prepared, muted, as an operator would before adding it.
import { expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { adminSession, api, newPage, useShop } from './harness.ts';

const shop = useShop({
  easyPost: true,
  env: {
    RATE_LIMIT_MAX: '1000',
    LABEL_UPSTREAMS: 'easypost,sandbox',
    LABEL_UPSTREAM_POLICY: 'preference',
    // One fault makes an upstream unhealthy, and it stays so for the test (no probe within 10 minutes).
    UPSTREAM_BREAKER_FAULTS: '1',
    UPSTREAM_BREAKER_OPEN_MS: '600000',
  },
});

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const toast = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });
const editor = (page: Page, uid: string, upstream: string) => page.locator(`[data-testid="upstream-mapping"][data-uid="${uid}"][data-upstream="${upstream}"]`);
const field = (scope: Locator, name: string) => scope.getByLabel(name, { exact: true });
const noSideScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
/** The message react-bootstrap shows right under a field. */
const feedbackOf = (control: Locator) => control.locator('xpath=following-sibling::div[contains(@class,"invalid-feedback")][1]');

it('the Label types page edits a type at each upstream: a Shippo mapping checked, edited, kept after a reload, then cleared', async () => {
  const { page } = await adminSession(shop.browser, shop.server);
  await page.setViewportSize(DESKTOP);
  await page.goto(`${shop.server.url}/admin/label-types`);
  await page.getByRole('heading', { name: 'Upstream services', exact: true }).waitFor();
  const easypost = editor(page, 'priority', 'easypost');
  const shippo = editor(page, 'priority', 'shippo');
  await easypost.waitFor();
  expect(await easypost.getByRole('heading').textContent()).toBe('EasyPost');
  expect(await shippo.getByRole('heading').textContent()).toBe('Shippo');
  expect(await page.getByTestId('configured-upstreams').textContent()).toBe('EasyPost, Sandbox');
  // EasyPost is one of the shop's upstreams; Shippo is not: muted, with a note, and still editable.
  expect(await easypost.getByTestId('not-configured').count()).toBe(0);
  expect(await shippo.getByTestId('not-configured').textContent()).toContain("Not one of the shop's upstreams (LABEL_UPSTREAMS)");
  expect(await shippo.evaluate((el) => el.classList.contains('text-muted'))).toBe(true);
  expect(await field(easypost, 'Service of priority at EasyPost').inputValue()).toBe('Priority');

  // The seeded Shippo mapping, waiting for the day Shippo is added.
  const carrier = field(shippo, 'Carrier of priority at Shippo');
  const service = field(shippo, 'Service of priority at Shippo');
  expect([await carrier.inputValue(), await service.inputValue()]).toEqual(['USPS', 'usps_priority']);

  // A carrier without a service is refused under the service field, before anything is sent.
  await service.fill('');
  await shippo.getByRole('button', { name: 'Save the Shippo service of priority' }).click();
  await feedbackOf(service).filter({ hasText: 'Set both the carrier and the service, or neither to stop buying the type at Shippo' }).waitFor();
  expect(await service.evaluate((el) => el.classList.contains('is-invalid'))).toBe(true);
  expect(await toast(page, 'Shippo service').count()).toBe(0);

  await service.fill('usps_priority_express');
  await field(shippo, 'Carrier account of priority at Shippo').fill('ca_shippo_1');
  await shippo.getByRole('button', { name: 'Save the Shippo service of priority' }).click();
  await toast(page, 'Shippo service saved').waitFor();
  await shippo.getByText('Mapped', { exact: true }).waitFor();
  expect(await service.evaluate((el) => el.classList.contains('is-invalid'))).toBe(false);

  await page.reload();
  await expect.poll(() => field(shippo, 'Service of priority at Shippo').inputValue()).toBe('usps_priority_express');
  expect(await field(shippo, 'Carrier of priority at Shippo').inputValue()).toBe('USPS');
  expect(await field(shippo, 'Carrier account of priority at Shippo').inputValue()).toBe('ca_shippo_1');
  // The EasyPost mapping of the type is its own.
  expect(await field(easypost, 'Service of priority at EasyPost').inputValue()).toBe('Priority');
  expect(await field(easypost, 'Carrier account of priority at EasyPost').inputValue()).toBe('');

  // At phone width the editors stack: nothing wider than the screen, the Shippo Save button within reach.
  const phone = await newPage(shop.browser, { viewport: PHONE, storageState: await page.context().storageState() });
  await phone.goto(`${shop.server.url}/admin/label-types`);
  const phoneSave = editor(phone, 'priority', 'shippo').getByRole('button', { name: 'Save the Shippo service of priority' });
  await phoneSave.waitFor();
  expect(await noSideScroll(phone)).toBe(true);
  const box = (await phoneSave.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
  await phone.context().close();
  expect(await noSideScroll(page)).toBe(true);

  // Clear: the type is no longer bought at Shippo.
  await shippo.getByRole('button', { name: 'Clear the Shippo service of priority' }).click();
  await toast(page, 'Shippo service removed').waitFor();
  await shippo.getByTestId('not-mapped').waitFor();
  await page.reload();
  await shippo.getByTestId('not-mapped').waitFor();
  expect(await field(shippo, 'Carrier of priority at Shippo').inputValue()).toBe('');
  expect(await field(shippo, 'Service of priority at Shippo').inputValue()).toBe('');
  expect(await shippo.getByRole('button', { name: 'Clear the Shippo service of priority' }).isDisabled()).toBe(true);
  expect(await field(easypost, 'Service of priority at EasyPost').inputValue()).toBe('Priority');
  await page.context().close();
});

it("the overview shows the upstreams' health in order of preference, and, without a reload, EasyPost turning unhealthy after a fault", async () => {
  const { page, token } = await adminSession(shop.browser, shop.server);
  await page.setViewportSize(DESKTOP);
  await page.goto(`${shop.server.url}/admin`);
  const row = (name: string) => page.locator(`[data-testid="upstream-health-row"][data-upstream="${name}"]`);
  await row('easypost').getByTestId('state').filter({ hasText: 'Healthy' }).waitFor();
  expect(await page.getByTestId('upstream-health-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-upstream')))).toEqual([
    'easypost',
    'sandbox',
  ]);
  expect(await row('easypost').locator('td').first().textContent()).toBe('EasyPost');
  expect(await row('sandbox').getByTestId('state').textContent()).toBe('Healthy');
  expect(await page.getByTestId('upstream-policy').textContent()).toBe('Buys at the first healthy upstream');
  expect(await row('easypost').getByTestId('last-error').textContent()).toBe('none');
  expect(await noSideScroll(page)).toBe(true);

  // The page stays as it is (no reload): the view reads itself again.
  await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
  shop.fake.faults = [{ kind: '500', count: 1000 }];
  try {
    // Any call to EasyPost meets the fault: here the price check run anew.
    await api(shop.server.url, '/admin/price-check?refresh=true', undefined, token);
  } finally {
    shop.fake.faults = [];
  }
  await expect.poll(() => row('easypost').getByTestId('state').textContent(), { timeout: 30_000 }).toBe('Unhealthy — skipped until the next probe');
  expect(await row('easypost').getByTestId('probe-at').textContent()).toMatch(/^at /);
  expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
  expect(Number(await row('easypost').getByTestId('faults').textContent())).toBeGreaterThanOrEqual(1);
  expect(Number(await row('easypost').getByTestId('calls').textContent())).toBeGreaterThanOrEqual(1);
  expect(await row('easypost').getByTestId('last-error').textContent()).not.toBe('none');
  expect(await row('easypost').getByTestId('p95').textContent()).toMatch(/^\d+ ms$/);
  expect(await row('sandbox').getByTestId('state').textContent()).toBe('Healthy');
  expect(await noSideScroll(page)).toBe(true);

  // At phone width each upstream is a card: no table header, nothing wider than the screen.
  const phone = await newPage(shop.browser, { viewport: PHONE, storageState: await page.context().storageState() });
  await phone.goto(`${shop.server.url}/admin`);
  const card = phone.locator('[data-testid="upstream-health-row"][data-upstream="easypost"]');
  await card.getByTestId('state').filter({ hasText: 'Unhealthy' }).waitFor();
  expect(await phone.locator('[data-testid="upstream-health-table"] thead').isVisible()).toBe(false);
  expect(await noSideScroll(phone)).toBe(true);
  const box = (await card.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
  await phone.context().close();
  await page.context().close();
});
