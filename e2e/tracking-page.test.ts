import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { TRACKING_PAGE_NOT_FOUND } from '@portal/contract';
import { api, fundAccount, newPage, signedInPage, useShop } from './harness.ts';

// The sandbox moves a label a tracking step every 300 ms.
const shop = useShop({ env: { LABEL_SANDBOX_TRACKING_STEP_MS: '300' } });
const PHONE = { width: 390, height: 844 };
const noSideScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

it("the recipient's tracking page opens from Order Details on a phone without signing in: its history, the two cities only, no sideways scroll; an unknown link is not found", async () => {
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
      FromName: 'Page Sender',
      FromStreet: '1 Main St',
      FromCity: 'Austin',
      FromState: 'TX',
      FromZip: '78701',
      ToName: 'Page Receiver',
      ToStreet: '2 Oak Ave',
      ToCity: 'Denver',
      ToState: 'CO',
      ToZip: '80202',
      ToPhone: '303-555-0188',
    },
    account.token,
  );
  const listed = async () => (await api<{ orders: { trackingStatus: string | null }[] }>(shop.server.url, '/order/read', undefined, account.token)).orders[0];
  await expect.poll(async () => (await listed()).trackingStatus, { timeout: 15_000 }).toBe('delivered');

  // Order Details shows the link (and its copy button).
  await page.reload();
  await page.getByTestId('order-row').filter({ hasText: 'Page Receiver' }).getByRole('button', { name: 'Details' }).click();
  const dialog = page.getByRole('dialog');
  const link = dialog.getByTestId('order-tracking-page');
  await link.waitFor();
  const href = (await link.getAttribute('href'))!;
  expect(href).toMatch(new RegExp(`^${shop.server.url}/t/[A-Za-z0-9_-]{22}$`));
  expect(await link.textContent()).toBe(href);
  expect(await dialog.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);

  // A phone that never signed in opens it: no app shell, the status and its history, newest first.
  const phone = await newPage(shop.browser, { viewport: PHONE });
  await phone.goto(href);
  await phone.getByTestId('tracking-status').filter({ hasText: 'Delivered' }).waitFor();
  expect(await phone.getByTestId('tracking-step-status').allTextContents()).toEqual(['Delivered', 'Out for delivery', 'In transit', 'Label created']);
  expect(await phone.getByTestId('sidebar').count()).toBe(0);
  const text = (await phone.locator('main').textContent())!;
  expect(text).toContain('Austin, TX');
  expect(text).toContain('Denver, CO');
  for (const secret of ['Page Receiver', 'Page Sender', '2 Oak Ave', '1 Main St', '80202', '78701', '555']) expect(text).not.toContain(secret);
  expect(await noSideScroll(phone)).toBe(true);
  expect(await phone.title()).toBe('Tracking · Label Portal');

  // A link of no label, and one that cannot be a link: not found, on the phone too.
  for (const wrong of ['AAAAAAAAAAAAAAAAAAAAAA', 'not-a-token']) {
    await phone.goto(`${shop.server.url}/t/${wrong}`);
    await phone.getByTestId('tracking-not-found').waitFor();
    expect(await phone.getByTestId('tracking-not-found').textContent()).toContain(TRACKING_PAGE_NOT_FOUND);
    expect(await noSideScroll(phone)).toBe(true);
  }
  await phone.context().close();
});
