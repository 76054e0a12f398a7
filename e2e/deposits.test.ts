import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, createAccount, fundedAccount, newPage, signedInPage, signInThroughPage, useShop } from './harness.ts';
import { orderParties } from '../apps/server/test/sample-addresses.ts';

const shop = useShop();

const cellsOf = (page: Page, testId: string, index: number) => page.getByTestId(testId).nth(index).locator('td').allTextContents();

async function openDeposits(page: Page) {
  await page.getByTestId('sidebar').getByRole('link', { name: 'Deposits' }).click();
  await page.waitForURL(`${shop.server.url}/deposits`);
  await page.getByText('Current Balance').waitFor();
}

/** Fills the Add Balance form and follows the browser to the sandbox's hosted page. */
async function startDeposit(page: Page, amount: string) {
  await page.getByLabel('Amount').fill(amount);
  await page.getByRole('button', { name: 'Add Balance' }).click();
  await page.waitForURL((url) => url.pathname.startsWith('/pay/'));
  await page.getByText('SANDBOX').first().waitFor();
}

describe('deposits through the sandbox payment page', () => {
  it('deposits $250, returns to /deposits and shows 255.00, the Completed invoice and the statement rows', async () => {
    const { account, page } = await signedInPage(shop.browser, shop.server.url);
    await openDeposits(page);

    await expect.poll(() => page.getByTestId('current-balance').textContent()).toBe('$0.00');
    await page.getByRole('heading', { name: 'Add Balance' }).waitFor();
    await expect.poll(() => page.getByTestId('bonus-notice').textContent()).toContain('above $200 get 2%, above $500 get 4%, above $1,000 get 7%');
    await expect.poll(() => page.getByLabel('Payment Method').locator('option').allTextContents()).toEqual(['Crypto']);
    await page.getByRole('heading', { name: 'Invoices' }).waitFor();
    await page.getByText('No invoices yet').waitFor();
    await expect.poll(() => page.getByRole('navigation', { name: 'Invoices pages' }).getByRole('button', { name: 'Prev' }).isDisabled()).toBe(true);
    await expect.poll(() => page.getByRole('navigation', { name: 'Invoices pages' }).getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);

    // An amount of 0 is refused in the page: no call, no invoice, still on /deposits.
    await page.getByLabel('Amount').fill('0');
    await page.getByRole('button', { name: 'Add Balance' }).click();
    await page.getByText('Minimum deposit is $1').waitFor();
    expect(new URL(page.url()).pathname).toBe('/deposits');
    await page.getByLabel('Amount').fill('');
    await page.getByRole('button', { name: 'Add Balance' }).click();
    await page.getByText('Amount is required').waitFor();
    expect((await api(shop.server.url, '/invoices/readAll?page=1&limit=10', undefined, account.token)).total).toBe(0);

    // $250 earns the 2% tier; two clicks in the same instant create one invoice.
    await page.getByLabel('Amount').fill('250');
    await page.getByTestId('bonus-preview').filter({ hasText: '2% bonus: $5.00 extra' }).waitFor();
    await page.getByRole('button', { name: 'Add Balance' }).evaluate((button: HTMLButtonElement) => {
      button.click();
      button.click();
    });
    await page.waitForURL((url) => url.pathname.startsWith('/pay/'));
    await page.getByText('$250.00').waitFor();
    await page.getByRole('button', { name: 'Simulate payment' }).click();

    await page.waitForURL(`${shop.server.url}/deposits`);
    await page.getByTestId('current-balance').filter({ hasText: '$255.00' }).waitFor();
    await page.getByTestId('header-balance').filter({ hasText: '$255.00' }).waitFor();
    await page.getByTestId('invoice-row').first().filter({ hasText: 'Completed' }).waitFor();
    await expect.poll(() => page.getByTestId('invoice-row').count()).toBe(1);
    const [, amount, bonus, method, status] = await cellsOf(page, 'invoice-row', 0);
    expect({ amount, bonus, method, status }).toEqual({ amount: '$250.00', bonus: '2%', method: 'Crypto', status: 'Completed' });

    await page.getByTestId('statement-row').nth(1).waitFor();
    await expect.poll(() => page.getByTestId('statement-row').count()).toBe(2);
    // Newest first: the bonus, then the deposit.
    await expect.poll(async () => (await cellsOf(page, 'statement-row', 0)).slice(1)).toEqual(['Deposit bonus', '2% deposit bonus', '+$5.00', '$255.00']);
    await expect
      .poll(async () => (await cellsOf(page, 'statement-row', 1)).slice(1))
      .toEqual(['Deposit', expect.stringMatching(/^Deposit via /), '+$250.00', '$250.00']);

    // An expired invoice shows as Expired and credits nothing.
    await startDeposit(page, '100');
    await page.getByRole('button', { name: 'Simulate expiry' }).click();
    await page.waitForURL(`${shop.server.url}/deposits`);
    await page.getByTestId('invoice-row').first().filter({ hasText: 'Expired' }).waitFor();
    const [, expiredAmount, expiredBonus, , expiredStatus] = await cellsOf(page, 'invoice-row', 0);
    expect({ expiredAmount, expiredBonus, expiredStatus }).toEqual({ expiredAmount: '$100.00', expiredBonus: '0%', expiredStatus: 'Expired' });
    await expect.poll(() => page.getByTestId('invoice-row').count()).toBe(2);
    await expect.poll(() => page.getByTestId('current-balance').textContent()).toBe('$255.00');
    await page.getByTestId('statement-row').nth(1).waitFor();
    await expect.poll(() => page.getByTestId('statement-row').count()).toBe(2);
    expect((await api(shop.server.url, '/account/statement?page=1&limit=10', undefined, account.token)).balance).toBe(255);
  });

  it('shows the server message in a toast and clears the busy state when the invoice cannot be created', async () => {
    const { page } = await signedInPage(shop.browser, shop.server.url);
    await openDeposits(page);
    await page.route('**/api/v1/invoices/create-invoice', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ message: 'Payment provider unavailable, please try again in a minute' }),
      }),
    );
    await page.getByLabel('Amount').fill('20');
    await page.getByRole('button', { name: 'Add Balance' }).click();
    await page.getByRole('alert').filter({ hasText: 'Payment provider unavailable, please try again in a minute' }).waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'Add Balance' }).isEnabled()).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/deposits');
  });

  it('pages through the invoices with Prev and Next', async () => {
    const account = await createAccount(shop.server.url);
    for (let i = 1; i <= 11; i++) await api(shop.server.url, '/invoices/create-invoice', { amount: i, type: 'crypto' }, account.token);
    const page = await newPage(shop.browser);
    await signInThroughPage(page, shop.server.url, account.tgId, account.password);
    await openDeposits(page);
    const pager = page.getByRole('navigation', { name: 'Invoices pages' });
    await page.getByTestId('invoice-row').nth(9).waitFor();
    await expect.poll(() => page.getByTestId('invoice-row').count()).toBe(10);
    // Newest first: $11 heads page 1, $1 is alone on page 2.
    await expect.poll(async () => (await cellsOf(page, 'invoice-row', 0))[1]).toBe('$11.00');
    await expect.poll(async () => (await cellsOf(page, 'invoice-row', 0))[4]).toMatch(/^Pending/);
    await expect.poll(() => pager.getByRole('button', { name: 'Prev' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByTestId('current-page').filter({ hasText: /^2$/ }).waitFor();
    await page.getByTestId('invoice-row').filter({ hasText: '$1.00' }).waitFor();
    await expect.poll(() => page.getByTestId('invoice-row').count()).toBe(1);
    await expect.poll(() => pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Prev' }).click();
    await page.getByTestId('invoice-row').filter({ hasText: '$11.00' }).waitFor();
  });
});

describe('the statement and Order History', () => {
  it('shows an adjustment with its reason, links an order charge to its order, and keeps Order History search, filter and page in the address', async () => {
    const account = await fundedAccount(shop.server, 10_000); // an adjustment row with the reason 'test funding'
    const parties = orderParties();
    for (const name of ['Ann Early', 'Bo Later'])
      await api(shop.server.url, '/order/create', { labelType: 'priority', design: 'pitney', Weight: 2, ...parties, ToName: name }, account.token);
    const { orders } = await api<{ orders: { _id: string; toName: string }[] }>(shop.server.url, '/order/read?page=1&limit=10', undefined, account.token);
    const ann = orders.find((o) => o.toName === 'Ann Early')!;

    const page = await newPage(shop.browser);
    await signInThroughPage(page, shop.server.url, account.tgId, account.password);
    await openDeposits(page);
    await expect.poll(() => page.getByTestId('statement-row').count()).toBe(3);
    await expect.poll(async () => (await cellsOf(page, 'statement-row', 2)).slice(1)).toEqual(['Adjustment', 'test funding', '+$100.00', '$100.00']);
    const annCharge = page.getByTestId('statement-row').nth(1);
    await expect
      .poll(async () => (await annCharge.locator('td').allTextContents()).slice(1, 3))
      .toEqual(['Order', `Order ${ann._id.slice(0, 8).toUpperCase()}`]);

    // The charge leads to its order in Order History, found by its Order ID; the search is in the address.
    await annCharge.getByRole('link').click();
    await page.waitForURL(`${shop.server.url}/?search=${ann._id.slice(0, 8)}`);
    const history = page.getByTestId('orders-table');
    await expect.poll(() => history.locator('tbody tr').allTextContents()).toEqual([expect.stringContaining('Ann Early')]);
    await expect.poll(() => page.getByLabel('Search orders').inputValue()).toBe(ann._id.slice(0, 8));
    await page.reload();
    await expect.poll(() => history.locator('tbody tr').allTextContents()).toEqual([expect.stringContaining('Ann Early')]);
    await page.getByTestId('orders-count').filter({ hasText: /^2$/ }).waitFor();
    expect(await page.getByTestId('first-steps').count()).toBe(0); // only before the first order

    // A filter and a sort go into the address too, and Back returns to the search before them.
    await page.getByLabel('Search orders').fill('');
    await page.waitForURL(`${shop.server.url}/`);
    await page.getByLabel('Status').selectOption('completed');
    await page.getByLabel('Sort').selectOption('asc');
    await page.waitForURL(`${shop.server.url}/?status=completed&sort=asc`);
    await expect.poll(() => history.locator('tbody tr').count()).toBe(2);
    await expect.poll(async () => (await history.locator('tbody tr').first().textContent()) ?? '').toContain('Ann Early');
    await page.reload();
    await expect.poll(() => page.getByLabel('Status').inputValue()).toBe('completed');
    await expect.poll(() => page.getByLabel('Sort').inputValue()).toBe('asc');
    await page.goBack();
    await page.waitForURL(`${shop.server.url}/?status=completed`);
    await expect.poll(() => page.getByLabel('Sort').inputValue()).toBe('desc');
    await page.context().close();
  });
});
