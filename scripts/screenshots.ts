// `npm run screenshots`: the README's screenshots, taken from the real product. Starts the server
// (the built app; built first when needed) on a temporary data directory, seeds a demo customer,
// drives Chromium through the screens (and each form's field errors) at 1366x900 and 390x844 and
// writes docs/screenshots/*.png.
// Every process and temporary directory it starts is gone when it ends, whatever happens.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, selectLabelType, startServer, type RunningServer } from '../e2e/harness.ts';
import { seedDemoCustomer } from '../e2e/demo-data.ts';

const outDir = path.resolve(import.meta.dirname, '../docs/screenshots');
const SIZES = [
  { name: 'desktop', viewport: { width: 1366, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
];

/** Each screen: its path and what shows once its data has loaded. */
const SCREENS: { name: string; path: string; ready: (page: Page) => Promise<void> }[] = [
  { name: 'dashboard', path: '/', ready: (page) => page.getByTestId('order-row').nth(6).waitFor() },
  {
    name: 'create-order',
    path: '/createOrders',
    ready: (page) => page.getByLabel('Type', { exact: true }).locator('option', { hasText: 'USPS Priority Mail' }).first().waitFor({ state: 'attached' }),
  },
  { name: 'csv-order', path: '/csv-orders', ready: (page) => page.getByTestId('bulk-order-row').first().getByRole('button', { name: 'PDF' }).waitFor() },
  { name: 'addresses', path: '/address', ready: (page) => page.getByTestId('address-row').nth(2).waitFor() },
];

/** Field errors: each form as its submit with empty fields leaves it (the message under each field, in red). */
type ErrorScreen = { name: string; path: string; submit: (page: Page) => Promise<void> };
/** Signed out. */
const SIGNED_OUT_ERROR_SCREENS: ErrorScreen[] = [
  { name: 'sign-up-errors', path: '/register', submit: (page) => page.getByRole('button', { name: 'Sign Up' }).click() },
  { name: 'sign-in-errors', path: '/login', submit: (page) => page.getByRole('button', { name: 'Sign In' }).click() },
];
/** Signed in. */
const ERROR_SCREENS: ErrorScreen[] = [
  { name: 'deposits-errors', path: '/deposits', submit: (page) => page.getByRole('button', { name: 'Add Balance' }).click() },
  {
    name: 'create-order-errors',
    path: '/createOrders',
    submit: async (page) => {
      await SCREENS[1].ready(page);
      await selectLabelType(page.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
      // Without a weight the button says 'Enter a weight' and is disabled: a weight, so the other fields' errors show.
      await page.getByLabel('Weight').fill('2');
      await page.getByRole('button', { name: /^Create Order/ }).click();
    },
  },
  {
    name: 'address-modal-errors',
    path: '/address',
    submit: async (page) => {
      await page.getByRole('button', { name: 'Add Address' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    },
  },
  {
    name: 'fedex-errors',
    path: '/fedex-order',
    submit: async (page) => {
      await page.getByRole('tab', { name: 'Create Order' }).click();
      await page.getByRole('button', { name: /^Pay \$/ }).click();
    },
  },
];

async function shoot(page: Page, name: string, size: string) {
  const file = path.join(outDir, `${name}-${size}.png`);
  await page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

/** Once the form has marked its fields (errors come one render after the submit), scrolled to the top. */
async function errorsShown(page: Page) {
  await page.locator('.invalid-feedback').filter({ hasText: /\S/ }).first().waitFor();
  await page.evaluate(() => window.scrollTo(0, 0));
}

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
      const shootErrors = async (screens: ErrorScreen[]) => {
        for (const screen of screens) {
          await page.goto(`${server!.url}${screen.path}`);
          await screen.submit(page);
          await errorsShown(page);
          await shoot(page, screen.name, size);
        }
      };
      await shootErrors(SIGNED_OUT_ERROR_SCREENS); // ends on the sign-in page
      await page.getByLabel('Telegram Username').fill(demo.tgId);
      await page.getByLabel('Password', { exact: true }).fill(demo.password);
      await page.getByRole('button', { name: 'Sign In' }).click();
      await page.getByTestId('user-menu').waitFor();
      for (const screen of SCREENS) {
        await page.goto(`${server.url}${screen.path}`);
        await screen.ready(page);
        await shoot(page, screen.name, size);
      }
      await shootErrors(ERROR_SCREENS);
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
