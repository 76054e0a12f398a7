import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminSession, api, createAccount, fundedAccount, useShop } from './harness.ts';

const shop = useShop({ easyPost: true, env: { RATE_LIMIT_MAX: '1000' } });

const toast = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });
async function openConsole(page: Page, entry: string, heading: string) {
  await page.getByRole('navigation', { name: 'Operator console' }).getByRole('link', { name: entry, exact: true }).click();
  await page.getByRole('heading', { name: heading, exact: true }).waitFor();
}

it('the Label types page edits what a label type is bought as at EasyPost (kept after a reload; emptied, the type is not offered)', async () => {
  const { page } = await adminSession(shop.browser, shop.server);
  await page.goto(`${shop.server.url}/admin`);
  await openConsole(page, 'Label types', 'Label types and prices');
  const editor = (uid: string) => page.locator(`[data-testid="upstream-mapping"][data-uid="${uid}"][data-upstream="easypost"]`);
  const field = (uid: string, what: string) => editor(uid).getByLabel(`${what} of ${uid} at EasyPost`, { exact: true });
  const service = (uid: string) => editor(uid).getByRole('combobox', { name: `Service of ${uid} at EasyPost`, exact: true });
  // The defaults.
  await expect.poll(() => service('ups_express').inputValue()).toBe('Express');
  expect(await field('ground_oz', 'Carrier').inputValue()).toBe('USPS');

  // The service is chosen among those the upstream rated for the type's route (another than the saved one).
  const offered = await service('ups_express')
    .locator('option')
    .evaluateAll((options) => options.filter((o) => !o.textContent!.includes('not rated')).map((o) => (o as HTMLOptionElement).value));
  const chosen = offered.find((name) => name && name !== 'Express')!;
  expect(chosen).toBeTruthy();
  await service('ups_express').selectOption(chosen);
  await field('ups_express', 'Carrier account').fill('ca_ups_1');
  await editor('ups_express').getByRole('button', { name: 'Save the EasyPost service of ups_express' }).click();
  await toast(page, 'EasyPost service saved').waitFor();
  await field('uspsv9', 'Carrier').fill('');
  await service('uspsv9').selectOption('');
  await editor('uspsv9').getByRole('button', { name: 'Save the EasyPost service of uspsv9' }).click();
  await toast(page, 'EasyPost service removed').waitFor();

  await page.reload();
  await expect.poll(() => service('ups_express').inputValue()).toBe(chosen);
  expect(await field('ups_express', 'Carrier account').inputValue()).toBe('ca_ups_1');
  expect(await editor('ups_express').locator('.badge').first().textContent()).toBe('Mapped');
  expect(await editor('uspsv9').locator('.badge').first().textContent()).toBe('Not bought here');
  // EasyPost is the shop's only upstream: no upstream of the shop maps the type, so it is not offered.
  await page.locator('[data-testid="upstream-row"][data-uid="uspsv9"]').getByTestId('not-offered').waitFor();
  expect(await page.locator('[data-testid="upstream-row"][data-uid="ups_express"]').getByTestId('not-offered').count()).toBe(0);
  // A customer is not offered the unmapped type.
  const customer = await createAccount(shop.server.url);
  const { labelTypes } = await api<{ labelTypes: { uid: string }[] }>(shop.server.url, '/labeltype/read', undefined, customer.token);
  expect(labelTypes.map((t) => t.uid)).not.toContain('uspsv9');
  expect(labelTypes.map((t) => t.uid)).toContain('priority');
});

it("the console's overview and order view show an upstream label's cost, price and margin", async () => {
  const customer = await fundedAccount(shop.server, 2_000);
  const { labelTypes } = await api<{ labelTypes: { _id: string; uid: string }[] }>(shop.server.url, '/labeltype/read', undefined, customer.token);
  shop.fake.rates = { Priority: '2.40' };
  await api(
    shop.server.url,
    '/order/create',
    {
      labelType: labelTypes.find((t) => t.uid === 'priority')!._id,
      design: 'normal',
      Weight: 2,
      FromName: 'Margin Sender',
      FromStreet: '1 Main St',
      FromCity: 'Austin',
      FromState: 'TX',
      FromZip: '78701',
      ToName: 'Margin Receiver',
      ToStreet: '2 Oak Ave',
      ToCity: 'Denver',
      ToState: 'CO',
      ToZip: '80202',
    },
    customer.token,
  );
  const [order] = (await api<{ orders: { _id: string; status: string; price: number }[] }>(shop.server.url, '/order/read', undefined, customer.token)).orders;
  expect(order).toMatchObject({ status: 'completed', price: 6.75 });

  const { page } = await adminSession(shop.browser, shop.server);
  await page.goto(`${shop.server.url}/admin`);
  const margin = page.getByTestId('overview-upstream-margin');
  await margin.filter({ hasText: '$4.35' }).waitFor();
  await page.getByText('1 label bought upstream: price $6.75, cost $2.40').waitFor();

  await openConsole(page, 'Orders', 'Orders');
  const listed = page.locator(`[data-testid="admin-order-row"][data-order-id="${order!._id}"]`);
  await listed.getByRole('button', { name: 'Open' }).click();
  const upstream = page.getByRole('dialog').getByTestId('order-upstream');
  await upstream.waitFor();
  expect(await upstream.textContent()).toBe('USPS Priority: cost $2.40, margin $4.35');
});
