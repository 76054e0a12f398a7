import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { RESELLER_API_PREFIX, RESELLER_OPENAPI_PATH, RESELLER_TAGS, WEBHOOK_URL_INVALID } from '@portal/contract';
import { startReceiver, verifySignature } from '../apps/server/test/webhook-receiver.ts';
import { buildResellerDocs } from '../apps/web/src/features/api-docs/reseller-docs.ts';
import { api, useShop, fundedSession } from './harness.ts';

const CURL = '/usr/bin/curl';
beforeAll(() => {
  if (!fs.existsSync(CURL)) throw new Error(`${CURL} is needed to run the docs page's curl examples`);
});
// The webhook receiver of these tests listens on 127.0.0.1, a private address the server refuses by default.
const shop = useShop({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });

const CLIPBOARD = { permissions: ['clipboard-read', 'clipboard-write'] };
const toast = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });
const clipboardText = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

/** A funded account signed in on a page that may use the clipboard; with its API key. */
async function signedInUser(cents: number) {
  const session = await fundedSession(shop.browser, shop.server, cents, CLIPBOARD);
  const { api_key: apiKey } = await api<{ api_key: string }>(shop.server.url, '/auth/access', undefined, session.token);
  return { ...session, apiKey };
}

/** Runs a command as a shell would, adding only curl options that print the HTTP status after the body. */
function runCurl(command: string, cwd?: string): { status: number; body: string } {
  const output = execFileSync('bash', ['-c', `${command} --silent --show-error --write-out '\\n%{http_code}'`], { encoding: 'utf8', cwd, timeout: 30_000 });
  const cut = output.lastIndexOf('\n');
  return { status: Number(output.slice(cut + 1)), body: output.slice(0, cut) };
}

/** The JSON success answer of a command: HTTP 200 and type 'success'. */
function curlSuccess(command: string): Record<string, any> {
  const { status, body } = runCurl(command);
  expect({ status, command }).toEqual({ status: 200, command });
  const answer = JSON.parse(body);
  expect(answer.type).toBe('success');
  return answer;
}

describe('Reseller API docs page', () => {
  it("shows the user's base URL and key, its sections, and curl examples that run as shown", async () => {
    const { page, apiKey } = await signedInUser(10_000);
    await page.getByTestId('sidebar').getByRole('link', { name: 'Reseller API' }).click();
    await page.waitForURL(`${shop.server.url}/api-docs`);
    await page.getByRole('heading', { name: 'Reseller API', level: 1 }).waitFor();

    // Sections in the document's tag order.
    await expect.poll(() => page.getByRole('heading', { level: 2 }).allTextContents()).toEqual(Object.values(RESELLER_TAGS));
    const baseUrl = `${shop.server.url}${RESELLER_API_PREFIX}`;
    expect(await page.getByTestId('api-base-url').inputValue()).toBe(baseUrl);
    expect(await page.getByTestId('api-docs-key').inputValue()).toBe(apiKey);

    await page.getByRole('button', { name: 'Copy API key' }).click();
    await toast(page, 'API key copied').waitFor();
    expect(await clipboardText(page)).toBe(apiKey);

    // Every call's curl on the page is what the docs module makes of the served document.
    const document = await (await fetch(`${shop.server.url}${RESELLER_OPENAPI_PATH}`)).json();
    const docs = buildResellerDocs(document, baseUrl, apiKey);
    const expected = Object.fromEntries(docs.sections.flatMap((section) => section.calls).map((call) => [`${call.method} ${call.path}`, call.curl]));
    const calls = page.getByTestId('api-call');
    await expect.poll(() => calls.count()).toBe(Object.keys(expected).length);
    expect(Object.keys(expected).length).toBeGreaterThanOrEqual(12);
    const shown: Record<string, string> = {};
    for (const call of await calls.all()) shown[(await call.getAttribute('data-call'))!] = (await call.getByTestId('curl').textContent())!;
    expect(shown).toEqual(expected);
    for (const command of Object.values(shown)) expect(command).toContain(`'x-api-key: ${apiKey}'`);

    // Run as shown: the calls that need no id, then those that take the ids the first answers gave.
    expect(curlSuccess(shown['GET /labeltype/read-types']).labelTypes.length).toBeGreaterThan(0);
    const created = curlSuccess(shown['POST /order/create-order']);
    expect(created).toMatchObject({
      message: 'Label created successfully',
      order: { status: 'completed', fromName: 'Jane Sender', labelType: { uid: 'priority' } },
    });
    expect(curlSuccess(shown['GET /order/read-orders'])).toMatchObject({ total: 1, orders: [{ id: created.order.id }] });
    const bulk = curlSuccess(shown['POST /order/create-bulk-order']);
    expect(bulk).toMatchObject({ totalOrders: 1, job_id: expect.any(String) });
    expect(curlSuccess(shown['GET /order/bulk-job-status/{job_id}'].replace('JOB_ID', bulk.job_id))).toMatchObject({
      job_id: bulk.job_id,
      bulkorder_id: bulk.bulkorder_id,
    });
    expect(curlSuccess(shown['GET /order/bulk-queue-stats'])).toMatchObject({ total: expect.any(Number) });
    // The price call's example has a body, and is priced as shown.
    expect(shown['POST /order/price']).toContain(`--data '{"labelType":"priority","weight":2}'`);
    expect(curlSuccess(shown['POST /order/price'])).toMatchObject({ type: 'success', labelType: { uid: 'priority' }, weight: 2, price: expect.any(Number) });
    const savedPackage = curlSuccess(shown['POST /packages']).package;
    expect(savedPackage).toMatchObject({ name: 'Small box', weight: 2.5, weightUnit: 'lb' });
    expect(curlSuccess(shown['GET /packages']).packages).toEqual([savedPackage]);
    expect(curlSuccess(shown['DELETE /packages/{package_id}'].replace('PACKAGE_ID', savedPackage._id)).message).toBe('Package deleted successfully');

    // A download saves the file under the name the server gives it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-curl-'));
    try {
      const { status } = runCurl(shown['GET /order/download/{order_id}'].replace('ORDER_ID', created.order.id), dir);
      expect(status).toBe(200);
      expect(fs.readdirSync(dir)).toEqual([`${created.order.tracking}.pdf`]);
      expect(
        fs
          .readFileSync(path.join(dir, `${created.order.tracking}.pdf`))
          .subarray(0, 5)
          .toString('latin1'),
      ).toBe('%PDF-');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Account Setting webhook', () => {
  it('saves a URL, shows the secret once, lists a delivered event, rotates the secret and removes the URL', async () => {
    const receiver = await startReceiver();
    try {
      const { page, apiKey } = await signedInUser(5_000);
      await page.goto(`${shop.server.url}/settings`);
      const card = page.getByTestId('webhook-card');
      await card.getByText('No deliveries yet').waitFor();
      await card.getByText('No webhook set').waitFor();

      // The server's refusal shows once, under the field: no toast repeats it (the toast comes before the field's mark).
      await card.getByLabel('Webhook URL').fill('http://example.com/hook');
      await card.getByRole('button', { name: 'Save' }).click();
      await card.getByTestId('webhook-url-error').filter({ hasText: WEBHOOK_URL_INVALID }).waitFor();
      expect(await page.locator('.Toastify__toast-container').getByRole('alert').count()).toBe(0);
      expect(await page.getByText(WEBHOOK_URL_INVALID).count()).toBe(1);

      await card.getByLabel('Webhook URL').fill(receiver.url);
      await card.getByRole('button', { name: 'Save' }).click();
      await toast(page, 'Webhook saved').waitFor();
      await card.getByTestId('webhook-current-url').filter({ hasText: receiver.url }).waitFor();
      const secret = await card.getByTestId('webhook-secret').inputValue();
      expect(secret).toMatch(/^whsec_/);
      await card.getByRole('button', { name: 'Copy signing secret' }).click();
      await toast(page, 'Secret copied').waitFor();
      expect(await clipboardText(page)).toBe(secret);

      // Shown once: not after a reload.
      await page.reload();
      await card.getByTestId('webhook-current-url').filter({ hasText: receiver.url }).waitFor();
      expect(await card.getByTestId('webhook-secret').count()).toBe(0);

      const response = await fetch(`${shop.server.url}${RESELLER_API_PREFIX}/order/create-order`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          labelType: 'priority',
          design: 'normal',
          Weight: 2,
          FromName: 'Hook Sender',
          FromStreet: '1 First St',
          FromCity: 'Austin',
          FromState: 'TX',
          FromZip: '78701',
          ToName: 'Hook Receiver',
          ToStreet: '2 Second St',
          ToCity: 'Denver',
          ToState: 'CO',
          ToZip: '80202',
        }),
      });
      expect(response.status).toBe(200);
      const { order } = await response.json();
      await expect.poll(() => receiver.received.length).toBe(1);
      const [delivery] = receiver.received;
      expect(verifySignature(delivery.headers['x-portal-signature'], delivery.body, secret)).toBe(true);
      expect(JSON.parse(delivery.body)).toMatchObject({ type: 'order.completed', data: { order: { id: order.id } } });

      await card.getByRole('button', { name: 'Refresh' }).click();
      const row = card.locator('[data-testid=webhook-delivery-row][data-status=delivered]');
      await row.waitFor();
      expect(await row.locator('td').allTextContents()).toEqual(['order.completed', 'delivered', '1', '200', expect.any(String)]);

      // Confirmed in the one confirmation modal; Cancel changes nothing.
      await card.getByRole('button', { name: 'Rotate secret' }).click();
      const confirm = page.getByTestId('confirm-modal');
      await confirm.getByText('Create a new signing secret? The current one stops signing at once.').waitFor();
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'detached' });
      await card.getByRole('button', { name: 'Rotate secret' }).click();
      await confirm.getByRole('button', { name: 'Rotate secret' }).click();
      await confirm.waitFor({ state: 'detached' });
      await toast(page, 'New webhook signing secret created').waitFor();
      await expect.poll(() => card.getByTestId('webhook-secret').inputValue()).toMatch(/^whsec_/);
      expect(await card.getByTestId('webhook-secret').inputValue()).not.toBe(secret);

      await card.getByRole('button', { name: 'Remove' }).click();
      await toast(page, 'Webhook removed').waitFor();
      await card.getByText('No webhook set').waitFor();
    } finally {
      await receiver.close();
    }
  });
});
