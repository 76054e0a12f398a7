import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { RECIPIENT, SENDER, quickText } from '../apps/server/test/sample-addresses.ts';
import { api, fundedAccount, newPage, signInThroughPage, useShop, selectLabelType, fundedSession } from './harness.ts';

// Every test signs up and in: more than the default auth rate limit allows from one address.
const RATE_LIMIT = { RATE_LIMIT_MAX: '1000' };
const shop = useShop({ env: RATE_LIMIT });

type ListedOrder = {
  _id: string;
  OrderId: string;
  status: string;
  tracking: string | null;
  price: number;
  fromName: string;
  toName: string;
  labelType: { uid: string; name: string };
};
type LabelTypeRow = { _id: string; uid: string; name: string };

const FROM_TEXT = quickText(SENDER, 'Suite 4');
const TO_TEXT = quickText(RECIPIENT);

const listOrders = async (token: string) =>
  (await api<{ orders: ListedOrder[]; total: number }>(shop.server.url, '/order/read?limit=100', undefined, token)).orders;
const balanceOf = async (token: string) => (await api<{ balance: number }>(shop.server.url, '/auth/access', undefined, token)).balance;
const labelTypes = async (token: string) => (await api<{ labelTypes: LabelTypeRow[] }>(shop.server.url, '/labeltype/read', undefined, token)).labelTypes;

async function openCreateOrder(page: Page) {
  await page.getByTestId('sidebar').getByRole('link', { name: 'Instant - USPS/FedEx (US)' }).click();
  await page.waitForURL((url) => url.pathname.toLowerCase() === '/createorders');
  await page.getByRole('heading', { name: 'Create Order' }).waitFor();
  // The label types have loaded once the Type select lists them.
  await page.getByLabel('Type', { exact: true }).locator('option', { hasText: 'USPS Priority Mail' }).first().waitFor({ state: 'attached' });
}

const submitButton = (page: Page) => page.getByTestId('create-order');
const submitWithPrice = (page: Page, price: string) => page.getByRole('button', { name: `Create Order $${price}`, exact: true });
const toast = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });

/** The row of the Order History whose text holds `text`. */
const historyRow = (page: Page, text: string) => page.getByTestId('order-row').filter({ hasText: text });

/** Clicks Download in the row and checks the saved file: {tracking}.pdf, starting with %PDF. */
async function expectPdfDownload(page: Page, row: Locator, tracking: string) {
  const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: 'Download' }).click()]);
  expect(download.suggestedFilename()).toBe(`${tracking}.pdf`);
  const file = await download.path();
  expect(fs.readFileSync(file).subarray(0, 5).toString('latin1')).toBe('%PDF-');
}

/** Counts the create calls the page sends. */
/** The create calls the page sends, and the Idempotency-Key of each. */
function countCreateCalls(page: Page) {
  const calls = { count: 0, keys: [] as (string | undefined)[] };
  page.on('request', (request) => {
    if (!request.url().includes('/api/v1/order/create')) return;
    calls.count++;
    calls.keys.push(request.headers()['idempotency-key']);
  });
  return calls;
}

describe('create order, order history and addresses', () => {
  it('places a Quick Order: the price follows type and weight, one order for a double click, seen in Order History, PDF downloaded', async () => {
    const { page, token } = await fundedSession(shop.browser, shop.server, 10_000);
    const creates = countCreateCalls(page);
    await openCreateOrder(page);

    await expect.poll(() => page.getByRole('tab', { name: 'Quick Order' }).getAttribute('aria-selected')).toBe('true');
    await expect.poll(() => page.getByRole('tab', { name: 'Normal Order' }).getAttribute('aria-selected')).toBe('false');
    await page.getByRole('button', { name: 'Choose a type to see the price', exact: true }).waitFor();
    // Template only shows for priority.
    await expect.poll(() => page.getByLabel('Template').count()).toBe(0);

    // Priority: Template offers Pitney Bowes, Normal, EVS; the price follows the weight and the type.
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
    await expect.poll(() => page.getByLabel('Template').locator('option').allTextContents()).toEqual(['Select template', 'Pitney Bowes', 'Normal', 'EVS']);
    // The Type list shows each type's price range over its tiers.
    expect(await page.getByLabel('Type', { exact: true }).locator('option:checked').textContent()).toBe('USPS Priority Mail · $4.50–$26.00');
    // No weight yet: the button says so, disabled, instead of a price.
    await expect.poll(() => submitButton(page).textContent()).toBe('Enter a weight');
    expect(await submitButton(page).isDisabled()).toBe(true);
    await page.getByLabel('Weight').fill('2');
    await submitWithPrice(page, '6.75').waitFor();
    await page.getByLabel('Weight').fill('12');
    await submitWithPrice(page, '13.25').waitFor();
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'FedEx Ground');
    await submitWithPrice(page, '10.50').waitFor();
    await expect.poll(() => page.getByLabel('Template').count()).toBe(0);
    await expect.poll(() => page.getByTestId('from-card').getByLabel('Phone').isVisible()).toBe(true);
    // A weight above the type's maximum has no price: the button says why, disabled.
    await page.getByLabel('Weight').fill('500');
    await expect.poll(() => submitButton(page).textContent()).toBe('Too heavy for FedEx Ground: at most 150 lb');
    expect(await submitButton(page).isDisabled()).toBe(true);

    await selectLabelType(page.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
    await page.getByLabel('Weight').fill('2');
    await submitWithPrice(page, '6.75').waitFor();
    // Template is required for priority: no call without it.
    await page.getByLabel('From Address Data').fill(FROM_TEXT);
    await page.getByLabel('To Address Data').fill(TO_TEXT);
    await submitButton(page).click();
    await page.getByText('Template is required for Priority labels').waitFor();
    expect(creates.count).toBe(0);
    await page.getByLabel('Template').selectOption({ label: 'Pitney Bowes' });

    // Two clicks in the same instant send one order.
    await submitButton(page).evaluate((button: HTMLButtonElement) => {
      button.click();
      button.click();
    });
    await toast(page, 'Order created successfully').waitFor();
    await page.waitForURL(`${shop.server.url}/`);
    expect(creates.count).toBe(1);
    // The submission's own Idempotency-Key (a UUID), so a retry of it is never charged twice.
    expect(creates.keys).toEqual([expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)]);

    const [order] = await listOrders(token);
    expect(order).toMatchObject({ status: 'completed', price: 6.75, fromName: SENDER.name, toName: RECIPIENT.name, labelType: { uid: 'priority' } });
    expect(await listOrders(token)).toHaveLength(1);
    await page.getByTestId('balance').filter({ hasText: '$93.25' }).waitFor();
    await page.getByTestId('header-balance').filter({ hasText: '$93.25' }).waitFor();
    await page.getByTestId('orders-count').filter({ hasText: '1' }).waitFor();

    const row = historyRow(page, order!.OrderId);
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(cells).toEqual(
      expect.arrayContaining(['1', order!.OrderId, 'USPS Priority Mail2 lb', SENDER.name, RECIPIENT.name, '$6.75', 'Completed', order!.tracking]),
    );
    await expect.poll(() => row.locator('.badge').getAttribute('class')).toContain('bg-success');
    await expectPdfDownload(page, row, order!.tracking!);
  });

  it('places a Normal Order for USPS v9 (15 x 15 x 15), seen in Order History, PDF downloaded', async () => {
    const { page, token } = await fundedSession(shop.browser, shop.server, 5_000);
    await openCreateOrder(page);
    await page.getByRole('tab', { name: 'Normal Order' }).click();
    await page.getByTestId('normal-order-form').waitFor();
    await expect.poll(() => page.getByTestId('quick-order-form').count()).toBe(0);

    // Required fields name themselves; nothing is sent.
    const creates = countCreateCalls(page);
    await submitButton(page).click();
    await page.getByText('Label type is required').waitFor();
    await page.getByText('Weight is required').waitFor();
    for (const text of [
      'From Name is required',
      'From Street is required',
      'From City is required',
      'From State is required',
      'From ZIP is required',
      'To Name is required',
    ]) {
      await page.getByText(text).waitFor();
    }
    expect(creates.count).toBe(0);

    // UPS ships inside Canada: Country and the state list follow the type.
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'UPS Standard (Canada)');
    await expect.poll(() => page.getByTestId('from-card').getByLabel('Country').inputValue()).toBe('Canada');
    // In Canada's words: Province and Postal code.
    await expect.poll(() => page.getByTestId('to-card').getByLabel('Province').locator('option').allTextContents()).toHaveLength(14);
    await expect.poll(() => page.getByTestId('to-card').getByLabel('Province').locator('option', { hasText: 'Ontario' }).count()).toBe(1);
    await page.getByTestId('to-card').getByLabel('Postal code').waitFor();
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'USPS Priority Mail V9 (15x15x15)');
    const v9 = page.getByTestId('v9-dimensions');
    for (const dimension of ['Length', 'Width', 'Height']) await expect.poll(() => v9.getByLabel(dimension).inputValue()).toBe('15');
    await page.getByLabel('Weight').fill('3');
    await submitWithPrice(page, '7.25').waitFor();

    const from = page.getByTestId('from-card');
    const to = page.getByTestId('to-card');
    await expect.poll(() => from.getByLabel('Country').inputValue()).toBe('United States');
    await expect.poll(() => from.getByLabel('Phone').count()).toBe(0);
    // The state list is the 50 states, DC and PR for a US type.
    await expect.poll(() => from.getByLabel('State').locator('option').count()).toBe(53);
    await from.getByLabel('Name', { exact: true }).fill('Nora Normal');
    await from.getByLabel('Street', { exact: true }).fill('1 Market St');
    await from.getByLabel('City').fill('San Francisco');
    await from.getByLabel('State').selectOption('CA');
    await from.getByLabel('ZIP').fill('94105');
    await to.getByLabel('Name', { exact: true }).fill('Tom Target');
    await to.getByLabel('Company').fill('Target Co');
    await to.getByLabel('Street', { exact: true }).fill('700 Pennsylvania Ave');
    await to.getByLabel('Street 2').fill('Floor 2');
    await to.getByLabel('City').fill('Washington');
    await to.getByLabel('State').selectOption({ label: 'District of Columbia' });
    await to.getByLabel('ZIP').fill('20500');
    await submitButton(page).click();
    await toast(page, 'Order created successfully').waitFor();
    await page.waitForURL(`${shop.server.url}/`);

    const [order] = await listOrders(token);
    expect(order).toMatchObject({ status: 'completed', price: 7.25, fromName: 'Nora Normal', toName: 'Tom Target', labelType: { uid: 'uspsv9' } });
    await page.getByTestId('balance').filter({ hasText: '$42.75' }).waitFor();
    const row = historyRow(page, order!.OrderId);
    await row.filter({ hasText: 'Completed' }).waitFor();
    await expectPdfDownload(page, row, order!.tracking!);
  });

  it('duplicates an order through the Duplicate Order modal: the list grows and the balance drops', async () => {
    const { page, token } = await fundedSession(shop.browser, shop.server, 2_000);
    const types = await labelTypes(token);
    const fedex = types.find((t) => t.uid === 'fedex_ground')!;
    await api(
      shop.server.url,
      '/order/create',
      {
        labelType: fedex._id,
        Weight: 3,
        FromName: 'Dup Sender',
        FromStreet: '1 First St',
        FromCity: 'Austin',
        FromState: 'TX',
        FromZip: '78701',
        ToName: 'Dup Receiver',
        ToStreet: '2 Second St',
        ToCity: 'Denver',
        ToState: 'CO',
        ToZip: '80202',
      },
      token,
    );
    await page.reload();
    await page.getByTestId('balance').filter({ hasText: '$13.50' }).waitFor();
    await page.getByTestId('order-row').first().waitFor();
    await expect.poll(() => page.getByTestId('order-row').count()).toBe(1);

    // Cancel closes the modal and sends nothing.
    await page.getByTestId('order-row').first().getByRole('button', { name: 'Duplicate' }).click();
    const modal = page.getByTestId('confirm-modal'); // the one confirmation of every screen
    await modal.getByText('Duplicate Order').waitFor();
    await modal.getByRole('button', { name: 'Cancel' }).click();
    await modal.waitFor({ state: 'detached' });
    expect(await listOrders(token)).toHaveLength(1);

    await page.getByTestId('order-row').first().getByRole('button', { name: 'Duplicate' }).click();
    await modal.getByRole('button', { name: 'Duplicate', exact: true }).click();
    await toast(page, 'Order duplicated successfully').waitFor();
    await modal.waitFor({ state: 'detached' });
    await page.getByTestId('order-row').nth(1).waitFor();
    await expect.poll(() => page.getByTestId('order-row').count()).toBe(2);
    await page.getByTestId('balance').filter({ hasText: '$7.00' }).waitFor();
    await page.getByTestId('orders-count').filter({ hasText: '2' }).waitFor();
    const orders = await listOrders(token);
    expect(orders.map((o) => [o.fromName, o.toName, o.price, o.status])).toEqual([
      ['Dup Sender', 'Dup Receiver', 6.5, 'completed'],
      ['Dup Sender', 'Dup Receiver', 6.5, 'completed'],
    ]);
    expect(await balanceOf(token)).toBe(7);
  });

  it('pages the Order History by 10 with Prev / Next, sorts it and searches it', async () => {
    const { page, token } = await fundedSession(shop.browser, shop.server, 10_000);
    const fedex = (await labelTypes(token)).find((t) => t.uid === 'fedex_ground')!;
    for (let i = 1; i <= 11; i++) {
      await api(
        shop.server.url,
        '/order/create',
        {
          labelType: fedex._id,
          Weight: 1,
          FromName: 'Page Sender',
          FromStreet: '1 First St',
          FromCity: 'Austin',
          FromState: 'TX',
          FromZip: '78701',
          ToName: `Receiver ${i}`,
          ToStreet: '2 Second St',
          ToCity: 'Denver',
          ToState: 'CO',
          ToZip: '80202',
        },
        token,
      );
    }
    await page.reload();
    const pager = page.getByRole('navigation', { name: 'Order History pages' });
    const rows = page.getByTestId('order-row');
    const toNames = async () => await rows.evaluateAll((trs) => trs.map((tr) => tr.children[4]!.textContent));
    await rows.nth(9).waitFor();
    await expect.poll(() => rows.count()).toBe(10);
    await page.getByTestId('orders-count').filter({ hasText: '11' }).waitFor();
    // Newest first by default.
    await expect.poll(async () => (await toNames())[0]).toBe('Receiver 11');
    await expect.poll(() => pager.getByRole('button', { name: 'Prev' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByTestId('current-page').filter({ hasText: /^2$/ }).waitFor();
    // Page 2 holds the oldest order alone ('Receiver 1' as a text would also match 'Receiver 10' to 'Receiver 19' of page 1).
    await expect.poll(toNames).toEqual(['Receiver 1']);
    // The row number continues across pages.
    await expect.poll(() => rows.first().locator('td').first().textContent()).toBe('11');
    await expect.poll(() => pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    // The page is in the address: a refresh keeps it, Back returns to page 1.
    await page.waitForURL(`${shop.server.url}/?page=2`);
    await page.reload();
    await expect.poll(toNames).toEqual(['Receiver 1']);
    await page.goBack();
    await page.waitForURL(`${shop.server.url}/`);
    await expect.poll(async () => (await toNames())[0]).toBe('Receiver 11');
    await page.goForward();
    await expect.poll(toNames).toEqual(['Receiver 1']);

    // Oldest first goes back to page 1.
    await page.getByLabel('Sort').selectOption({ label: 'Oldest first' });
    await pager.getByTestId('current-page').filter({ hasText: /^1$/ }).waitFor();
    await expect.poll(toNames).toEqual(Array.from({ length: 10 }, (_, i) => `Receiver ${i + 1}`));

    // The search narrows the list.
    await page.getByLabel('Search orders').fill('receiver 7');
    await expect.poll(toNames).toEqual(['Receiver 7']);
    await page.getByLabel('Search orders').fill('nobody by this name');
    await page.getByText('No orders match "nobody by this name"', { exact: true }).waitFor();
  });

  it('adds, edits and deletes an address in /address and uses a saved address to fill the Normal Order', async () => {
    const { page, token } = await fundedSession(shop.browser, shop.server, 3_000);
    await page.getByTestId('sidebar').getByRole('link', { name: 'Addresses' }).click();
    await page.waitForURL(`${shop.server.url}/address`);
    await page.getByText('No saved addresses yet').waitFor();

    // Add: required fields and a numeric ZIP are checked in the modal.
    await page.getByRole('button', { name: 'Add Address' }).click();
    const modal = page.getByRole('dialog');
    await modal.getByText('Add Address').waitFor();
    await expect.poll(() => modal.getByLabel('Country').inputValue()).toBe('United States');
    await expect.poll(() => modal.getByLabel('State').locator('option').count()).toBe(53);
    await modal.getByRole('button', { name: 'Save' }).click();
    await modal.getByText('Name is required').waitFor();
    await modal.getByText('State is required').waitFor();
    await modal.getByLabel('Name', { exact: true }).fill('Ada Saved');
    await modal.getByLabel('Company').fill('Saved Co');
    await modal.getByLabel('Street', { exact: true }).fill('10 Saved Rd');
    await modal.getByLabel('City').fill('Boston');
    await modal.getByLabel('State').selectOption('MA');
    await modal.getByLabel('ZIP').fill('02a1');
    await modal.getByRole('button', { name: 'Save' }).click();
    await modal.getByText('ZIP must be 5 digits, or ZIP+4 like 12345-6789').waitFor();
    // ZIP+4 is taken, as orders and CSV files take it.
    await modal.getByLabel('ZIP').fill('02110-1234');
    await modal.getByRole('button', { name: 'Save' }).click();
    await toast(page, 'Address created successfully').waitFor();
    await modal.waitFor({ state: 'detached' });
    const row = page.getByTestId('address-row');
    await row.filter({ hasText: 'Ada Saved' }).waitFor();
    await expect
      .poll(() => row.first().locator('td').allTextContents())
      .toEqual(['Ada Saved', 'Saved Co', '10 Saved Rd', '', 'Boston', 'MA', '02110-1234', 'United States', 'EditDelete']);

    // Update: the modal opens with the address and saves the change.
    await row.first().getByRole('button', { name: 'Edit' }).click();
    await modal.getByText('Update Address').waitFor();
    await expect.poll(() => modal.getByLabel('Name', { exact: true }).inputValue()).toBe('Ada Saved');
    await modal.getByLabel('Street 2').fill('Unit 7');
    await modal.getByLabel('City').fill('Cambridge');
    await modal.getByLabel('ZIP').fill('02139');
    await modal.getByRole('button', { name: 'Update' }).click();
    await toast(page, 'Address updated successfully').waitFor();
    await modal.waitFor({ state: 'detached' });
    await row.filter({ hasText: 'Cambridge' }).waitFor();
    await expect
      .poll(() => row.first().locator('td').allTextContents())
      .toEqual(['Ada Saved', 'Saved Co', '10 Saved Rd', 'Unit 7', 'Cambridge', 'MA', '02139', 'United States', 'EditDelete']);

    // Adding the same place again is pointed out, naming the entry it repeats.
    await page.getByRole('button', { name: 'Add Address' }).click();
    await modal.getByText('Add Address').waitFor();
    await modal.getByLabel('Street', { exact: true }).fill('10 saved rd');
    await modal.getByLabel('Street 2').fill('Unit 7');
    await modal.getByLabel('City').fill('Cambridge');
    await modal.getByLabel('State').selectOption('MA');
    await modal.getByLabel('ZIP').fill('02139');
    await expect.poll(() => modal.getByTestId('duplicate-address').textContent()).toBe('This address is already saved as “Ada Saved”.');
    // The same name and company too is the same entry: refused (by the server too), Save waits for a change.
    await modal.getByLabel('Name', { exact: true }).fill('ada saved');
    await modal.getByLabel('Company').fill('Saved Co');
    await expect.poll(() => modal.getByTestId('duplicate-address').textContent()).toBe('This address is already in your address book: change it, or cancel.');
    expect(await modal.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    const twice = { name: 'Ada Saved', company: 'Saved Co', street: '10 Saved Rd', street2: 'Unit 7', city: 'Cambridge', state: 'MA', zip: '02139' };
    await expect(api(shop.server.url, '/address/create', twice, token)).rejects.toThrow('409 {"message":"This address is already in your address book"}');
    await modal.getByLabel('ZIP').fill('02138');
    await expect.poll(() => modal.getByRole('button', { name: 'Save' }).isEnabled()).toBe(true);
    await modal.getByTestId('duplicate-address').waitFor({ state: 'detached' });
    await modal.getByRole('button', { name: 'Cancel' }).click();
    await modal.waitFor({ state: 'detached' });

    // The saved address fills the Normal Order's From card.
    await openCreateOrder(page);
    await page.getByRole('tab', { name: 'Normal Order' }).click();
    const from = page.getByTestId('from-card');
    const to = page.getByTestId('to-card');
    await from.getByLabel('Saved Address').selectOption({ label: 'Ada Saved - 10 Saved Rd, Cambridge, MA' });
    await expect.poll(() => from.getByLabel('Name', { exact: true }).inputValue()).toBe('Ada Saved');
    await expect.poll(() => from.getByLabel('Company').inputValue()).toBe('Saved Co');
    await expect.poll(() => from.getByLabel('Street', { exact: true }).inputValue()).toBe('10 Saved Rd');
    await expect.poll(() => from.getByLabel('Street 2').inputValue()).toBe('Unit 7');
    await expect.poll(() => from.getByLabel('City').inputValue()).toBe('Cambridge');
    await expect.poll(() => from.getByLabel('State').inputValue()).toBe('MA');
    await expect.poll(() => from.getByLabel('ZIP').inputValue()).toBe('02139');
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'USPS Ground Advantage (oz)');
    await page.getByLabel('Weight').fill('6');
    await submitWithPrice(page, '3.25').waitFor();
    await to.getByLabel('Name', { exact: true }).fill('Ozzie Ounce');
    await to.getByLabel('Street', { exact: true }).fill('5 Light Ln');
    await to.getByLabel('City').fill('Miami');
    await to.getByLabel('State').selectOption('FL');
    await to.getByLabel('ZIP').fill('33101');
    await submitButton(page).click();
    await toast(page, 'Order created successfully').waitFor();
    await page.waitForURL(`${shop.server.url}/`);
    await historyRow(page, 'Ozzie Ounce').filter({ hasText: 'Ada Saved' }).filter({ hasText: '6 oz' }).waitFor();
    expect((await listOrders(token))[0]).toMatchObject({ fromName: 'Ada Saved', toName: 'Ozzie Ounce', price: 3.25 });

    // Delete: confirmed in the Delete Address modal.
    await page.getByTestId('sidebar').getByRole('link', { name: 'Addresses' }).click();
    await row.first().getByRole('button', { name: 'Delete' }).click();
    await modal.getByText('Delete Address').waitFor();
    await modal.getByText('Ada Saved').waitFor();
    await modal.getByRole('button', { name: 'Delete' }).click();
    await toast(page, 'Address deleted successfully').waitFor();
    await page.getByText('No saved addresses yet').waitFor();
    expect((await api<{ addresses: unknown[] }>(shop.server.url, '/address/readAll', undefined, token)).addresses).toEqual([]);
  });

  it('shows the message of Quick Order text that does not parse and sends nothing', async () => {
    const { page, token } = await fundedSession(shop.browser, shop.server, 1_000);
    const creates = countCreateCalls(page);
    await openCreateOrder(page);
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'FedEx Ground');
    await page.getByLabel('Weight').fill('1');
    await submitWithPrice(page, '6.50').waitFor();

    const fromCard = page.getByTestId('from-card');
    const toCard = page.getByTestId('to-card');
    await page.getByLabel('From Address Data').fill('Jane Sender\n123 Main Street\nNew York NY 10001');
    await page.getByLabel('To Address Data').fill('John Receiver\n456 Oak Avenue\nBeverly Hills CA\n90210');
    await submitButton(page).click();
    await fromCard.getByText('The address must have 4 lines (name; street and optional ", street 2"; "city, state"; ZIP), not 3').waitFor();
    await toCard.getByText('Line 3 must be "city, state", e.g. "Austin, TX"; found "Beverly Hills CA"').waitFor();

    // Fixing one side leaves the other's message.
    await page.getByLabel('From Address Data').fill(FROM_TEXT);
    await submitButton(page).click();
    await toCard.getByText('Line 3 must be "city, state"', { exact: false }).waitFor();
    await expect.poll(() => fromCard.locator('.invalid-feedback').filter({ hasText: /\S/ }).count()).toBe(0);
    await page.getByLabel('To Address Data').fill('');
    await submitButton(page).click();
    await toCard.getByText('Enter the address on four lines').waitFor();

    expect(creates.count).toBe(0);
    expect(new URL(page.url()).pathname.toLowerCase()).toBe('/createorders');
    expect(await listOrders(token)).toEqual([]);
    expect(await balanceOf(token)).toBe(10);
  });

  it("shows the server's 'Insufficient balance' toast when the balance is too low, and the button works again", async () => {
    const { page, token } = await fundedSession(shop.browser, shop.server, 500);
    await openCreateOrder(page);
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
    await page.getByLabel('Template').selectOption({ label: 'EVS' });
    await page.getByLabel('Weight').fill('2');
    await submitWithPrice(page, '6.75').waitFor();
    await page.getByLabel('From Address Data').fill(FROM_TEXT);
    await page.getByLabel('To Address Data').fill(TO_TEXT);
    await submitButton(page).click();
    await toast(page, 'Insufficient balance').waitFor();
    await expect.poll(() => submitButton(page).isEnabled()).toBe(true);
    expect(new URL(page.url()).pathname.toLowerCase()).toBe('/createorders');
    expect(await listOrders(token)).toEqual([]);
    expect(await balanceOf(token)).toBe(5);
  });
});

describe('an order the label provider answers later', () => {
  const slow = useShop({ env: { ...RATE_LIMIT, LABEL_SANDBOX_MODE: 'processing', LABEL_SANDBOX_DELAY_MS: '1500', ORDER_POLL_INTERVAL_MS: '300' } });

  it('shows Processing without a download, reloads every 5 s and shows Completed with its download', async () => {
    const account = await fundedAccount(slow.server, 1_000);
    const priority = (await api<{ labelTypes: LabelTypeRow[] }>(slow.server.url, '/labeltype/read', undefined, account.token)).labelTypes.find(
      (t) => t.uid === 'priority',
    )!;
    const page = await newPage(slow.browser);
    await signInThroughPage(page, slow.server.url, account.tgId, account.password);
    const reads: number[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      // The history's reads, not the Orders card's count (limit 1).
      if (url.pathname === '/api/v1/order/read' && url.searchParams.get('limit') !== '1') reads.push(Date.now());
    });
    await api(
      slow.server.url,
      '/order/create',
      {
        labelType: priority._id,
        design: 'evs',
        Weight: 1,
        FromName: 'Slow Sender',
        FromStreet: '1 Wait St',
        FromCity: 'Austin',
        FromState: 'TX',
        FromZip: '78701',
        ToName: 'Slow Receiver',
        ToStreet: '2 Later Ave',
        ToCity: 'Denver',
        ToState: 'CO',
        ToZip: '80202',
      },
      account.token,
    );
    await page.reload();
    const row = page.getByTestId('order-row').first();
    await row.filter({ hasText: 'Processing' }).waitFor();
    await expect.poll(() => row.locator('.badge').getAttribute('class')).toContain('bg-light');
    await expect.poll(() => row.getByRole('button', { name: 'Download' }).count()).toBe(0);
    const firstRead = reads.at(-1)!;

    // No reload of the page: the list asks again after 5 s and finds the label ready.
    await row.filter({ hasText: 'Completed' }).waitFor({ timeout: 15_000 });
    expect(Date.now() - firstRead).toBeGreaterThanOrEqual(4_500);
    const [order] = (await api<{ orders: ListedOrder[] }>(slow.server.url, '/order/read', undefined, account.token)).orders;
    await expectPdfDownload(page, row, order!.tracking!);
  });
});
