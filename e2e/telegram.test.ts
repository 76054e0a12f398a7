import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { TELEGRAM_LINK_TEXT } from '@portal/contract';
import { newChatId } from '../apps/server/test/telegram-fixtures.ts';
import { signedInPage, useShop } from './harness.ts';

const toast = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });

/** The Orders card's deep link to the bot `username` once it shows, and its token. */
async function deepLink(page: Page, username: string) {
  const link = page.getByTestId('telegram-link');
  await link.waitFor();
  expect(await link.textContent()).toBe(TELEGRAM_LINK_TEXT);
  const href = (await link.getAttribute('href'))!;
  expect(href).toMatch(new RegExp(`^https://t\\.me/${username}\\?start=[A-Za-z0-9_-]{32}$`));
  return { href, token: new URL(href).searchParams.get('start')! };
}

describe('with a bot configured', () => {
  // The fake Bot API server lives in this test; the shop long-polls it.
  const shop = useShop({ telegram: true });

  it('shows a fresh deep link on the Orders card, links the chat through it, and Account Setting shows the link, the choices and unlinks', async () => {
    const { account, page } = await signedInPage(shop.browser, shop.server.url);
    const first = await deepLink(page, shop.telegram.username);
    await page.reload();
    const second = await deepLink(page, shop.telegram.username);
    expect(second.token).not.toBe(first.token);

    // Pressing Start in Telegram sends /start <token> from a chat whose username is not the account's.
    const chat = newChatId();
    shop.telegram.send(chat, `/start ${second.token}`, 'shipper_phone');
    expect((await shop.telegram.sentTo(chat, 1))[0]).toMatch(new RegExp(`^Linked to @${account.tgId}\\n`));
    await page.reload();
    await page.getByTestId('telegram-linked').waitFor();
    expect(await page.getByTestId('telegram-link').count()).toBe(0);

    await page.getByTestId('telegram-linked').click();
    await page.waitForURL(`${shop.server.url}/settings`);
    const card = page.getByTestId('telegram-card');
    await card
      .getByTestId('telegram-status')
      .filter({ hasText: 'Linked' })
      .filter({ hasText: `@shipper_phone with @${shop.telegram.username}` })
      .waitFor();

    // All on by default; a choice is saved and kept.
    const deposits = card.getByLabel('A deposit credited');
    expect(await deposits.isChecked()).toBe(true);
    await deposits.click();
    await toast(page, 'Telegram messages saved').waitFor();
    await page.reload();
    await card.getByTestId('telegram-status').filter({ hasText: 'Linked' }).waitFor();
    expect(await card.getByLabel('A deposit credited').isChecked()).toBe(false);
    expect(await card.getByLabel('A label order completed').isChecked()).toBe(true);

    await card.getByRole('button', { name: 'Unlink' }).click();
    await toast(page, 'Telegram unlinked').waitFor();
    await card.getByTestId('telegram-status').filter({ hasText: 'Not linked' }).waitFor();
    const again = card.getByRole('link', { name: TELEGRAM_LINK_TEXT });
    await again.waitFor();
    expect(await again.getAttribute('href')).toMatch(new RegExp(`^https://t\\.me/${shop.telegram.username}\\?start=`));

    // The chat is told nothing more; the dashboard offers the link again.
    shop.telegram.send(chat, '/balance');
    expect((await shop.telegram.sentTo(chat, 2))[1]).toMatch(/^This chat is not linked to a shop account/);
    await page.goto(shop.server.url);
    await deepLink(page, shop.telegram.username);
  });
});

describe('without a bot', () => {
  const shop = useShop();

  it('shows no Telegram link on the Orders card and no Telegram card in Account Setting', async () => {
    const { page } = await signedInPage(shop.browser, shop.server.url);
    await expect.poll(() => page.getByTestId('orders-count').textContent()).toBe('0');
    expect(await page.evaluate(async () => (await (await fetch('/api/v1/config')).json()).telegramBot)).toBeNull();
    expect(await page.getByTestId('telegram-link').count()).toBe(0);
    expect(await page.getByText(TELEGRAM_LINK_TEXT).count()).toBe(0);
    await page.goto(`${shop.server.url}/settings`);
    await page.getByTestId('webhook-card').waitFor();
    expect(await page.getByTestId('telegram-card').count()).toBe(0);
  });
});
