import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { PDFDocument } from 'pdf-lib';
import { api, fundedAccount, newPage, signInThroughPage, useShop } from './harness.ts';
import { decodeCode128, printZpl, zplCommands } from '../apps/server/test/zpl-check.ts';
import { orderParties } from '../apps/server/test/sample-addresses.ts';

const shop = useShop({ env: { RATE_LIMIT_MAX: '1000' } });

const ADDRESSES = orderParties();

/** Clicks and answers the saved file's name and bytes. */
async function saved(page: Page, button: Locator): Promise<{ name: string; bytes: Buffer }> {
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  return { name: download.suggestedFilename(), bytes: fs.readFileSync(await download.path()) };
}

/** Account Setting: picks the label format and waits until the server has it. */
async function chooseFormat(page: Page, token: string, name: RegExp, format: string) {
  await page.goto(`${shop.server.url}/settings`);
  await page.getByRole('radio', { name }).check();
  await expect.poll(async () => (await api<{ labelFormat: string }>(shop.server.url, '/auth/access', undefined, token)).labelFormat).toBe(format);
  await expect.poll(() => page.getByRole('radio', { name }).isChecked()).toBe(true);
}

describe('label format', () => {
  it('Account Setting chooses ZPL or Letter; a row’s Download and Download selected save that format, the file checked', async () => {
    const account = await fundedAccount(shop.server, 10_000);
    for (const ToName of ['Ana Núñez', 'Bob Printer'])
      await api(shop.server.url, '/order/create', { labelType: 'priority', design: 'normal', Weight: 2, ...ADDRESSES, ToName }, account.token);
    const orders = (
      await api<{ orders: { _id: string; OrderId: string; tracking: string; toName: string }[] }>(
        shop.server.url,
        '/order/read?limit=10',
        undefined,
        account.token,
      )
    ).orders;
    const page = await newPage(shop.browser);
    await signInThroughPage(page, shop.server.url, account.tgId, account.password);

    await chooseFormat(page, account.token, /ZPL for thermal printers/, 'zpl');
    await page.goto(`${shop.server.url}/`);
    const ana = orders.find((o) => o.toName === 'Ana Núñez')!;
    const row = page.getByTestId('order-row').filter({ hasText: 'Ana Núñez' });
    const one = await saved(page, row.getByRole('button', { name: 'Download' }));
    expect(one.name).toBe(`${ana.tracking}.zpl`);
    const zpl = one.bytes.toString('utf8');
    expect(zplCommands(zpl).labels[0]).toEqual(expect.arrayContaining(['XA', 'PW812', 'LL1218', 'XZ']));
    expect(zpl).toContain('SAMPLE - NOT VALID FOR POSTAGE');
    expect(decodeCode128((await printZpl(zpl))[0])).toContain(ana.tracking.slice(2));

    for (const order of orders) await page.getByRole('checkbox', { name: `Select order ${order.OrderId}` }).check();
    const both = await saved(page, page.getByRole('button', { name: 'Download selected (2)' }));
    expect(both.name).toBe('labels.zpl');
    expect(zplCommands(both.bytes.toString('utf8')).labels).toHaveLength(2);

    await chooseFormat(page, account.token, /Letter PDF/, 'pdf-letter');
    await page.goto(`${shop.server.url}/`);
    for (const order of orders) await page.getByRole('checkbox', { name: `Select order ${order.OrderId}` }).check();
    const letter = await saved(page, page.getByRole('button', { name: 'Download selected (2)' }));
    expect(letter.name).toBe('labels.pdf');
    const pages = (await PDFDocument.load(letter.bytes)).getPages();
    expect(pages.map((p) => [p.getWidth(), p.getHeight()])).toEqual([[612, 792]]);
  });
});
