import { expect, it } from 'vitest';
import { newChatId } from '../apps/server/test/telegram-fixtures.ts';
import { api, fundAccount, signedInPage, useShop } from './harness.ts';

// The sandbox moves a label a tracking step every 300 ms.
const shop = useShop({ telegram: true, env: { LABEL_SANDBOX_TRACKING_STEP_MS: '300' } });

type Listed = { _id: string; OrderId: string; trackingStatus: string | null };

it('Order History and Order Details show where a label is (sandbox tracking), and Account Setting offers the delivered message', async () => {
  const { account, page } = await signedInPage(shop.browser, shop.server.url);
  await fundAccount(shop.server, account.token, 1_000);
  const { labelTypes } = await api<{ labelTypes: { _id: string; uid: string }[] }>(shop.server.url, '/labeltype/read', undefined, account.token);
  await api(
    shop.server.url,
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
  const listed = async () => (await api<{ orders: Listed[] }>(shop.server.url, '/order/read', undefined, account.token)).orders[0];
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
  const chat = newChatId();
  shop.telegram.send(chat, `/start ${token}`);
  await shop.telegram.sentTo(chat, 1);
  await page.goto(`${shop.server.url}/settings`);
  const card = page.getByTestId('telegram-card');
  await card.getByTestId('telegram-status').filter({ hasText: 'Linked' }).waitFor();
  expect(await card.getByLabel('A label order delivered (tracking)').isChecked()).toBe(true);
});
