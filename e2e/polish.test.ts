import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { api, newPage, signInThroughPage, useShop } from './harness.ts';
import { RECIPIENT } from '../apps/server/test/sample-addresses.ts';
import { DEMO_SENDER, FAILURE_NOTE, copyOrders, listOrders, seedDemoCustomer } from './demo-data.ts';

const shop = useShop({ env: { RATE_LIMIT_MAX: '1000' } });
let demo: Awaited<ReturnType<typeof seedDemoCustomer>>;
beforeAll(async () => {
  demo = await seedDemoCustomer(shop.server);
});

const PHONE = { width: 390, height: 844 };

async function signedIn(viewport = { width: 1366, height: 900 }): Promise<Page> {
  const page = await newPage(shop.browser, { viewport });
  if (viewport.width >= 992) await signInThroughPage(page, shop.server.url, demo.tgId, demo.password);
  else {
    // The sidebar is a menu behind the header's button on phones.
    await page.goto(`${shop.server.url}/login`);
    await page.getByLabel('Telegram Username').fill(demo.tgId);
    await page.getByLabel('Password', { exact: true }).fill(demo.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByTestId('user-menu').waitFor();
  }
  return page;
}

const goTo = async (page: Page, link: string, heading: string) => {
  const menu = page.getByTestId('sidebar');
  if (await menu.isVisible()) await menu.getByRole('link', { name: link }).click();
  else {
    await page.getByRole('button', { name: 'Toggle sidebar' }).click();
    await page.getByRole('dialog').getByRole('link', { name: link }).click();
  }
  await page.getByText(heading, { exact: true }).first().waitFor();
};

/** Nothing on the page is wider than the screen. */
const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

/** The element lies inside the screen's width and would take a click (visible, enabled, not covered). */
async function expectReachable(page: Page, target: Locator) {
  await target.waitFor();
  const box = (await target.boundingBox())!;
  const width = page.viewportSize()!.width;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(width);
  await target.click({ trial: true, timeout: 5_000 });
}

describe('sign-in', () => {
  it('an invalid token opened on a deep link removes the cookie and goes to /', async () => {
    const page = await newPage(shop.browser);
    await page.context().addCookies([{ name: 'token', value: 'not-a-valid-token', url: shop.server.url }]);
    await page.goto(`${shop.server.url}/deposits`);
    await page.waitForURL(`${shop.server.url}/`);
    await page.getByRole('button', { name: 'Sign In' }).waitFor();
    expect((await page.context().cookies()).find((c) => c.name === 'token')).toBeUndefined();
    await page.context().close();
  });
});

describe('order history at scale and order details', () => {
  it("shows 'Page n of N', jumps to first, last and nearby pages from ten pages on, and filters by status", async () => {
    // 105 orders: the seeded 7 (4 single, 3 from the CSV file) plus copies of the FedEx one.
    const fedex = (await listOrders(shop.server, demo.token)).find((o) => o.labelType.uid === 'fedex_ground')!;
    await copyOrders(shop.server, fedex._id, 98);
    const page = await signedIn();
    const pager = page.getByRole('navigation', { name: 'Order History pages' });
    const status = pager.getByTestId('page-status');
    await status.filter({ hasText: /^Page 1 of 11$/ }).waitFor();
    expect(await pager.getByRole('button', { name: /^Page \d+$/ }).allTextContents()).toEqual(['2', '3', '11']);
    await pager.getByRole('button', { name: 'Page 11', exact: true }).click();
    await status.filter({ hasText: /^Page 11 of 11$/ }).waitFor();
    await expect.poll(() => page.getByTestId('order-row').count()).toBe(5);
    await expect.poll(() => pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    expect(await pager.getByRole('button', { name: /^Page \d+$/ }).allTextContents()).toEqual(['1', '9', '10']);
    await pager.getByRole('button', { name: 'Page 9', exact: true }).click();
    await status.filter({ hasText: /^Page 9 of 11$/ }).waitFor();
    expect(await pager.getByRole('button', { name: /^Page \d+$/ }).allTextContents()).toEqual(['1', '7', '8', '10', '11']);
    await pager.getByRole('button', { name: 'Page 1', exact: true }).click();
    await status.filter({ hasText: /^Page 1 of 11$/ }).waitFor();

    // The status filter (the API's status parameter): the one refused order.
    const statusSelect = page.getByLabel('Status', { exact: true });
    expect(await statusSelect.locator('option').allTextContents()).toEqual(['All', 'Pending', 'Processing', 'Completed', 'Cancelled']);
    await statusSelect.selectOption({ label: 'Cancelled' });
    await status.filter({ hasText: /^Page 1 of 1$/ }).waitFor();
    await expect.poll(() => page.getByTestId('order-row').count()).toBe(1);
    const row = page.getByTestId('order-row').first();
    await row.filter({ hasText: demo.refused.OrderId }).waitFor();
    // Under ten pages: Prev / current / Next only.
    expect(await pager.getByRole('button', { name: /^Page \d+$/ }).count()).toBe(0);
    // 'Refunded $x.xx' beside the price.
    const price = `$${demo.refused.price.toFixed(2)}`;
    await expect.poll(() => row.getByTestId('order-refunded').textContent()).toBe(`Refunded ${price}`);
    await statusSelect.selectOption({ label: 'Pending' });
    await page.getByText('No pending orders', { exact: true }).waitFor();
    await statusSelect.selectOption({ label: 'All' });
    await status.filter({ hasText: /^Page 1 of 11$/ }).waitFor();
    await page.context().close();
  });

  it('opens an order from its row: addresses, package, type and template, tracking, price, ledger rows, the failure, its CSV order', async () => {
    const page = await signedIn();
    const search = page.getByLabel('Search orders');
    await search.fill(demo.refused.OrderId);
    const refused = page.getByTestId('order-row').filter({ hasText: demo.refused.OrderId });
    await expect.poll(() => page.getByTestId('order-row').count()).toBe(1);
    await refused.getByRole('button', { name: 'Details' }).click();
    const details = page.getByTestId('order-details');
    await details.getByTestId('order-failure').filter({ hasText: FAILURE_NOTE }).waitFor();
    const price = `$${demo.refused.price.toFixed(2)}`;
    const from = DEMO_SENDER;
    await expect
      .poll(() => details.getByTestId('order-from').textContent())
      .toBe(`From${from.name}${from.company}${from.street}${from.street2}${from.city}, ${from.state} ${from.zip}${from.country}`);
    const to = RECIPIENT;
    await expect.poll(() => details.getByTestId('order-to').textContent()).toBe(`To${to.name}${to.street}${to.city}, ${to.state} ${to.zip}${to.country}`);
    const facts = Object.fromEntries(
      await details
        .getByTestId('order-facts')
        .locator('tr')
        .evaluateAll((rows) => rows.map((r) => [r.children[0]!.textContent, r.children[1]!.textContent])),
    );
    expect(facts).toMatchObject({
      Status: 'Cancelled',
      'Label type': 'USPS Priority Mail',
      Template: 'Normal',
      Weight: '2 lb',
      Dimensions: 'Not given',
      Tracking: 'None yet',
      Price: `${price}Refunded ${price}`,
      'CSV order': 'None (ordered on its own)',
    });
    const ledger = await details
      .getByTestId('order-ledger-row')
      .evaluateAll((rows) => rows.map((r) => [r.children[1]!.textContent, r.children[2]!.textContent]));
    expect(ledger).toEqual([
      ['Order', `-${price}`],
      ['Order refund', `+${price}`],
    ]);
    await page.getByRole('button', { name: 'Close' }).click();
    await details.waitFor({ state: 'detached' });

    // A row of the CSV order: its bulk order and row; charged with the bulk order.
    await search.fill('Maria Garcia');
    const rows = page.getByTestId('order-row');
    await expect.poll(() => rows.count()).toBe(2);
    const orders = await listOrders(shop.server, demo.token, 'search=Maria%20Garcia');
    const fromCsv = (await Promise.all(orders.map((o) => api(shop.server.url, `/order/details/${o._id}`, undefined, demo.token)))).find(
      (d) => d.order.bulkOrderId,
    )!;
    await rows.filter({ hasText: fromCsv.order.OrderId }).getByRole('button', { name: 'Details' }).click();
    await details
      .getByTestId('order-bulk')
      .filter({ hasText: `${fromCsv.order.bulkOrderId.slice(0, 8).toUpperCase()}, row 2` })
      .waitFor();
    await expect.poll(() => details.getByTestId('order-facts').textContent()).toContain('Dimensions15 x 15 x 15 in');
    await details.getByText('Charged with its CSV order.').waitFor();
    await page.context().close();
  });
});

describe('phones (390x844)', () => {
  it('selects orders on their cards for Download selected and Request refund (the # column is hidden)', async () => {
    const page = await signedIn(PHONE);
    const orderRows = page.getByTestId('order-row');
    await orderRows.nth(2).waitFor();
    for (const row of (await orderRows.all()).slice(0, 2)) {
      const box = row.getByRole('checkbox');
      expect(await box.count()).toBe(1);
      await expectReachable(page, box);
      await box.check();
    }
    const bar = page.getByTestId('order-selection');
    await bar.getByText('2 orders selected').waitFor();
    await expectReachable(page, bar.getByRole('button', { name: 'Download selected (2)' }));
    await expectReachable(page, bar.getByRole('button', { name: 'Request refund' }));
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await orderRows.first().getByRole('checkbox').uncheck();
    await bar.getByText('1 order selected').waitFor();
    await page.context().close();
  });

  it('every table shows its key column, status and actions without sideways scrolling; every action is reachable', async () => {
    const page = await signedIn(PHONE);
    // Order History: key, status, and Details / Download / Duplicate on every row.
    const orderRows = page.getByTestId('order-row');
    await orderRows.nth(6).waitFor();
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    for (const row of (await orderRows.all()).slice(0, 3)) {
      await expectReachable(page, row.locator('td.stack-key'));
      await expectReachable(page, row.locator('.badge'));
      for (const button of await row.getByRole('button').all()) await expectReachable(page, button);
    }
    await orderRows.first().getByRole('button', { name: 'Details' }).click();
    await page.getByTestId('order-from').waitFor();
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByTestId('order-details').waitFor({ state: 'detached' });
    await expectReachable(page, page.getByRole('navigation', { name: 'Order History pages' }).getByTestId('page-status'));

    // Addresses: name, and Edit / Delete.
    await goTo(page, 'Addresses', 'Add Address');
    const addressRows = page.getByTestId('address-row');
    await addressRows.nth(2).waitFor();
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    for (const row of await addressRows.all()) {
      await expectReachable(page, row.locator('td.stack-key'));
      await expectReachable(page, row.getByRole('button', { name: 'Edit' }));
      await expectReachable(page, row.getByRole('button', { name: 'Delete' }));
    }
    await addressRows.first().getByRole('button', { name: 'Edit' }).click();
    await page.getByText('Update Address').waitFor();
    await page.keyboard.press('Escape');
    await page.getByText('Update Address').waitFor({ state: 'detached' });

    // Invoices and Statement: date, status, the Pay link of the open invoice.
    await goTo(page, 'Deposits', 'Current Balance');
    const invoice = page.getByTestId('invoice-row').first();
    await invoice.waitFor();
    await page.getByTestId('statement-row').nth(5).waitFor();
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await expectReachable(page, invoice.locator('td.stack-key'));
    await expectReachable(page, invoice.locator('.badge'));
    await expectReachable(page, invoice.getByRole('link', { name: 'Pay' }));
    for (const row of (await page.getByTestId('statement-row').all()).slice(0, 3)) {
      await expectReachable(page, row.locator('td.stack-key'));
      await expectReachable(page, row.locator('td[data-label="Amount"]'));
    }

    // CSV Orders: date, status and the Zip / CSV / PDF downloads.
    await goTo(page, 'USPS CSV', 'CSV Orders');
    const bulk = page.getByTestId('bulk-order-row').first();
    await bulk.getByRole('button', { name: 'PDF' }).waitFor();
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await expectReachable(page, bulk.locator('td.stack-key'));
    await expectReachable(page, bulk.locator('.badge'));
    for (const name of ['Zip', 'CSV', 'PDF']) await expectReachable(page, bulk.getByRole('button', { name, exact: true }));
    const [download] = await Promise.all([page.waitForEvent('download'), bulk.getByRole('button', { name: 'CSV', exact: true }).click()]);
    expect(download.suggestedFilename()).toBe('label.csv');
    await page.context().close();
  });
});

describe('phones (390x844), every route', () => {
  it('nothing scrolls sideways on any screen, the FedEx invoice items included', async () => {
    const page = await signedIn(PHONE);
    const routes = [
      '/',
      '/createOrders',
      '/csv-orders',
      '/fedex-order',
      '/amazon-csv',
      '/deposits',
      '/address',
      '/faqs',
      '/api-docs',
      '/settings',
      '/prices',
      '/tos',
    ];
    const wide: string[] = [];
    const check = async (name: string) => {
      // Every call the screen makes has answered, so what it shows is drawn.
      await page.waitForLoadState('networkidle');
      const width = await pageWidth(page);
      if (width > PHONE.width) wide.push(`${name}: ${width}px`);
    };
    for (const route of routes) {
      await page.goto(`${shop.server.url}${route}`);
      await page.getByTestId('user-menu').waitFor();
      await check(route);
      if (route === '/') {
        // An order's card names its receiver and its date.
        const card = page.getByTestId('order-row').first();
        for (const label of ['To', 'Created At']) await expectReachable(page, card.locator(`td[data-label="${label}"]`));
        expect(await card.locator('td[data-label="To"]').textContent()).not.toBe('');
      }
    }
    await page.goto(`${shop.server.url}/fedex-order`);
    await page.getByRole('tab', { name: 'Create Order' }).click();
    await page.getByTestId('fedex-order-form').waitFor();
    await check('/fedex-order Create Order');
    expect(wide).toEqual([]);
    await page.context().close();
  });
});

describe('rough edges', () => {
  it('money has the thousands separator; the payment page shows the expiry as a local date-time and a countdown', async () => {
    const page = await signedIn();
    await page
      .getByTestId('balance')
      .filter({ hasText: /^\$2,232\.00$/ })
      .waitFor();
    await page
      .getByTestId('header-balance')
      .filter({ hasText: /^Balance: \$2,232\.00$/ })
      .waitFor();
    await goTo(page, 'Deposits', 'Current Balance');
    await page
      .getByTestId('current-balance')
      .filter({ hasText: /^\$2,232\.00$/ })
      .waitFor();
    await page.getByTestId('statement-row').first().filter({ hasText: '$2,232.00' }).waitFor();

    await page.getByLabel('Amount').fill('1250');
    await page.getByRole('button', { name: 'Add Balance' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/pay/'));
    await page.getByText('$1,250.00', { exact: true }).waitFor();
    const expiry = page.locator('time[data-expires]');
    const iso = (await expiry.getAttribute('datetime'))!;
    const local = await page.evaluate((at) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at)), iso);
    await expect.poll(() => expiry.textContent()).toBe(local);
    expect(await page.locator('main').textContent()).not.toContain(iso);
    await expect.poll(() => page.locator('[data-countdown]').textContent()).toMatch(/^(59|60):\d\d left$/);
    const first = await page.locator('[data-countdown]').textContent();
    await expect.poll(() => page.locator('[data-countdown]').textContent()).not.toBe(first);
    await page.context().close();
  });

  it("the CSV progress bar's percentage reads at 0-10%", async () => {
    const page = await signedIn();
    // The real list, with its CSV order shown as at the start of its labels.
    await page.route('**/api/v1/order/read-bulk-orders', async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      body.orders[0] = { ...body.orders[0], status: 'processing', progress: 4, zip: null, pdf: null, csv: null };
      await route.fulfill({ response, json: body });
    });
    await goTo(page, 'USPS CSV', 'CSV Orders');
    const progress = page.getByTestId('bulk-progress');
    const label = progress.locator('.bulk-progress-label');
    await label.filter({ hasText: /^4%$/ }).waitFor();
    const bar = (await progress.locator('.progress').boundingBox())!;
    const fill = (await progress.locator('.progress-bar').boundingBox())!;
    const text = (await label.boundingBox())!;
    // The label is centred over the whole bar, wider than the fill, in dark text.
    expect(fill.width).toBeLessThan(text.width);
    expect(Math.abs(text.x + text.width / 2 - (bar.x + bar.width / 2))).toBeLessThan(2);
    expect(await label.evaluate((el) => getComputedStyle(el).color)).toBe('rgb(33, 37, 41)');
    expect(await label.evaluate((el) => getComputedStyle(el).visibility)).toBe('visible');
    await page.context().close();
  });

  it("shows the spec's error page without a stack trace; a malformed URL gets the app's 404 page", async () => {
    // No page-error trap here: the error is the point.
    const context = await shop.browser.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${shop.server.url}/login`);
    await page.getByLabel('Telegram Username').fill(demo.tgId);
    await page.getByLabel('Password', { exact: true }).fill(demo.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByTestId('sidebar').waitFor();

    // A broken answer makes the Order History throw while rendering.
    await page.route('**/api/v1/order/read?*', (route) => route.fulfill({ json: { orders: [{ _id: 'x' }], totalPages: 1, total: 1 } }));
    await page.reload();
    const error = page.getByTestId('route-error');
    await error.getByRole('heading', { name: 'Unexpected Application Error!' }).waitFor();
    const text = (await error.textContent())!;
    expect(text).toMatch(/Cannot read properties of undefined/);
    expect(text).not.toMatch(/\bat \w|\.js:\d+|Hey developer|errorElement|ErrorBoundary/);
    expect(await page.title()).toBe('Error · Label Portal');
    await page.unroute('**/api/v1/order/read?*');

    for (const bad of ['/deposits/%E0%A4%A', '/%', '/orders.old']) {
      const response = await page.goto(`${shop.server.url}${bad}`);
      expect([bad, response!.status(), response!.headers()['content-type']]).toEqual([bad, 404, expect.stringContaining('text/html')]);
      await page.getByTestId('not-found').getByRole('heading', { name: 'Page not found' }).waitFor();
      expect(await page.title()).toBe('Page not found · Label Portal');
      await page.getByTestId('sidebar').waitFor();
    }
    await page.getByRole('link', { name: 'Go to the Dashboard' }).click();
    await page.getByText('Order History').waitFor();
    await context.close();
  });

  it('has a favicon, and each screen names the document', async () => {
    const page = await newPage(shop.browser);
    await page.goto(`${shop.server.url}/login`);
    await expect.poll(() => page.title()).toBe('Sign In · Label Portal');
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    const response = await page.request.get(`${shop.server.url}${icon}`);
    expect([response.status(), response.headers()['content-type']]).toEqual([200, 'image/svg+xml']);
    expect((await response.text()).startsWith('<svg')).toBe(true);
    await page.goto(`${shop.server.url}/register`);
    await expect.poll(() => page.title()).toBe('Sign Up · Label Portal');
    await page.context().close();

    const signed = await signedIn();
    await expect.poll(() => signed.title()).toBe('Dashboard · Label Portal');
    for (const [link, heading, title] of [
      ['Instant - USPS/FedEx (US)', 'Create Order', 'Create Order'],
      ['USPS CSV', 'CSV Orders', 'USPS CSV'],
      ['Deposits', 'Current Balance', 'Deposits'],
      ['Addresses', 'Add Address', 'Addresses'],
      ['FAQs', 'Frequently Asked Questions', 'FAQs'],
    ]) {
      await goTo(signed, link!, heading!);
      await expect.poll(() => signed.title()).toBe(`${title} · Label Portal`);
    }
    await signed.context().close();
  });

  for (const viewport of [{ width: 1366, height: 900 }, PHONE]) {
    it(`toasts stay top-right, clear of the header's balance and user menu (${viewport.width}x${viewport.height})`, async () => {
      const page = await signedIn(viewport);
      await goTo(page, 'Addresses', 'Add Address');
      await page.getByRole('button', { name: 'Add Address' }).click();
      // An empty submit is refused by the form; a server error toasts. Save a valid one to get the success toast.
      const dialog = page.getByRole('dialog');
      // One name per viewport: the same entry saved twice in one address book is refused.
      await dialog.getByLabel('Name').fill(`Toast Test ${viewport.width}`);
      await dialog.getByLabel('Street', { exact: true }).fill('1 Toast Street');
      await dialog.getByLabel('City').fill('Denver');
      await dialog.getByLabel('State').selectOption('CO');
      await dialog.getByLabel('ZIP').fill('80202');
      await dialog.getByRole('button', { name: /^(Save|Add)/ }).click();
      const toast = page.locator('.Toastify__toast').first();
      await toast.waitFor();
      // It bounces in from the right: measured once its entrance animation has ended.
      await toast.evaluate((element) => Promise.all(element.getAnimations().map((animation) => animation.finished)));
      await expect.poll(async () => (await toast.boundingBox())?.y ?? -1).toBeGreaterThanOrEqual((await page.locator('.app-header').boundingBox())!.height);
      const box = (await toast.boundingBox())!;
      const header = (await page.locator('.app-header').boundingBox())!;
      expect(box.y).toBeGreaterThanOrEqual(header.y + header.height);
      // Top-right: its right edge at the screen's right (within the container's margin).
      expect(viewport.width - (box.x + box.width)).toBeLessThanOrEqual(20);
      await expectReachable(page, page.getByTestId('user-menu'));
      await page.context().close();
    });
  }

  it('the Quick Order placeholder looks like a placeholder, not filled-in data', async () => {
    const page = await signedIn();
    await goTo(page, 'Instant - USPS/FedEx (US)', 'Create Order');
    const from = page.getByLabel('From Address Data');
    expect(await from.inputValue()).toBe('');
    const style = await from.evaluate((el) => {
      const hint = getComputedStyle(el, '::placeholder');
      return { hintStyle: hint.fontStyle, hint: hint.color, text: getComputedStyle(el).color };
    });
    expect(style.hintStyle).toBe('italic');
    expect(style.hint).toBe('rgb(156, 163, 175)');
    expect(style.hint).not.toBe(style.text);
    await page.context().close();
  });
});
