import { describe, expect, it } from 'vitest';
import { AUTO_VOID_OFF } from '@portal/contract';
import { orderParties } from '../apps/server/test/sample-addresses.ts';
import { api, fundedAccount, newPage, signInThroughPage, useShop, withServerDb } from './harness.ts';

// The automatic voids run every 200 ms here; a sandbox refund is approved half a second after it is asked.
const shop = useShop({
  env: { RATE_LIMIT_MAX: '1000', LABEL_SANDBOX_REFUND_DELAY_MS: '500', ORDER_POLL_INTERVAL_MS: '200', AUTO_VOID_INTERVAL_MS: '200' },
});

const ORDER = { labelType: 'priority', design: 'normal', Weight: 2, ...orderParties() };
const PHONE = { width: 390, height: 844 };

describe('automatic voids of unused labels', () => {
  it('the dashboard says what they saved this month, and Account Setting turns them off', async () => {
    const account = await fundedAccount(shop.server, 10_000);
    const { orderId } = await api<{ orderId: string }>(shop.server.url, '/order/create', { ...ORDER, ToName: 'Never Shipped' }, account.token);
    const page = await newPage(shop.browser);
    await signInThroughPage(page, shop.server.url, account.tgId, account.password);
    await page.setViewportSize(PHONE);
    // Nothing saved yet: no line.
    await page.getByTestId('balance').waitFor();
    expect(await page.getByTestId('auto-void-saved').count()).toBe(0);

    // Bought 26 days ago and never scanned: the next run asks its refund, and the sandbox approves it.
    const price = (await api<{ orders: { price: number }[] }>(shop.server.url, '/order/read?limit=1', undefined, account.token)).orders[0]!.price;
    await withServerDb(shop.server, (db) =>
      db
        .updateTable('orders')
        .set({ created_at: new Date(Date.now() - 26 * 86_400_000).toISOString() })
        .where('id', '=', orderId)
        .execute(),
    );
    await expect
      .poll(
        async () =>
          (await api<{ orders: { refundStatus: string | null }[] }>(shop.server.url, '/order/read?limit=1', undefined, account.token)).orders[0]!.refundStatus,
      )
      .toBe('refunded');
    await page.reload();
    await expect.poll(() => page.getByTestId('auto-void-saved').innerText()).toBe(`Saved by automatic voids: $${price.toFixed(2)} this month`);
    // A phone does not scroll sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    await page.goto(`${shop.server.url}/settings`);
    const toggle = page.getByLabel('Refund unused labels automatically');
    await expect.poll(() => toggle.isChecked()).toBe(true);
    await toggle.click();
    await page.getByText(AUTO_VOID_OFF).waitFor();
    await page.reload();
    await expect.poll(() => toggle.isChecked()).toBe(false);
    expect((await api<{ autoVoid: boolean }>(shop.server.url, '/auth/access', undefined, account.token)).autoVoid).toBe(false);
  });
});
