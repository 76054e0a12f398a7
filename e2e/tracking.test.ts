import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startFakeTelegram, type FakeTelegram } from '../apps/server/test/fake-telegram.ts';
import { api, fundAccount, signedInPage, startServerAndBrowser, type RunningServer } from './harness.ts';

let server: RunningServer;
let browser: Browser;
let tg: FakeTelegram;
beforeAll(async () => {
  tg = await startFakeTelegram();
  // The sandbox moves a label a tracking step every 300 ms.
  ({ server, browser } = await startServerAndBrowser({
    LABEL_SANDBOX_TRACKING_STEP_MS: '300',
    TELEGRAM_BOT_TOKEN: tg.token,
    TELEGRAM_BOT_USERNAME: tg.username,
    TELEGRAM_API_ROOT: tg.apiRoot,
  }));
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await tg?.close();
});

type Listed = { _id: string; OrderId: string; trackingStatus: string | null };

it('Order History and Order Details show where a label is (sandbox tracking), and Account Setting offers the delivered message', async () => {
  const { account, page } = await signedInPage(browser, server.url);
  await fundAccount(server, account.token, 1_000);
  const { labelTypes } = await api<{ labelTypes: { _id: string; uid: string }[] }>(server.url, '/labeltype/read', undefined, account.token);
  await api(
    server.url,
    '/order/create',
    {
      labelType: labelTypes.find((t) => t.uid === 'priority')!._id,
      design: 'normal',
      Weight: 1,
      FromName: 'Track Sender',
      FromStreet: '1 Main St',
      FromCity: 'Austin',
      FromState: 'TX',
      FromZip: '78701',
      ToName: 'Track Receiver',
      ToStreet: '2 Oak Ave',
      ToCity: 'Denver',
      ToState: 'CO',
      ToZip: '80202',
    },
    account.token,
  );
  const listed = async () => (await api<{ orders: Listed[] }>(server.url, '/order/read', undefined, account.token)).orders[0];
  await expect.poll(async () => (await listed()).trackingStatus, { timeout: 15_000 }).toBe('delivered');

  await page.reload();
  const row = page.getByTestId('order-row').filter({ hasText: 'Track Receiver' });
  await row.getByTestId('order-tracking-status').filter({ hasText: 'Delivered' }).waitFor();
  await row.getByRole('button', { name: 'Details' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('order-facts').waitFor();
  expect(await dialog.getByTestId('order-tracking-status').textContent()).toBe('Delivered');
  await page.keyboard.press('Escape');

  // Link a chat, then Account Setting lists the delivered message among the choices, on by default.
  const link = page.getByTestId('telegram-link');
  const token = new URL((await link.getAttribute('href'))!).searchParams.get('start')!;
  const chat = 8_200_000_000 + (Date.now() % 1_000_000);
  tg.send(chat, `/start ${token}`);
  await tg.sentTo(chat, 1);
  await page.goto(`${server.url}/settings`);
  const card = page.getByTestId('telegram-card');
  await card.getByTestId('telegram-status').filter({ hasText: 'Linked' }).waitFor();
  expect(await card.getByLabel('A label order delivered (tracking)').isChecked()).toBe(true);
});
