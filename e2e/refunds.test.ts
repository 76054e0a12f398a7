import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { orderParties } from '../apps/server/test/sample-addresses.ts';
import { adminSession, api, fundedAccount, newPage, signInThroughPage, useShop, withServerDb } from './harness.ts';

// A sandbox refund is approved half a second after it is asked, by the refund sweep on the queue.
const shop = useShop({ env: { RATE_LIMIT_MAX: '1000', LABEL_SANDBOX_REFUND_DELAY_MS: '500', ORDER_POLL_INTERVAL_MS: '200' } });

const ORDER = {
  labelType: 'priority',
  design: 'normal',
  Weight: 2,
  ...orderParties(),
};
type Listed = { _id: string; OrderId: string; price: number; refundStatus: string | null; pdf: string | null };

/** A signed-in customer with `names.length` completed orders, one to each receiver named. */
async function customerWithOrders(names: string[]) {
  const account = await fundedAccount(shop.server, 10_000);
  for (const ToName of names) await api(shop.server.url, '/order/create', { ...ORDER, ToName }, account.token);
  const orders = (await api<{ orders: Listed[] }>(shop.server.url, '/order/read?limit=100', undefined, account.token)).orders;
  const page = await newPage(shop.browser);
  await signInThroughPage(page, shop.server.url, account.tgId, account.password);
  return { ...account, page, orders };
}
const row = (page: Page, text: string) => page.getByTestId('order-row').filter({ hasText: text });

describe('label refunds', () => {
  it('refunds a label from Order Details: Refund requested, then Refunded, the price back, the statement naming the order', async () => {
    const { page, orders, token } = await customerWithOrders(['Refund Receiver']);
    const order = orders[0]!;
    await row(page, 'Refund Receiver').getByRole('button', { name: 'Details' }).click();
    const details = page.getByTestId('order-details');
    await details.getByRole('button', { name: 'Request refund' }).click();
    // Asked in the one confirm modal of every screen, above the details.
    const confirm = page.getByTestId('confirm-modal');
    expect(await confirm.innerText()).toContain('Void this label and refund its price?');
    await confirm.getByRole('button', { name: 'Request refund' }).click();
    await confirm.waitFor({ state: 'hidden' });
    // Requested at once (the answer is read again into the modal), then refunded by the queue half a second later.
    await details.locator('[data-refund-status="requested"], [data-refund-status="refunded"]').first().waitFor();
    await page.keyboard.press('Escape');
    await expect
      .poll(async () => (await api<{ orders: Listed[] }>(shop.server.url, '/order/read?limit=1', undefined, token)).orders[0]!.refundStatus)
      .toBe('refunded');
    await page.reload();
    await row(page, 'Refund Receiver').getByRole('button', { name: 'Details' }).click();
    await details.locator('[data-refund-status="refunded"]').waitFor();
    await expect
      .poll(() => details.getByTestId('order-ledger-row').allInnerTexts())
      .toEqual([expect.stringContaining('Order'), expect.stringContaining('Label refund')]);
    await page.keyboard.press('Escape');
    await page.reload();
    const listed = row(page, 'Refund Receiver');
    await listed.locator('[data-refund-status="refunded"]').waitFor();
    expect(await listed.getByRole('button', { name: 'Download' }).count()).toBe(0);
    await expect.poll(() => page.getByTestId('balance').innerText()).toContain('100.00');

    await page.goto(`${shop.server.url}/deposits`);
    const first = page.getByTestId('statement-row').first();
    await first.waitFor();
    await expect.poll(() => first.innerText()).toContain('Label refund');
    expect(await first.getByTestId('statement-details').innerText()).toBe(`Refund of order ${order.OrderId}`);
    expect(await first.innerText()).toContain(`+$${order.price.toFixed(2)}`);
  });

  it('refunds several labels picked in Order History, and says why one could not be', async () => {
    const { page, token } = await customerWithOrders(['Pick One', 'Pick Two', 'Pick Three']);
    // One was refunded already: the multi-select answers it on its own.
    const before = (await api<{ orders: Listed[] }>(shop.server.url, '/order/read?limit=100', undefined, token)).orders;
    const already = before[0]!;
    await api(shop.server.url, '/order/refund', { ids: [already._id] }, token);
    await page.reload();
    for (const name of ['Pick One', 'Pick Two', 'Pick Three']) await row(page, name).getByRole('checkbox').check();
    await page.getByTestId('order-selection').getByText('3 orders selected').waitFor();
    await page.getByTestId('order-selection').getByRole('button', { name: 'Request refund' }).click();
    const confirm = page.getByTestId('confirm-modal');
    expect(await confirm.innerText()).toContain('Refund these 3 labels?');
    await confirm.getByRole('button', { name: 'Request refund' }).click();
    await page.getByRole('alert').filter({ hasText: '2 of 3 refunds requested' }).waitFor();
    expect(await page.getByRole('alert').filter({ hasText: '2 of 3 refunds requested' }).innerText()).toContain(already.OrderId);
    // The selection is cleared; each row shows its refund, and none offers its label any more.
    expect(await page.getByTestId('order-selection').count()).toBe(0);
    await expect
      .poll(async () => (await api<{ orders: Listed[] }>(shop.server.url, '/order/read?limit=100', undefined, token)).orders.map((o) => o.refundStatus).sort())
      .toEqual(['refunded', 'refunded', 'refunded']);
    await page.reload();
    for (const name of ['Pick One', 'Pick Two', 'Pick Three']) {
      await row(page, name).locator('[data-refund-status="refunded"]').waitFor();
      expect(await row(page, name).getByRole('button', { name: 'Download' }).count()).toBe(0);
    }
  });

  it("lets an operator approve by hand a refund the carrier rejected, from the console's refund queue; the customer is credited", async () => {
    const { orders, token } = await customerWithOrders(['Console Receiver']);
    const order = orders[0]!;
    // A refund the upstream rejected (as EasyPost's refund_status rejected would leave it).
    await withServerDb(shop.server, (db) =>
      db
        .updateTable('orders')
        .set({ refund_status: 'rejected', refund_note: 'the carrier rejected the refund', refund_requested_at: new Date().toISOString() })
        .where('id', '=', order._id)
        .execute(),
    );
    const admin = await adminSession(shop.browser, shop.server);
    await admin.page.goto(`${shop.server.url}/admin/refunds`);
    await admin.page.getByRole('button', { name: 'Rejected', exact: true }).click();
    const listed = admin.page.getByTestId('refund-row').filter({ hasText: order.OrderId });
    await listed.getByText('the carrier rejected the refund').first().waitFor();
    await listed.getByRole('button', { name: 'Approve' }).click();
    await admin.page.getByRole('alert').filter({ hasText: 'Refund approved and credited' }).waitFor();
    await expect.poll(async () => (await api<{ balance: number }>(shop.server.url, '/auth/access', undefined, token)).balance).toBe(100);
    await admin.page.getByRole('button', { name: 'Refunded', exact: true }).click();
    await admin.page.getByTestId('refund-row').filter({ hasText: order.OrderId }).waitFor();
  });
});
