import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADDRESS_CREATED, ADDRESS_NOT_FOUND } from '@portal/contract';
import { api, newPage, signedInPage, useShop } from './harness.ts';

// The web app's one pattern for writes (a mutation that shows its own toasts, is busy once and
// refreshes what it changed) and for lists (a load failure shown in the card, with Retry), seen
// on the real server. Only where the subject is the client does the page's network answer for
// the server: a write held back to watch the busy state, a list call failed once.

const shop = useShop();

const toast = (page: Page, text: string) => page.locator('.Toastify__toast-container').getByRole('alert').filter({ hasText: text });
const HOME = { name: 'Home', company: '', street: '1 Main St', street2: '', city: 'Austin', state: 'TX', zip: '78701', country: 'United States' };

/** Counts the page's calls to an API path (method and path, query string left out). */
function countCalls(page: Page, method: string, path: string) {
  const counter = { count: 0 };
  page.on('request', (request) => {
    if (request.method() === method && new URL(request.url()).pathname === `/api/v1${path}`) counter.count++;
  });
  return counter;
}

const signedIn = () => signedInPage(shop.browser, shop.server.url);

describe('a write from the web app', () => {
  it('shows the server’s refusal in an error toast and is ready for another try', async () => {
    const { account, page } = await signedIn();
    await api(shop.server.url, '/address/create', HOME, account.token);
    await page.goto(`${shop.server.url}/address`);
    const row = page.getByTestId('address-row').filter({ hasText: '1 Main St' });
    await row.waitFor();

    // Another tab deletes it; this page still shows it, and its Delete is refused with a 404.
    const [address] = (await api<{ addresses: { _id: string }[] }>(shop.server.url, '/address/readAll', undefined, account.token)).addresses;
    const gone = await fetch(`${shop.server.url}/api/v1/address/delete/${address!._id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${account.token}` },
    });
    expect(gone.status).toBe(200);
    await row.getByRole('button', { name: 'Delete' }).click();
    const modal = page.getByTestId('confirm-modal'); // the one confirmation of every screen
    await modal.getByRole('button', { name: 'Delete' }).click();
    await toast(page, ADDRESS_NOT_FOUND).waitFor();
    // The busy state is over and the modal stays open for another try (or Cancel).
    await expect.poll(() => modal.getByRole('button', { name: 'Delete' }).isEnabled()).toBe(true);
    await modal.getByRole('button', { name: 'Cancel' }).click();
    await modal.waitFor({ state: 'detached' });
  });

  it('is busy while on its way, sends one call for a double click, and refreshes the list it changed', async () => {
    const { account, page } = await signedIn();
    await page.goto(`${shop.server.url}/address`);
    await page.getByText('No saved addresses yet').waitFor();
    const creates = countCalls(page, 'POST', '/address/create');
    const reads = countCalls(page, 'GET', '/address/readAll');

    // The server's answer is held until the busy state has been seen.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/v1/address/create', async (route) => {
      await held;
      await route.continue();
    });

    await page.getByRole('button', { name: 'Add Address' }).click();
    const modal = page.getByRole('dialog');
    await modal.getByLabel('Name').fill(HOME.name);
    await modal.getByLabel('Street', { exact: true }).fill(HOME.street);
    await modal.getByLabel('City').fill(HOME.city);
    await modal.getByLabel('State').selectOption(HOME.state);
    await modal.getByLabel('ZIP').fill(HOME.zip);
    const save = modal.getByRole('button', { name: 'Save' });
    // Two clicks in the same instant, before the page has rendered anything busy.
    await save.evaluate((button: HTMLButtonElement) => {
      button.click();
      button.click();
    });
    await expect.poll(() => creates.count).toBe(1);
    await expect.poll(() => save.isDisabled()).toBe(true);
    await expect.poll(() => modal.getByRole('button', { name: 'Cancel' }).isDisabled()).toBe(true);
    const readsBefore = reads.count;

    release();
    await toast(page, ADDRESS_CREATED).waitFor();
    // The list was read again (the write invalidated it) and shows the new address, without a reload.
    await page.getByTestId('address-row').filter({ hasText: HOME.street }).waitFor();
    expect(reads.count).toBeGreaterThan(readsBefore);
    await modal.waitFor({ state: 'detached' });
    expect(creates.count).toBe(1);
    expect((await api(shop.server.url, '/address/readAll', undefined, account.token)).addresses).toHaveLength(1);
  });
});

describe('a list card', () => {
  it('shows a failed load in the card with Retry, which loads it', async () => {
    const { account, page } = await signedIn();
    await api(shop.server.url, '/invoices/create-invoice', { amount: 25, type: 'crypto' }, account.token);
    // The server fails the first read of the invoices; the next ones reach it.
    let failed = 0;
    await page.route('**/api/v1/invoices/readAll**', async (route) => {
      if (failed++ > 0) return route.fallback();
      await route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ message: 'Internal Server Error' }) });
    });

    await page.getByTestId('sidebar').getByRole('link', { name: 'Deposits' }).click();
    const invoices = page.locator('.card').filter({ has: page.getByRole('heading', { name: 'Invoices' }) });
    const problem = invoices.getByTestId('load-error');
    await problem.filter({ hasText: 'Could not load the invoices.' }).waitFor();
    // The failure stays in its card: the statement beside it loaded.
    await page.getByTestId('statement-table').getByText('No balance movements yet').waitFor();
    await expect.poll(() => page.getByTestId('load-error').count()).toBe(1);
    expect(await invoices.getByTestId('invoice-row').count()).toBe(0);

    await problem.getByRole('button', { name: 'Retry' }).click();
    await invoices.getByTestId('invoice-row').filter({ hasText: '$25.00' }).waitFor();
    await problem.waitFor({ state: 'detached' });
    expect(failed).toBe(2);
  });
});

describe('a signed-in first load', () => {
  // early-calls.ts asks for the access check and the screen's data with the page's first script; the screen takes
  // those answers. A path spelled differently from the screen's own call would be asked twice.
  it.each([
    ['/', 'dashboard', ['/auth/access', '/announcement/read', '/order/read', '/config'], 'dashboard-page-'],
    ['/createorders', 'Create Order', ['/auth/access', '/labeltype/read', '/address/readAll', '/packages'], 'create-order-page-'],
  ])('of %s asks for each of its data once, and its screen’s chunks, from the first script', async (path, shows, calls, screenChunk) => {
    const { page } = await signedIn();
    const seen: { path: string; search: string }[] = [];
    const scripts: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/v1/')) seen.push({ path: url.pathname.slice('/api/v1'.length), search: url.search });
      if (url.pathname.startsWith('/assets/') && url.pathname.endsWith('.js')) scripts.push(url.pathname);
    });
    const early: string[] = [];
    await page.route('**/assets/early-calls-*.js', async (route) => {
      early.push(route.request().url());
      await route.continue();
    });
    await page.goto(`${shop.server.url}${path}`);
    if (shows === 'dashboard') await expect.poll(() => page.getByTestId('orders-count').textContent()).toBe('0');
    else await page.getByRole('heading', { name: shows }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(early).toHaveLength(1);
    for (const call of calls) expect(seen.filter((s) => s.path === call).length, call).toBeGreaterThan(0);
    const asked = seen.map((s) => `${s.path}${s.search}`);
    expect(asked.filter((call, i) => asked.indexOf(call) !== i)).toEqual([]);
    // The early script ran: it asked for the screen's chunks (fetched, run by the router later), and no script came
    // twice. (Whether it or the app asked the data, each call was asked once, above: the app sets portalEarlyCalls when
    // it starts first, so that Map is there either way and tells nothing.)
    expect(await page.locator(`link[rel=modulepreload][data-early][href*="/assets/${screenChunk}"]`).count()).toBe(1);
    expect(scripts.some((s) => s.includes(screenChunk))).toBe(true);
    expect(scripts.filter((s, i) => scripts.indexOf(s) !== i)).toEqual([]);
  });

  it.each([
    ['/', 1],
    ['/login', 1],
    ['/register', 0],
  ])(
    "a visitor's first load of %s: the first script preloads the sign-in form's chunks %i time(s); no signed-in data is asked, no script twice",
    async (path, preloads) => {
      const page = await newPage(shop.browser);
      const seen: string[] = [];
      const scripts: string[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.pathname.startsWith('/api/v1/')) seen.push(url.pathname.slice('/api/v1'.length));
        if (url.pathname.startsWith('/assets/') && url.pathname.endsWith('.js')) scripts.push(url.pathname);
      });
      await page.goto(`${shop.server.url}${path}`);
      await page.getByRole('button', { name: path === '/register' ? 'Sign Up' : 'Sign In' }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(await page.locator('link[rel=modulepreload][data-early][href*="/assets/sign-in-page-"]').count()).toBe(preloads);
      expect(seen.filter((call) => call === '/auth/access' || call.startsWith('/order/'))).toEqual([]);
      expect(scripts.filter((s, i) => scripts.indexOf(s) !== i)).toEqual([]);
      await page.context().close();
    },
  );
});
