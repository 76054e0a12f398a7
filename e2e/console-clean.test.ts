import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { adminSession, newPage, signInThroughPage, useShop } from './harness.ts';
import { seedDemoCustomer } from './demo-data.ts';

const shop = useShop({ env: { RATE_LIMIT_MAX: '1000' } });
let demo: Awaited<ReturnType<typeof seedDemoCustomer>>;
beforeAll(async () => {
  demo = await seedDemoCustomer(shop.server);
});

/**
 * What a page says is wrong: console errors and warnings, failed requests and answers of 400 and
 * above; and the requests still out, so a screen is checked once everything it asked for came back.
 */
function watch(page: Page) {
  const problems: string[] = [];
  const pending = new Set<unknown>();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()} (${page.url()})`);
  });
  page.on('request', (request) => pending.add(request));
  page.on('requestfinished', (request) => pending.delete(request));
  page.on('requestfailed', (request) => {
    pending.delete(request);
    // A page that is left cancels what it still loads; that is not a failure of the screen.
    if (request.failure()?.errorText !== 'net::ERR_ABORTED')
      problems.push(`failed request: ${request.method()} ${request.url()} ${request.failure()?.errorText}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`answer ${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  return { problems, pending };
}

type Screen = { path: string; title: string; ready: (page: Page) => Locator };

/** Opens each screen by its address (a first load of its chunk), waits for its content and for every request it made. */
async function visit(page: Page, screens: Screen[]) {
  const { problems, pending } = watch(page);
  for (const screen of screens) {
    await page.goto(`${shop.server.url}${screen.path}`);
    // Attached: a select's options count as content though a closed select does not show them.
    await screen.ready(page).first().waitFor({ state: 'attached' });
    await expect.poll(() => page.title()).toBe(`${screen.title} · Label Portal`);
    await expect.poll(() => pending.size).toBe(0);
  }
  return problems;
}

const heading = (name: string) => (page: Page) => page.getByRole('heading', { name, exact: true });

describe('the browser console', () => {
  it('stays clean on every logged-out screen', async () => {
    const page = await newPage(shop.browser);
    const problems = await visit(page, [
      { path: '/', title: 'Sign In', ready: (p) => p.getByRole('button', { name: 'Sign In' }) },
      { path: '/login', title: 'Sign In', ready: (p) => p.getByRole('button', { name: 'Sign In' }) },
      { path: '/register', title: 'Sign Up', ready: (p) => p.getByRole('button', { name: 'Sign Up' }) },
      { path: '/forgot', title: 'Forgot Password', ready: (p) => p.getByTestId('captcha') },
      { path: '/reset', title: 'Reset Password', ready: (p) => p.getByTestId('captcha') },
      { path: '/verify', title: 'Verify Email', ready: (p) => p.getByTestId('captcha') },
      { path: '/tos', title: 'Terms of Service', ready: heading('Terms of Service') },
    ]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('stays clean on every screen of a signed-in customer', async () => {
    const page = await newPage(shop.browser);
    const { problems: signIn } = watch(page);
    await signInThroughPage(page, shop.server.url, demo.tgId, demo.password);
    expect(signIn).toEqual([]);
    const problems = await visit(page, [
      { path: '/', title: 'Dashboard', ready: (p) => p.getByTestId('order-row').nth(3) },
      {
        path: '/createorders',
        title: 'Create Order',
        ready: (p) => p.getByLabel('Type', { exact: true }).locator('option', { hasText: 'USPS Priority Mail' }),
      },
      { path: '/address', title: 'Addresses', ready: (p) => p.getByTestId('address-row').nth(2) },
      { path: '/packages', title: 'Packages', ready: (p) => p.getByTestId('package-row').nth(1) },
      { path: '/deposits', title: 'Deposits', ready: (p) => p.getByText('Current Balance') },
      { path: '/csv-orders', title: 'USPS CSV', ready: (p) => p.getByTestId('bulk-order-row') },
      { path: '/api-docs', title: 'Reseller API', ready: (p) => p.getByTestId('api-call') },
      { path: '/fedex-order', title: 'FedEx - Handmade', ready: heading('FedEx - Handmade') },
      { path: '/faqs', title: 'FAQs', ready: (p) => p.getByText('Frequently Asked Questions') },
      { path: '/amazon-csv', title: 'Amazon CSV Generator', ready: (p) => p.getByTestId('amazon-form') },
      { path: '/settings', title: 'Account Setting', ready: (p) => p.getByTestId('profile-name').getByText('E2E Shipper') },
      { path: '/no-such-screen', title: 'Page not found', ready: (p) => p.getByTestId('not-found') },
    ]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('stays clean on every page of the operator console', async () => {
    const { page } = await adminSession(shop.browser, shop.server);
    const admin = (path: string, name: string): Screen => ({ path, title: 'Operator console', ready: heading(name) });
    const problems = await visit(page, [
      admin('/admin', 'Overview'),
      admin('/admin/users', 'Users'),
      admin('/admin/orders', 'Orders'),
      admin('/admin/label-types', 'Label types and prices'),
      admin('/admin/price-check', 'Price check'),
      admin('/admin/fedex-price', 'FedEx hand-made price'),
      admin('/admin/content', 'Content'),
      admin('/admin/fedex-queue', 'FedEx hand-made queue'),
      admin('/admin/outbox', 'Outbox'),
      admin('/admin/audit', 'Audit log'),
    ]);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
