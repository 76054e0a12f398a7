import { expect, it } from 'vitest';
import { CA_RECIPIENT, CA_SENDER, orderParties } from '../apps/server/test/sample-addresses.ts';
import { adminSession, api, fundedAccount, newPage, useShop, withServerDb } from './harness.ts';

const shop = useShop({ env: { RATE_LIMIT_MAX: '1000' } });
const ORDER = { labelType: 'priority', design: 'normal', Weight: 2, ...orderParties() };

it("the console's End of day page lists every customer's forms (a failed one with its reason, a ready one downloaded) and pickups; a phone does not scroll sideways", async () => {
  const account = await fundedAccount(shop.server, 10_000);
  const ids: string[] = [];
  for (const ToName of ['Form One', 'Form Two'])
    ids.push((await api<{ orderId: string }>(shop.server.url, '/order/create', { ...ORDER, ToName }, account.token)).orderId);
  const [ready, failing] = (
    await Promise.all(ids.map((id) => api<{ forms: { _id: string }[] }>(shop.server.url, '/scan-form', { orderIds: [id] }, account.token)))
  ).map((r) => r.forms[0]._id);
  await expect.poll(async () => (await api<{ status: string }>(shop.server.url, `/scan-form/${ready}`, undefined, account.token)).status).toBe('created');
  // A form the upstream refused, as the sweep records it (the sandbox refuses none).
  await withServerDb(shop.server, (db) =>
    db.updateTable('scan_forms').set({ status: 'failed', message: 'the carrier refused the SCAN form: test' }).where('id', '=', failing).execute(),
  );

  // A UPS pickup booked through the API (the sandbox's fee: $4.50).
  const ups = await api<{ orderId: string }>(
    shop.server.url,
    '/order/create',
    { labelType: 'ups_standard', Weight: 2, ...orderParties(CA_SENDER, CA_RECIPIENT) },
    account.token,
  );
  const slot = { minDatetime: new Date(Date.now() + 20 * 3_600_000).toISOString(), maxDatetime: new Date(Date.now() + 24 * 3_600_000).toISOString() };
  const { pickup } = await api<{ pickup: { _id: string } }>(shop.server.url, '/pickup/rates', { orderIds: [ups.orderId], ...slot }, account.token);
  await api(shop.server.url, '/pickup', { pickupId: pickup._id, service: 'Sandbox pickup' }, account.token);

  const { page } = await adminSession(shop.browser, shop.server);
  await page.goto(`${shop.server.url}/admin/scan-forms`);
  const row = (id: string) => page.locator(`[data-testid="scan-form-row"][data-id="${id}"]`);
  await row(ready).getByText('Ready').waitFor();
  expect(await row(ready).innerText()).toContain(`@${account.tgId}`);
  expect(await row(failing).innerText()).toContain('the carrier refused the SCAN form: test');
  const download = page.waitForEvent('download');
  await row(ready).getByRole('button', { name: 'Download' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^SF-[0-9A-F]{8}\.pdf$/);
  const booked = page.locator(`[data-testid="admin-pickup-row"][data-id="${pickup._id}"]`);
  await booked.getByText('Booked').waitFor();
  expect(await booked.innerText()).toMatch(new RegExp(`@${account.tgId}[\\s\\S]*UPS[\\s\\S]*\\$4\\.50[\\s\\S]*SANDBOX-`));
  // The Failed filter shows the failed one only.
  await page.getByRole('group', { name: 'SCAN form status' }).getByRole('button', { name: 'Failed' }).click();
  await row(ready).waitFor({ state: 'detached' });
  expect(await row(failing).count()).toBe(1);

  const phone = await newPage(shop.browser, { viewport: { width: 390, height: 844 }, storageState: await page.context().storageState() });
  await phone.goto(`${shop.server.url}/admin/scan-forms`);
  await phone.locator(`[data-testid="scan-form-row"][data-id="${ready}"]`).waitFor();
  expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await phone.context().close();
  await page.context().close();
});

it("a customer's page in the console shows their SCAN forms and pickups only, with the fee", async () => {
  // Two customers, each with a form and a UPS pickup.
  const made = [];
  for (const name of ['Alice', 'Bob']) {
    const account = await fundedAccount(shop.server, 10_000);
    const { orderId } = await api<{ orderId: string }>(shop.server.url, '/order/create', { ...ORDER, ToName: `${name} Form` }, account.token);
    const form = (await api<{ forms: { _id: string }[] }>(shop.server.url, '/scan-form', { orderIds: [orderId] }, account.token)).forms[0]._id;
    const ups = await api<{ orderId: string }>(
      shop.server.url,
      '/order/create',
      { labelType: 'ups_standard', Weight: 2, ...orderParties(CA_SENDER, CA_RECIPIENT) },
      account.token,
    );
    const slot = { minDatetime: new Date(Date.now() + 20 * 3_600_000).toISOString(), maxDatetime: new Date(Date.now() + 24 * 3_600_000).toISOString() };
    const { pickup } = await api<{ pickup: { _id: string } }>(shop.server.url, '/pickup/rates', { orderIds: [ups.orderId], ...slot }, account.token);
    await api(shop.server.url, '/pickup', { pickupId: pickup._id, service: 'Sandbox pickup' }, account.token);
    made.push({ account, form, pickup: pickup._id });
  }
  const [alice, bob] = made;

  const { page } = await adminSession(shop.browser, shop.server);
  await page.goto(`${shop.server.url}/admin/users/${encodeURIComponent(alice.account.userId)}`);
  await page.getByRole('tab', { name: 'End of day' }).click();
  await page.locator(`[data-testid="scan-form-row"][data-id="${alice.form}"]`).waitFor();
  const pickup = page.locator(`[data-testid="admin-pickup-row"][data-id="${alice.pickup}"]`);
  await pickup.getByText('Booked').waitFor();
  expect(await pickup.innerText()).toMatch(/UPS[\s\S]*\$4\.50[\s\S]*SANDBOX-/);
  // Only hers: one form and one pickup, none of Bob's, and no Customer column (it is her page).
  expect(await page.locator('[data-testid="scan-form-row"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')))).toEqual([alice.form]);
  expect(await page.locator('[data-testid="admin-pickup-row"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')))).toEqual([alice.pickup]);
  expect(await page.locator(`[data-id="${bob.form}"], [data-id="${bob.pickup}"]`).count()).toBe(0);
  expect(await page.getByTestId('admin-pickups-table').innerText()).not.toContain(`@${alice.account.tgId}`);
  await page.context().close();
});
