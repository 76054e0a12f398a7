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
type Listed = { _id: string; OrderId: string; toName: string; tracking: string; price: number; refundStatus: string | null; pdf: string | null };

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

  it('refunds several labels picked in Order History, warns naming the one refused, and says why a delivered label cannot be', async () => {
    const { page, token } = await customerWithOrders(['Pick One', 'Pick Two', 'Pick Three', 'Pick Scanned']);
    const before = (await api<{ orders: Listed[] }>(shop.server.url, '/order/read?limit=100', undefined, token)).orders;
    const byName = (name: string) => before.find((o) => o.toName === name)!;
    // One was refunded already: the multi-select answers it on its own. One the carrier has delivered.
    const already = byName('Pick Three');
    await api(shop.server.url, '/order/refund', { ids: [already._id] }, token);
    const scanned = byName('Pick Scanned');
    await withServerDb(shop.server, (db) => db.updateTable('orders').set({ tracking_status: 'delivered' }).where('id', '=', scanned._id).execute());
    await page.reload();

    // The delivered label offers no refund: Order Details and the selection say why instead.
    const why = 'Cannot be refunded: the carrier has scanned it (Delivered)';
    await row(page, 'Pick Scanned').getByRole('button', { name: 'Details' }).click();
    const details = page.getByTestId('order-details');
    await details.getByTestId('order-refund').filter({ hasText: why }).waitFor();
    expect(await details.getByRole('button', { name: 'Request refund' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    const bar = page.getByTestId('order-selection');
    await row(page, 'Pick Scanned').getByRole('checkbox').check();
    await bar.getByTestId('refund-blocked').filter({ hasText: why }).waitFor();
    expect(await bar.getByRole('button', { name: /Request refund/ }).count()).toBe(0);
    await row(page, 'Pick Scanned').getByRole('checkbox').uncheck();

    for (const name of ['Pick One', 'Pick Two', 'Pick Three']) await row(page, name).getByRole('checkbox').check();
    await bar.getByText('3 orders selected').waitFor();
    await bar.getByRole('button', { name: 'Request refund' }).click();
    const confirm = page.getByTestId('confirm-modal');
    expect(await confirm.innerText()).toContain('Refund these 3 labels?');
    await confirm.getByRole('button', { name: 'Request refund' }).click();
    // Some refused: a warning, not a success, naming the refused label by its order and tracking numbers.
    const summary = page.locator('.Toastify__toast--warning').filter({ hasText: '2 of 3 refunds requested' });
    await summary.waitFor();
    expect(await summary.innerText()).toContain(`${already.OrderId} (${already.tracking}): `);
    // The selection is cleared; each row shows its refund, and none offers its label any more.
    expect(await bar.count()).toBe(0);
    await expect
      .poll(async () =>
        (await api<{ orders: Listed[] }>(shop.server.url, '/order/read?limit=100', undefined, token)).orders
          .filter((o) => o._id !== scanned._id)
          .map((o) => o.refundStatus),
      )
      .toEqual(['refunded', 'refunded', 'refunded']);
    await page.reload();
    for (const name of ['Pick One', 'Pick Two', 'Pick Three']) {
      await row(page, name).locator('[data-refund-status="refunded"]').waitFor();
      expect(await row(page, name).getByRole('button', { name: 'Download' }).count()).toBe(0);
    }

    // None asked (the one selected was refunded already): an error.
    await row(page, 'Pick One').getByRole('checkbox').check();
    await bar.getByRole('button', { name: 'Request refund' }).click();
    await confirm.getByRole('button', { name: 'Request refund' }).click();
    const refused = page.locator('.Toastify__toast--error').filter({ hasText: '0 of 1 refund requested' });
    await refused.waitFor();
    expect(await refused.innerText()).toContain(byName('Pick One').OrderId);
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

  it('makes a return label from Order Details: charged like its type, a Return badge in the history, linked both ways', async () => {
    const { page, orders, token } = await customerWithOrders(['Return Receiver']);
    const original = orders[0]!;
    const balance = async () => (await api<{ balance: number }>(shop.server.url, '/auth/access', undefined, token)).balance;
    const before = await balance();
    await row(page, 'Return Receiver').getByRole('button', { name: 'Details' }).click();
    const details = page.getByTestId('order-details');
    await details.getByRole('button', { name: 'Create return label' }).click();
    const confirm = page.getByTestId('confirm-modal');
    await confirm.getByRole('button', { name: 'Create return label' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await details.getByTestId('order-return').filter({ hasText: 'Return label made' }).waitFor();
    await page.keyboard.press('Escape');
    // The return ships from the receiver back to the sender: its row names the original sender as its receiver.
    const back = page.getByTestId('order-row').filter({ has: page.getByTestId('order-return-badge') });
    await back.first().waitFor();
    expect(await back.count()).toBe(1);
    await expect.poll(balance).toBe(Math.round((before - original.price) * 100) / 100);
    await back.getByRole('button', { name: 'Details' }).click();
    expect(await details.getByTestId('order-return').innerText()).toBe(`Return label of order ${original.OrderId}`);
  });
});
