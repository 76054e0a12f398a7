import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { ACCOUNT_DISABLED, ADJUSTMENT_BELOW_ZERO, ADMIN_ONLY } from '@portal/contract';
import {
  adminSession,
  api,
  createAccount,
  fundedAccount,
  newPage,
  signInThroughPage,
  uniqueTgId,
  useShop,
  type RunningServer,
  selectLabelType,
} from './harness.ts';
import { RECIPIENT, SENDER, orderParties } from '../apps/server/test/sample-addresses.ts';

const root = path.resolve(import.meta.dirname, '..');
// Every test signs up and in; without SMTP_URL every mail is kept in the outbox the console shows.
const SHOP = { RATE_LIMIT_MAX: '1000', SMTP_URL: '' };

const shop = useShop({ env: SHOP });

/** A call of any method, answering status and body. */
async function call(shop: RunningServer, token: string, method: string, pathName: string, body?: unknown) {
  const response = await fetch(`${shop.url}/api/v1${pathName}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const toast = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });
const cells = (row: Locator) => row.locator('td').allTextContents();
const consoleNav = (page: Page) => page.getByRole('navigation', { name: 'Operator console' });

/** Opens a console page from its sub-menu and waits for its heading. */
async function openConsole(page: Page, entry: string, heading: string) {
  await consoleNav(page).getByRole('link', { name: entry, exact: true }).click();
  await page.getByRole('heading', { name: heading, exact: true }).waitFor();
}

async function openUser(page: Page, tgId: string) {
  await openConsole(page, 'Users', 'Users');
  await page.getByLabel('Search users').fill(tgId);
  const row = page.getByTestId('user-row').filter({ hasText: `@${tgId}` });
  await row.waitFor();
  await expect.poll(() => page.getByTestId('user-row').count()).toBe(1);
  await row.getByRole('link').click();
  await page.getByTestId('user-name').waitFor();
}

async function adjust(page: Page, direction: 'Credit (add)' | 'Debit (take)', amount: string, reason: string) {
  const form = page.getByRole('form', { name: 'Credit or debit' });
  await form.getByLabel('Direction').selectOption({ label: direction });
  await form.getByLabel('Amount').fill(amount);
  await form.getByLabel('Reason').fill(reason);
  await form.getByRole('button', { name: 'Apply' }).click();
}

const ORDER = {
  labelType: 'priority',
  design: 'pitney',
  Weight: 2,
  Length: 10,
  Width: 8,
  Height: 4,
  ...orderParties(),
  ToCompany: 'Receiver Co',
};
type Listed = { _id: string; OrderId: string; tracking: string | null; status: string; price: number };
const lastOrder = async (shop: RunningServer, token: string) => (await api<{ orders: Listed[] }>(shop.url, '/order/read?limit=1', undefined, token)).orders[0]!;

describe('operator console', () => {
  it('is not there for a customer: no link, /admin is the dashboard, the console chunk is never fetched, the API answers 403', async () => {
    const customer = await createAccount(shop.server.url);
    const page = await newPage(shop.browser);
    const scripts = new Set<string>();
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname.startsWith('/assets/') && pathname.endsWith('.js')) scripts.add(pathname);
    });
    await signInThroughPage(page, shop.server.url, customer.tgId, customer.password);
    const sidebar = page.getByTestId('sidebar');
    await sidebar.getByRole('link', { name: 'Reseller API' }).waitFor();
    await expect(sidebar.getByRole('link', { name: 'Operator console' }).count()).resolves.toBe(0);

    await page.goto(`${shop.server.url}/admin/users`);
    await page.waitForURL(`${shop.server.url}/`);
    await page.getByTestId('orders-count').filter({ hasText: '0' }).waitFor();
    // The console's pages and its chart are chunks of their own, which a customer's pages never ask for.
    const consoleChunks = fs.readdirSync(path.join(root, 'apps/web/dist/assets')).filter((file) => /^(admin-console|daily-chart)-.+\.js$/.test(file));
    expect(consoleChunks).toHaveLength(2);
    expect([...scripts].filter((script) => consoleChunks.includes(path.basename(script)))).toEqual([]);
    expect(scripts.size).toBeGreaterThan(1);

    const refused = await call(shop.server, customer.token, 'GET', '/admin/overview');
    expect(refused).toEqual({ status: 403, body: { message: ADMIN_ONLY } });
  });

  it('an admin made by the CLI credits a customer, who sees the Manual invoice and the balance; a tier edit and the announcement reach the customer at once', async () => {
    const admin = await adminSession(shop.browser, shop.server);
    const customer = await createAccount(shop.server.url, uniqueTgId('shopper'));
    const { page } = admin;

    // The console, from the sidebar: the overview's figures are the server's, and the chart is drawn.
    await page.getByTestId('sidebar').getByRole('link', { name: 'Operator console' }).click();
    await page.waitForURL(`${shop.server.url}/admin`);
    await page.getByRole('heading', { name: 'Operator console' }).waitFor();
    const overview = (await call(shop.server, admin.token, 'GET', '/admin/overview')).body;
    await page
      .getByTestId('overview-users')
      .filter({ hasText: new RegExp(`^${overview.users}$`) })
      .waitFor();
    await page
      .getByTestId('overview-balances')
      .filter({ hasText: /^\$\d+\.\d\d$/ })
      .waitFor();
    await page.getByTestId('daily-chart').locator('canvas').first().waitFor();
    await expect(page.getByTestId('daily-table').locator('tbody tr').count()).resolves.toBe(30);
    // Days are the shop's (SHOP_TIME_ZONE, UTC in the tests); the Going live checklist says what this shop still needs.
    await expect(page.getByTestId('daily-table').locator('thead th').first().textContent()).resolves.toBe('Day (UTC)');
    const checklist = (await call(shop.server, admin.token, 'GET', '/admin/going-live')).body.items as { id: string; done: boolean; detail: string }[];
    const card = page.getByTestId('going-live');
    await card
      .getByTestId('going-live-count')
      .filter({ hasText: `${checklist.filter((item) => item.done).length} of 8 done` })
      .waitFor();
    const smtp = card.locator('[data-item="smtp"]');
    await expect(smtp.getAttribute('data-done')).resolves.toBe('false');
    await smtp.getByText('To do').waitFor();
    await smtp.getByTestId('going-live-detail').filter({ hasText: 'SMTP_URL is not set' }).waitFor();
    await card.locator('[data-item="public_url"]').getByTestId('going-live-detail').filter({ hasText: 'PUBLIC_URL is not set' }).waitFor();

    // Credit $25.50 with a reason; a debit past zero is refused with the server's message.
    await openUser(page, customer.tgId);
    await page.getByTestId('user-balance').filter({ hasText: '$0.00' }).waitFor();
    await page.getByRole('form', { name: 'Credit or debit' }).getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Reason is required').waitFor();
    await adjust(page, 'Credit (add)', '25.50', 'Goodwill for a late parcel');
    await toast(page, 'Balance credited').waitFor();
    await page.getByTestId('user-balance').filter({ hasText: '$25.50' }).waitFor();
    const credit = page.getByTestId('statement-row').first();
    await credit.filter({ hasText: '+$25.50' }).waitFor();
    expect((await cells(credit)).slice(1)).toEqual(['Adjustment', 'Goodwill for a late parcel', '+$25.50', '$25.50']);
    await adjust(page, 'Debit (take)', '100', 'Too much');
    await toast(page, ADJUSTMENT_BELOW_ZERO).waitFor();
    await expect(page.getByTestId('user-balance').textContent()).resolves.toBe('$25.50');
    expect((await api(shop.server.url, '/auth/access', undefined, customer.token)).balance).toBe(25.5);
    await page.getByRole('tab', { name: 'Invoices' }).click();
    const manual = page.getByTestId('user-invoices').getByTestId('invoice-row').first();
    await manual.waitFor();
    expect((await cells(manual)).slice(1)).toEqual(['$25.50', '0%', 'Manual', 'Completed']);

    // The customer sees the new balance and the Manual invoice.
    const shopper = await newPage(shop.browser);
    await signInThroughPage(shopper, shop.server.url, customer.tgId, customer.password);
    await shopper.getByTestId('header-balance').filter({ hasText: '$25.50' }).waitFor();
    await shopper.getByTestId('sidebar').getByRole('link', { name: 'Deposits' }).click();
    await shopper.getByTestId('current-balance').filter({ hasText: '$25.50' }).waitFor();
    const invoice = shopper.getByTestId('invoice-row').first();
    await invoice.waitFor();
    expect((await cells(invoice)).slice(1)).toEqual(['$25.50', '0%', 'Manual', 'Completed']);

    // The console's Orders page lists it among every customer's invoices.
    await openConsole(page, 'Orders', 'Orders');
    await page.getByRole('tab', { name: 'Invoices' }).click();
    await page.getByRole('tabpanel').getByLabel('Customer').fill(`@${customer.tgId}`);
    const listed = page.getByTestId('admin-invoice-row').filter({ hasText: `@${customer.tgId}` });
    await listed.waitFor();
    await expect.poll(() => page.getByTestId('admin-invoice-row').count()).toBe(1);
    expect((await cells(listed)).slice(1)).toEqual([`@${customer.tgId}`, '$25.50', '0%', 'Manual', 'Completed']);

    // Before the edit: 2 lb of Priority costs $6.75.
    const priceFor2lb = async (expected: string) => {
      await shopper.goto(`${shop.server.url}/createOrders`);
      await shopper.getByLabel('Type', { exact: true }).locator('option', { hasText: 'USPS Priority Mail' }).first().waitFor({ state: 'attached' });
      await selectLabelType(shopper.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
      await shopper.getByLabel('Weight').fill('2');
      await shopper.getByRole('button', { name: `Create Order $${expected}`, exact: true }).waitFor();
    };
    await priceFor2lb('6.75');

    // The tier editor refuses a gap, an overlap and an empty tier, naming the tier; then saves.
    await openConsole(page, 'Label types', 'Label types and prices');
    const priority = page.locator('[data-testid="label-type-row"][data-uid="priority"]');
    await priority.getByRole('button', { name: 'Edit' }).click();
    const editor = page.getByRole('form', { name: 'Edit label type' });
    await expect(editor.getByTestId('tier-row').count()).resolves.toBe(6);
    const problem = editor.getByTestId('tier-problem');
    await editor.getByLabel('Tier 2 from').fill('2');
    await editor.getByRole('button', { name: 'Save' }).click();
    await problem.filter({ hasText: 'Tier 2 (2-5): gap after tier 1 (1-2 has no price)' }).waitFor();
    await editor.getByLabel('Tier 2 from').fill('0.5');
    await editor.getByRole('button', { name: 'Save' }).click();
    await problem.filter({ hasText: 'Tier 2 (0.5-5): overlaps tier 1 (0-1)' }).waitFor();
    await editor.getByLabel('Tier 2 from').fill('1');
    await editor.getByRole('button', { name: 'Add tier' }).click();
    await expect(editor.getByTestId('tier-row').count()).resolves.toBe(7);
    await editor.getByLabel('Tier 7 price').fill('30');
    await editor.getByRole('button', { name: 'Save' }).click();
    await problem.filter({ hasText: 'Tier 7 (70-70): the end weight must be above the start weight' }).waitFor();
    await editor.getByRole('button', { name: 'Remove tier 7' }).click();
    await expect(editor.getByTestId('tier-row').count()).resolves.toBe(6);
    await editor.getByLabel('Tier 2 price').fill('7.10');
    await editor.getByRole('button', { name: 'Save' }).click();
    await toast(page, 'Label type saved; new orders use it').waitFor();
    await priority.getByTestId('tiers').filter({ hasText: '1-5 lb: $7.10' }).waitFor();
    await priceFor2lb('7.10');

    // The audit log names the type it changed, not its id.
    const { labelTypes } = await api<{ labelTypes: { _id: string; uid: string }[] }>(shop.server.url, '/admin/label-types', undefined, admin.token);
    await openConsole(page, 'Audit log', 'Audit log');
    await page.getByLabel('Admin').fill(`@${admin.tgId}`);
    await page.getByLabel('Target').fill('label_type');
    const typeEdit = page.getByTestId('audit-row').filter({ hasText: 'label_type.update' }).first();
    await typeEdit
      .getByTestId('audit-target-name')
      .filter({ hasText: /^USPS Priority Mail$/ })
      .waitFor();
    expect(await typeEdit.locator('td').nth(3).innerText()).not.toContain(labelTypes.find((t) => t.uid === 'priority')!._id);

    // The announcement: saved in the console, shown on the customer's dashboard.
    await openConsole(page, 'Content', 'Content');
    const announcement = page.getByRole('form', { name: 'Announcement' });
    await announcement.getByLabel('Text shown on the dashboard').fill('Holiday hours: labels bought Friday ship Monday');
    await announcement.getByLabel('Show the announcement').check();
    await announcement.getByRole('button', { name: 'Save announcement' }).click();
    await toast(page, 'Announcement saved').waitFor();
    await shopper.goto(`${shop.server.url}/`);
    await shopper
      .getByTestId('announcement')
      .filter({ hasText: /^Holiday hours: labels bought Friday ship Monday$/ })
      .waitFor();
    // Switched off, it is gone from the dashboard.
    await announcement.getByLabel('Show the announcement').uncheck();
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/v1/admin/content/announcement') && r.request().method() === 'PUT' && r.ok()),
      announcement.getByRole('button', { name: 'Save announcement' }).click(),
    ]);
    await shopper.reload();
    await shopper.getByTestId('orders-count').filter({ hasText: '0' }).waitFor();
    await expect(shopper.getByTestId('announcement').count()).resolves.toBe(0);
  });

  it("finds any customer's order by filters, opens it with its addresses, dimensions and ledger, and downloads its label", async () => {
    const admin = await adminSession(shop.browser, shop.server);
    const customer = await fundedAccount(shop.server, 5000, uniqueTgId('buyer'));
    await api(shop.server.url, '/order/create', ORDER, customer.token);
    const order = await lastOrder(shop.server, customer.token);
    expect(order.status).toBe('completed');
    const { page } = admin;

    await page.goto(`${shop.server.url}/admin/orders`);
    await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
    await page.getByLabel('Customer').fill(`@${customer.tgId}`);
    const row = page.getByTestId('admin-order-row').filter({ hasText: order.OrderId });
    await row.waitFor();
    await expect.poll(() => page.getByTestId('admin-order-row').count()).toBe(1);
    await page
      .getByTestId('page-status')
      .filter({ hasText: /^Page 1 of 1$/ })
      .waitFor();
    // The price is whatever the Priority tier says now (another test edits it). The tracking number is under the order
    // id and the weight under the type.
    const price = `$${order.price.toFixed(2)}`;
    expect((await cells(row)).slice(0, 7)).toEqual([
      `${order.OrderId}${order.tracking}`,
      `@${customer.tgId}`,
      'USPS Priority Mail2 lb',
      SENDER.name,
      RECIPIENT.name,
      price,
      'Completed',
    ]);
    // At 1366 px the list fits its card, Download on screen, and the days read "From [day] To [day]" on one line.
    await page.setViewportSize({ width: 1366, height: 900 });
    const table = page.getByTestId('admin-orders-table');
    await expect
      .poll(() =>
        table.evaluate((t) => ({ scrolls: t.parentElement!.scrollWidth > t.parentElement!.clientWidth, fits: t.scrollWidth <= t.parentElement!.clientWidth })),
      )
      .toEqual({ scrolls: false, fits: true });
    const downloadButton = row.getByRole('button', { name: 'Download' });
    const [buttonBox, cardBox] = [await downloadButton.boundingBox(), await page.locator('.card').filter({ has: table }).boundingBox()];
    expect(buttonBox!.x + buttonBox!.width).toBeLessThanOrEqual(cardBox!.x + cardBox!.width);
    const days = page.getByTestId('day-range');
    expect(await days.locator('.input-group-text').allTextContents()).toEqual(['From', 'To']);
    const tops = await days.locator('.input-group-text, input').evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().top)));
    expect(new Set(tops).size).toBe(1);
    // A status filter that matches nothing empties the list.
    await page.getByLabel('Status').selectOption({ label: 'Cancelled' });
    await page.getByText('No orders match').waitFor();
    await page.getByLabel('Status').selectOption({ label: 'Completed' });
    await row.waitFor();

    await row.getByRole('button', { name: 'Open' }).click();
    const detail = page.getByTestId('order-detail');
    await detail.getByTestId('order-to').filter({ hasText: 'Receiver Co' }).waitFor();
    await expect(detail.getByTestId('order-from').textContent()).resolves.toContain(
      `${SENDER.name}${SENDER.street}${SENDER.city}, ${SENDER.state} ${SENDER.zip}`,
    );
    await expect(detail.getByTestId('order-dims').textContent()).resolves.toBe('10 x 8 x 4 in');
    await expect(detail.getByTestId('order-bulk').textContent()).resolves.toBe('None (a single order)');
    const ledger = detail.getByTestId('order-ledger-row');
    await expect(ledger.count()).resolves.toBe(1);
    expect((await cells(ledger.first())).slice(1, 3)).toEqual(['Order', `-${price}`]);
    await expect(page.getByRole('button', { name: 'Cancel order' }).count()).resolves.toBe(0);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download label' }).click()]);
    expect(download.suggestedFilename()).toBe(`${order.tracking}.pdf`);
    expect(
      fs
        .readFileSync(await download.path())
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');

    // From the order to its customer's page, whose Orders tab lists it too.
    await page.getByRole('dialog').locator('.modal-footer').getByRole('button', { name: 'Close' }).click();
    await page
      .getByTestId('admin-order-row')
      .getByRole('link', { name: `@${customer.tgId}` })
      .click();
    await page.getByTestId('user-name').waitFor();
    await page.getByRole('tab', { name: 'Orders' }).click();
    await page.getByTestId('admin-order-row').filter({ hasText: order.OrderId }).waitFor();

    // A refunded label: Refunded in the list and in the order's view, and its label is not offered for download there.
    await api(shop.server.url, '/order/create', { ...ORDER, ToName: 'Voided Receiver' }, customer.token);
    const voided = await lastOrder(shop.server, customer.token);
    expect((await call(shop.server, customer.token, 'POST', `/order/refund/${voided._id}`)).status).toBe(200);
    expect((await call(shop.server, admin.token, 'POST', `/admin/orders/${voided._id}/refund/approve`)).status).toBe(200);
    await page.goto(`${shop.server.url}/admin/orders`);
    await page.getByLabel('Customer').fill(`@${customer.tgId}`);
    const voidedRow = page.getByTestId('admin-order-row').filter({ hasText: voided.OrderId });
    await voidedRow.locator('[data-refund-status="refunded"]').filter({ hasText: 'Refunded' }).waitFor();
    expect(await voidedRow.getByRole('button', { name: 'Download' }).count()).toBe(0);
    expect(await page.getByTestId('admin-order-row').filter({ hasText: order.OrderId }).getByRole('button', { name: 'Download' }).count()).toBe(1);
    await voidedRow.getByRole('button', { name: 'Open' }).click();
    await page.getByTestId('order-detail').getByTestId('order-refund').filter({ hasText: 'Refunded' }).waitFor();
    expect(await page.getByRole('dialog').getByRole('button', { name: 'Download label' }).count()).toBe(0);
  });

  it('disables and enables an account, grants and revokes admin, each confirmed and answered in a toast', async () => {
    const admin = await adminSession(shop.browser, shop.server);
    const customer = await createAccount(shop.server.url, uniqueTgId('member'));
    const { page } = admin;
    await page.goto(`${shop.server.url}/admin`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await openUser(page, customer.tgId);
    const confirm = async (button: string, action: string, message: string) => {
      await page.getByRole('button', { name: button, exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: action, exact: true }).click();
      await toast(page, message).waitFor();
    };

    await confirm('Disable account', 'Disable', 'Account disabled');
    await page.getByTestId('disabled-badge').waitFor();
    const refused = await call(shop.server, customer.token, 'GET', '/auth/access');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(ACCOUNT_DISABLED);
    await confirm('Enable account', 'Enable', 'Account enabled');
    await page.getByRole('button', { name: 'Disable account' }).waitFor();
    await expect(page.getByTestId('disabled-badge').count()).resolves.toBe(0);

    await confirm('Grant admin', 'Grant admin', 'Role set to admin');
    await page
      .getByTestId('role-badge')
      .filter({ hasText: /^Admin$/ })
      .waitFor();
    const fresh = await api<{ accessToken: string }>(shop.server.url, '/auth/login', { tgId: customer.tgId, password: customer.password }, undefined, true);
    expect((await api(shop.server.url, '/auth/access', undefined, fresh.accessToken)).role).toBe('admin');
    await confirm('Revoke admin', 'Revoke admin', 'Role set to customer');
    await page
      .getByTestId('role-badge')
      .filter({ hasText: /^Customer$/ })
      .waitFor();
    expect((await api(shop.server.url, '/auth/access', undefined, fresh.accessToken)).role).toBe('customer');
  });

  it('edits the FAQs (add, edit, reorder, delete), the terms with a sanitized preview, and the FedEx price; shows the FedEx queue', async () => {
    const admin = await adminSession(shop.browser, shop.server);
    const { page } = admin;
    await page.goto(`${shop.server.url}/admin/content`);
    await page.getByRole('heading', { name: 'Content', exact: true }).waitFor();
    const questions = () => page.getByTestId('faq-question').allTextContents();
    const before = await questions();
    expect(before.length).toBeGreaterThan(1);

    await page.getByRole('button', { name: 'Add FAQ' }).click();
    const faqForm = page.getByRole('form', { name: 'FAQ' });
    await faqForm.getByRole('button', { name: 'Save FAQ' }).click();
    await faqForm.getByText('Question is required').waitFor();
    await faqForm.getByLabel('Question').fill('Do you ship on weekends?');
    await faqForm.getByLabel('Answer').fill('Labels bought on weekends ship on Monday.');
    await faqForm.getByRole('button', { name: 'Save FAQ' }).click();
    await toast(page, 'FAQ added').waitFor();
    await expect.poll(questions).toEqual([...before, 'Do you ship on weekends?']);

    const added = page.getByTestId('admin-faq').filter({ hasText: 'Do you ship on weekends?' });
    await added.getByRole('button', { name: 'Edit' }).click();
    await faqForm.getByLabel('Question').fill('Do you ship on Saturdays?');
    await faqForm.getByRole('button', { name: 'Save FAQ' }).click();
    await toast(page, 'FAQ saved').waitFor();
    await page.getByRole('button', { name: 'Move up: Do you ship on Saturdays?' }).click();
    await toast(page, 'FAQ order saved').waitFor();
    const moved = [...before.slice(0, -1), 'Do you ship on Saturdays?', before.at(-1)!];
    await expect.poll(questions).toEqual(moved);
    const customer = await createAccount(shop.server.url);
    expect((await api(shop.server.url, '/faq/read', undefined, customer.token)).data.map((f: { question: string }) => f.question)).toEqual(moved);
    await page.getByTestId('admin-faq').filter({ hasText: 'Do you ship on Saturdays?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await toast(page, 'FAQ deleted').waitFor();
    await expect.poll(questions).toEqual(before);

    // Terms: the preview never runs a script or an event handler; the server keeps the safe part.
    const terms = page.getByRole('form', { name: 'Terms of service' });
    await terms
      .getByLabel('HTML')
      .fill('<h2>Shipping terms</h2><p>Labels are final.</p><img src="x" onerror="window.hacked=1"><script>window.hacked=2</script>');
    const preview = page.getByTestId('tos-preview');
    await preview.getByRole('heading', { name: 'Shipping terms' }).waitFor();
    await expect(preview.locator('script').count()).resolves.toBe(0);
    await expect(preview.locator('[onerror]').count()).resolves.toBe(0);
    await terms.getByRole('button', { name: 'Save terms' }).click();
    await toast(page, 'Terms saved').waitFor();
    expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();
    const saved = (await api(shop.server.url, '/tos/read')).tos as string;
    expect(saved).toContain('<h2>Shipping terms</h2><p>Labels are final.</p>');
    expect(saved).not.toContain('script');
    expect(saved).not.toContain('onerror');

    await openConsole(page, 'FedEx price', 'FedEx hand-made price');
    await page
      .getByTestId('fedex-price')
      .filter({ hasText: /^\$\d+\.\d\d$/ })
      .waitFor();
    await page.getByLabel('New price').fill('0');
    await page.getByRole('button', { name: 'Save price' }).click();
    await page.getByText('Price must be greater than 0').waitFor();
    await page.getByLabel('New price').fill('18.25');
    await page.getByRole('button', { name: 'Save price' }).click();
    await toast(page, 'FedEx hand-made price saved: $18.25').waitFor();
    await page.getByTestId('fedex-price').filter({ hasText: '$18.25' }).waitFor();

    await openConsole(page, 'FedEx queue', 'FedEx hand-made queue');
    await page
      .getByTestId('fedex-queue-empty')
      .filter({ hasText: /^The FedEx hand-made queue is empty: no order waits for an operator\.$/ })
      .waitFor();
  });

  it('reads the outbox newest first with the body, and pages and filters the audit log', async () => {
    const admin = await adminSession(shop.browser, shop.server);
    const { page } = admin;
    // A mail to the outbox: the code of an email change.
    const customer = await createAccount(shop.server.url);
    const email = `${customer.tgId.toLowerCase()}@example.com`;
    await api(shop.server.url, '/account/email', { email }, customer.token);

    await page.goto(`${shop.server.url}/admin/outbox`);
    await page.getByRole('heading', { name: 'Outbox', exact: true }).waitFor();
    const newest = page.getByTestId('outbox-mail').first();
    await newest.filter({ hasText: email }).waitFor();
    await newest.getByRole('button', { name: /Your email verification code/ }).click();
    await newest
      .getByTestId('outbox-body')
      .filter({ hasText: /\b\d{6}\b/ })
      .waitFor();

    // 21 price changes by this admin: two pages of the audit log (20 a page), newest first.
    for (let i = 1; i <= 21; i++) expect((await call(shop.server, admin.token, 'PUT', '/admin/fedex-price', { price: 10 + i })).status).toBe(200);
    await openConsole(page, 'Audit log', 'Audit log');
    // Unfiltered, the log also holds the CLI's grant: page 1 looks the same, so wait for the filtered answer.
    await Promise.all([page.waitForResponse((r) => r.url().includes('/api/v1/admin/audit?admin=') && r.ok()), page.getByLabel('Admin').fill(`@${admin.tgId}`)]);
    const pager = page.getByRole('navigation', { name: 'Audit log pages' });
    await page
      .getByTestId('page-status')
      .filter({ hasText: /^Page 1 of 2$/ })
      .waitFor();
    await expect.poll(() => page.getByTestId('audit-row').count()).toBe(20);
    expect((await cells(page.getByTestId('audit-row').first())).slice(1, 3)).toEqual([`@${admin.tgId}`, 'fedex_price.update']);
    await pager.getByRole('button', { name: 'Next' }).click();
    await page
      .getByTestId('page-status')
      .filter({ hasText: /^Page 2 of 2$/ })
      .waitFor();
    await expect.poll(() => page.getByTestId('audit-row').count()).toBe(1);
    await expect(pager.getByRole('button', { name: 'Next' }).isDisabled()).resolves.toBe(true);
    // A target filter that matches none of them, and a day range before any of them.
    await page.getByLabel('Target').fill('faq');
    await page.getByText('No audit entries match').waitFor();
    await page
      .getByTestId('page-status')
      .filter({ hasText: /^Page 1 of 1$/ })
      .waitFor();
    await page.getByLabel('Target').fill('setting');
    await page
      .getByTestId('page-status')
      .filter({ hasText: /^Page 1 of 2$/ })
      .waitFor();
    await page.getByLabel('To date').fill('2001-01-01');
    await page.getByText('No audit entries match').waitFor();
    // The CLI's grant: made from the command line, about the admin named by @username.
    await page.getByLabel('To date').fill('');
    await page.getByLabel('Admin').fill('');
    const { _id: adminId } = await api<{ _id: string }>(shop.server.url, '/auth/access', undefined, admin.token);
    await page.getByLabel('Target').fill(adminId);
    const grant = page.getByTestId('audit-row').filter({ hasText: 'user.role' });
    await expect.poll(async () => (await cells(grant.first())).slice(1, 3)).toEqual(['command line', 'user.role']);
    await expect.poll(() => grant.first().getByTestId('audit-target-user').textContent()).toBe(` @${admin.tgId}`);
  });
});

describe('the console on a phone (390 px)', () => {
  it('scrolls no screen sideways: overview, users, orders, outbox, audit log, FedEx queue, label types, price check, content', async () => {
    const admin = await adminSession(shop.browser, shop.server);
    // An order in the console's lists, with its long values.
    const customer = await fundedAccount(shop.server, 5_000, uniqueTgId('phone'));
    await api(shop.server.url, '/order/create', ORDER, customer.token);
    const phone = await newPage(shop.browser, { viewport: { width: 390, height: 844 }, storageState: await admin.page.context().storageState() });
    const wide: string[] = [];
    for (const path of [
      '/admin',
      '/admin/users',
      '/admin/orders',
      '/admin/outbox',
      '/admin/audit',
      '/admin/fedex-queue',
      '/admin/label-types',
      '/admin/price-check',
      '/admin/content',
    ]) {
      await phone.goto(`${shop.server.url}${path}`);
      await phone.getByTestId('user-menu').waitFor();
      // Every call the screen makes has answered, so what it shows is drawn.
      await phone.waitForLoadState('networkidle');
      const width = await phone.evaluate(() => document.documentElement.scrollWidth);
      if (width > 390) wide.push(`${path}: ${width}px`);
    }
    expect(wide).toEqual([]);
    // The console's tabs (on /admin/content, the last): one row that scrolls sideways, the open page's tab in view.
    const tabs = phone.getByRole('navigation', { name: 'Operator console' });
    const tops = await tabs.getByRole('link').evaluateAll((links) => links.map((link) => Math.round(link.getBoundingClientRect().top)));
    expect(new Set(tops).size).toBe(1);
    expect(await tabs.evaluate((nav) => nav.scrollWidth > nav.clientWidth)).toBe(true);
    const [barBox, openBox] = [await tabs.boundingBox(), await tabs.getByRole('link', { name: 'Content', exact: true }).boundingBox()];
    expect(openBox!.x).toBeGreaterThanOrEqual(barBox!.x);
    expect(openBox!.x + openBox!.width).toBeLessThanOrEqual(barBox!.x + barBox!.width + 1);
    await phone.context().close();
    await admin.page.context().close();
  });
});

describe('cancelling an order that is still being made', () => {
  // Labels take an hour here, so orders wait in processing.
  const slow = useShop({ env: { ...SHOP, LABEL_SANDBOX_MODE: 'processing', LABEL_SANDBOX_DELAY_MS: '3600000' } });

  it('asks for a reason, cancels and refunds it; the customer gets the price back', async () => {
    const admin = await adminSession(slow.browser, slow.server);
    const customer = await fundedAccount(slow.server, 1000, uniqueTgId('waiter'));
    await api(slow.server.url, '/order/create', ORDER, customer.token);
    const order = await lastOrder(slow.server, customer.token);
    expect(order.status).toBe('processing');
    const { page } = admin;

    await page.goto(`${slow.server.url}/admin/orders`);
    await page.getByLabel('Search orders').fill(order.OrderId);
    const row = page.getByTestId('admin-order-row').filter({ hasText: order.OrderId });
    await row.filter({ hasText: 'Processing' }).waitFor();
    await expect(row.getByRole('button', { name: 'Download' }).count()).resolves.toBe(0);
    await row.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('button', { name: 'Cancel order' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Cancel and refund' }).click();
    await dialog.getByText('Reason is required').waitFor();
    await dialog.getByLabel('Reason').fill('Customer asked to stop it');
    await dialog.getByRole('button', { name: 'Cancel and refund' }).click();
    await toast(page, 'Order cancelled and refunded').waitFor();
    await row.filter({ hasText: 'Cancelled' }).waitFor();
    await expect(row.getByRole('button', { name: 'Cancel' }).count()).resolves.toBe(0);
    expect((await api(slow.server.url, '/auth/access', undefined, customer.token)).balance).toBe(10);

    await row.getByRole('button', { name: 'Open' }).click();
    const detail = page.getByTestId('order-detail');
    await detail.getByTestId('order-note').filter({ hasText: 'Customer asked to stop it' }).waitFor();
    await expect.poll(() => detail.getByTestId('order-ledger-row').count()).toBe(2);
    expect((await cells(detail.getByTestId('order-ledger-row').nth(1))).slice(1, 3)).toEqual(['Order refund', '+$6.75']);
  });
});
