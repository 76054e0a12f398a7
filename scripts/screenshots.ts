// `npm run screenshots`: the README's screenshots, taken from the real product. Starts the server
// (the built app; built first when needed) on a temporary data directory, seeds a demo customer,
// drives Chromium through the screens at 1366x900 and 390x844 and writes docs/screenshots/*.png.
// Every process and temporary directory it starts is gone when it ends, whatever happens.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, startServer, type RunningServer } from '../e2e/harness.ts';
import { seedDemoCustomer } from '../e2e/demo-data.ts';

const outDir = path.resolve(import.meta.dirname, '../docs/screenshots');
const SIZES = [
  { name: 'desktop', viewport: { width: 1366, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
];

/** Each screen: its path and what shows once its data has loaded. */
const SCREENS: { name: string; path: string; ready: (page: Page) => Promise<void> }[] = [
  { name: 'dashboard', path: '/', ready: (page) => page.getByTestId('order-row').nth(6).waitFor() },
  { name: 'create-order', path: '/createOrders', ready: (page) => page.getByLabel('Type', { exact: true }).locator('option', { hasText: 'USPS Priority Mail' }).first().waitFor({ state: 'attached' }) },
  { name: 'csv-order', path: '/csv-orders', ready: (page) => page.getByTestId('bulk-order-row').first().getByRole('button', { name: 'PDF' }).waitFor() },
  { name: 'addresses', path: '/address', ready: (page) => page.getByTestId('address-row').nth(2).waitFor() },
];

// A signal (Ctrl-C, kill) ends the process through 'exit', where the harness kills the server and removes its data directory.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => process.exit(130));

async function main() {
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  try {
    [server, browser] = await Promise.all([startServer({ RATE_LIMIT_MAX: '1000' }), launchBrowser()]);
    const demo = await seedDemoCustomer(server);
    fs.mkdirSync(outDir, { recursive: true });
    for (const { name: size, viewport } of SIZES) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(`${server.url}/login`);
      await page.getByLabel('Telegram Username').fill(demo.tgId);
      await page.getByLabel('Password', { exact: true }).fill(demo.password);
      await page.getByRole('button', { name: 'Sign In' }).click();
      await page.getByTestId('user-menu').waitFor();
      for (const screen of SCREENS) {
        await page.goto(`${server.url}${screen.path}`);
        await screen.ready(page);
        const file = path.join(outDir, `${screen.name}-${size}.png`);
        await page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
        console.log(`wrote ${path.relative(process.cwd(), file)}`);
      }
      await context.close();
    }
  } finally {
    await browser?.close();
    await server?.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
