// Carrier pickups on the End of day page: a group of UPS labels rated, booked (its fee charged) and cancelled (its
// fee refunded) through the sandbox, which answers at once; then the page on a phone, with nothing scrolling sideways.
import { describe, expect, it } from 'vitest';
import { PICKUP_CANCELLED, nextUspsPickupDay, setShopTimeZone, shopDay } from '@portal/contract';
import { orderPayload } from '../apps/server/test/order-fixtures.ts';
import { api, fundedSession, useShop } from './harness.ts';

const shop = useShop({ env: { RATE_LIMIT_MAX: '1000', ORDER_POLL_INTERVAL_MS: '200' } });

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

describe('End of day: carrier pickups', () => {
  it("schedules a pickup of a group's labels, charging its fee, cancels it refunding the fee, and fits a phone", async () => {
    const { page, token } = await fundedSession(shop.browser, shop.server, 10_000, { viewport: DESKTOP });
    const balance = async () => (await api<{ balance: number }>(shop.server.url, '/auth/access', undefined, token)).balance;
    for (const ToName of ['Pickup One', 'Pickup Two']) await api(shop.server.url, '/order/create', orderPayload('ups_standard', { ToName }), token);
    await expect
      .poll(async () => (await api<{ orders: { status: string }[] }>(shop.server.url, '/order/read?limit=100', undefined, token)).orders.map((o) => o.status))
      .toEqual(['completed', 'completed']);
    const before = await balance();

    await page.goto(`${shop.server.url}/scan-forms`);
    await page.getByRole('heading', { name: 'End of day' }).waitFor();
    const group = page.getByTestId('scan-group').filter({ hasText: 'UPS' });
    await group.filter({ hasText: '2 labels' }).waitFor();
    await group.getByRole('button', { name: 'Schedule pickup' }).click();
    // The defaults: tomorrow, 09:00 to 13:00.
    const form = group.getByTestId('pickup-form');
    expect(await form.getByLabel('From').inputValue()).toBe('09:00');
    expect(await form.getByLabel('Until').inputValue()).toBe('13:00');
    await form.getByRole('button', { name: 'See pickup rates' }).click();
    const rate = form.getByLabel('Sandbox pickup — $4.50');
    await rate.waitFor();
    expect(await rate.isChecked()).toBe(true);
    await form.getByRole('button', { name: 'Book pickup' }).click();
    const booked = form.getByTestId('pickup-success').filter({ hasText: /^Pickup booked, confirmation SANDBOX-\w+$/ });
    await booked.waitFor();
    const confirmation = (await booked.innerText()).split(' ').pop()!;

    // The Pickups card lists it as Booked with its confirmation; the fee left the balance, in the header too.
    const row = page.getByTestId('pickup-row').filter({ hasText: confirmation });
    await row.locator('[data-pickup-status="booked"]', { hasText: 'Booked' }).waitFor();
    const text = await row.innerText();
    for (const part of ['UPS', 'Sandbox pickup', '$4.50']) expect(text).toContain(part);
    expect(await balance()).toBeCloseTo(before - 4.5, 2);
    await expect.poll(() => page.getByTestId('header-balance').innerText()).toContain((before - 4.5).toFixed(2));

    // Cancelled after 'Are you sure?': Cancelled, and the fee back.
    await row.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('confirm-modal').getByRole('button', { name: 'Cancel pickup' }).click();
    await page.getByTestId('pickup-cancel-success').filter({ hasText: PICKUP_CANCELLED }).waitFor();
    await row.locator('[data-pickup-status="cancelled"]', { hasText: 'Cancelled' }).waitFor();
    expect(await row.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    expect(await balance()).toBeCloseTo(before, 2);
    await expect.poll(() => page.getByTestId('header-balance').innerText()).toContain(before.toFixed(2));

    // On a phone the page, the pickup form with its rates open, does not scroll sideways.
    await page.setViewportSize(PHONE);
    await page.goto(`${shop.server.url}/scan-forms`);
    await page.getByTestId('pickup-row').first().waitFor();
    await group.getByRole('button', { name: 'Schedule pickup' }).click();
    await form.getByRole('button', { name: 'See pickup rates' }).click();
    await form.getByLabel('Sandbox pickup — $4.50').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  });

  it("a USPS pickup's form offers USPS's next business day; once booked, its labels show the confirmation and the window", async () => {
    const { page, token } = await fundedSession(shop.browser, shop.server, 10_000, { viewport: DESKTOP });
    // The shop's day, as the server counts it.
    setShopTimeZone((await api<{ timeZone: string }>(shop.server.url, '/auth/access', undefined, token)).timeZone);
    await api(shop.server.url, '/order/create', orderPayload('priority', { ToName: 'Usps Pickup' }), token);
    await expect
      .poll(async () => (await api<{ orders: { status: string }[] }>(shop.server.url, '/order/read', undefined, token)).orders.map((o) => o.status))
      .toEqual(['completed']);

    await page.goto(`${shop.server.url}/scan-forms`);
    const group = page.getByTestId('scan-group').filter({ hasText: 'USPS' });
    await group.getByRole('button', { name: 'Schedule pickup' }).click();
    const form = group.getByTestId('pickup-form');
    const day = nextUspsPickupDay(shopDay());
    expect(await form.getByLabel('Pickup date').inputValue()).toBe(day);
    await form.getByRole('button', { name: 'See pickup rates' }).click();
    await form.getByLabel('Sandbox pickup — Free').waitFor();
    await form.getByRole('button', { name: 'Book pickup' }).click();
    const booked = form.getByTestId('pickup-success').filter({ hasText: /^Pickup booked, confirmation SANDBOX-\w+$/ });
    await booked.waitFor();
    const confirmation = (await booked.innerText()).split(' ').pop()!;

    // Order History's row, and Order Details: "Pickup <confirmation>, <the window in the reader's locale>".
    await page.goto(`${shop.server.url}/`);
    const row = page.getByTestId('order-row').filter({ hasText: 'Usps Pickup' });
    await row
      .getByTestId('order-pickup-badge')
      .filter({ hasText: `Pickup ${confirmation}` })
      .waitFor();
    await row.getByRole('button', { name: 'Details' }).click();
    const said = await page.getByTestId('order-details').getByTestId('order-pickup').innerText();
    // The window as the page's own locale writes it: 09:00 to 13:00 of that day.
    const windowShown = await page.evaluate((ymd) => {
      const [y, m, d] = ymd.split('-').map(Number);
      const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
      const at = (hour: number) => clock.format(new Date(y, m - 1, d, hour));
      return `${new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(new Date(y, m - 1, d))}, ${at(9)} – ${at(13)}`;
    }, day);
    expect(said).toBe(`Pickup ${confirmation}, ${windowShown}`);
  });
});
