// Every form's field errors look like errors on the built app (whose Bootstrap is purged of unused
// rules): the message is red, sits right under its field, and the field keeps its width, inside an
// input group too (@, Show, $, lb).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { NAME_REQUIRED, PASSWORD_REQUIRED, TG_ID_REQUIRED } from '@portal/contract';
import { adminSession, api, createAccount, newPage, selectLabelType, signInThroughPage, useShop } from './harness.ts';

const shop = useShop({ env: { RATE_LIMIT_MAX: '1000' } });
/** One signed-in customer for the customers' forms. */
let customer: Page;
beforeAll(async () => {
  const account = await createAccount(shop.server.url);
  customer = await newPage(shop.browser);
  await signInThroughPage(customer, shop.server.url, account.tgId, account.password);
});

/** Bootstrap's --bs-form-invalid-color (and border colour), #dc3545. */
const RED = 'rgb(220, 53, 69)';
/** The message under a field: react-bootstrap puts it after the field (and the group's addons). */
const feedbackOf = (field: Locator) => field.locator('xpath=following-sibling::div[contains(@class,"invalid-feedback")][1]');

/**
 * Runs `submit` and checks each field's error: its message (text or pattern), red, shown right under
 * the field and as wide as its group, the field's border red and the field at the group's full width.
 */
async function expectStyledErrors(fields: [field: Locator, message: string | RegExp][], submit: () => Promise<unknown>) {
  await submit();
  for (const [field, message] of fields) {
    const feedback = feedbackOf(field);
    await expect.poll(() => feedback.textContent()).toMatch(message);
    await feedback.waitFor({ state: 'visible' });
    expect(await feedback.evaluate((el) => getComputedStyle(el).color)).toBe(RED);
    // Bootstrap fades a field's border in, so this one is polled.
    await expect.poll(() => field.evaluate((el) => getComputedStyle(el).borderTopColor)).toBe(RED);
    // Both measured in one frame: content above may still move (a query's answer), and two calls could see two layouts.
    const [box, error] = await field.evaluate((el) => {
      let next = el.nextElementSibling;
      while (next && !next.classList.contains('invalid-feedback')) next = next.nextElementSibling;
      return [el, next!].map((e) => {
        const r = e.getBoundingClientRect();
        return { x: r.x, y: r.y, width: r.width, height: r.height };
      });
    });
    expect(error.y).toBeGreaterThanOrEqual(box.y + box.height - 0.5);
    expect(error.y).toBeLessThan(box.y + box.height + 12); // 0.25rem of margin, not somewhere further down
    expect(error.x).toBeLessThanOrEqual(box.x + 0.5);
    expect(error.x + error.width).toBeGreaterThanOrEqual(box.x + box.width - 0.5);
    // Full width: the field and its group's addons (@, Show, $, lb) fill the row the error spans (their borders overlap by a pixel).
    const row = await field.evaluate((el) => {
      const top = el.getBoundingClientRect().top;
      const onRow = Array.from(el.parentElement!.children, (child) => child.getBoundingClientRect()).filter((r) => r.height > 0 && Math.abs(r.top - top) < 1);
      return { count: onRow.length, width: onRow.reduce((sum, r) => sum + r.width, 0) };
    });
    expect(Math.abs(row.width - error.width)).toBeLessThanOrEqual(row.count);
  }
}

/** Opens a customer's screen from the sidebar and waits for its heading. */
async function openFromSidebar(page: Page, link: string, heading: string) {
  await page.getByTestId('sidebar').getByRole('link', { name: link }).click();
  await page.getByRole('heading', { name: heading }).first().waitFor();
}

describe('field errors are styled on every form', () => {
  it('Sign In (the @ and Show groups), on a page React renders', async () => {
    const page = await newPage(shop.browser);
    await page.goto(`${shop.server.url}/login`);
    const submit = page.getByRole('button', { name: 'Sign In' });
    await submit.waitFor();
    // React 19's createRoot marks its container; a stand-in would not.
    expect(await page.locator('#root').evaluate((el) => Object.keys(el).some((key) => key.startsWith('__reactContainer$')))).toBe(true);
    await expectStyledErrors(
      [
        [page.getByLabel('Telegram Username'), TG_ID_REQUIRED],
        [page.getByLabel('Password', { exact: true }), PASSWORD_REQUIRED],
      ],
      () => submit.click(),
    );
    await page.context().close();
  });

  it('Sign Up', async () => {
    const page = await newPage(shop.browser);
    await page.goto(`${shop.server.url}/register`);
    const submit = page.getByRole('button', { name: 'Sign Up' });
    await submit.waitFor();
    await expectStyledErrors(
      [
        [page.getByLabel('Name', { exact: true }), NAME_REQUIRED],
        [page.getByLabel('Telegram Username'), TG_ID_REQUIRED],
        [page.getByLabel('Password', { exact: true }), PASSWORD_REQUIRED],
      ],
      () => submit.click(),
    );
    await page.context().close();
  });

  it('Deposits (the $ group)', async () => {
    await openFromSidebar(customer, 'Deposits', 'Add Balance');
    await expectStyledErrors([[customer.getByLabel('Amount'), /\S/]], () => customer.getByRole('button', { name: 'Add Balance' }).click());
  });

  it('Create Order: Quick Order (the in group) and Normal Order', async () => {
    await openFromSidebar(customer, 'Instant - USPS/FedEx (US)', 'Create Order');
    await selectLabelType(customer.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
    // Without a weight the button is disabled (it says 'Enter a weight'); a bad length is marked on submit.
    await customer.getByLabel('Weight').fill('1');
    await customer.getByLabel('Length').fill('-1');
    const submit = customer.getByRole('button', { name: /^Create Order/ });
    await expectStyledErrors(
      [
        [customer.getByLabel('Length'), /\S/],
        [customer.getByLabel('From Address Data'), /\S/],
      ],
      () => submit.click(),
    );
    await customer.getByRole('tab', { name: 'Normal Order' }).click();
    const to = customer.getByTestId('to-card');
    await to.getByLabel('ZIP').waitFor();
    await expectStyledErrors(
      [
        [to.getByLabel('Street', { exact: true }), /\S/],
        [to.getByLabel('ZIP'), /\S/],
      ],
      () => submit.click(),
    );
  });

  it('the Address modal', async () => {
    await openFromSidebar(customer, 'Addresses', 'Addresses');
    await customer.getByRole('button', { name: 'Add Address' }).click();
    const modal = customer.getByRole('dialog');
    await modal.getByText('Add Address').waitFor();
    await expectStyledErrors(
      [
        [modal.getByLabel('Name', { exact: true }), 'Name is required'],
        [modal.getByLabel('State'), 'State is required'],
      ],
      () => modal.getByRole('button', { name: 'Save' }).click(),
    );
    await modal.getByRole('button', { name: 'Cancel' }).click();
    await modal.waitFor({ state: 'detached' });
  });

  it('FedEx', async () => {
    await openFromSidebar(customer, 'FedEx - Handmade', 'FedEx - Handmade');
    await customer.getByRole('tab', { name: 'Create Order' }).click();
    const pay = customer.getByRole('button', { name: /^Pay \$/ });
    await pay.waitFor();
    await expectStyledErrors(
      [
        [customer.getByTestId('fedex-sender-card').getByLabel('Name', { exact: true }), 'Sender Name is required'],
        [customer.getByTestId('fedex-receiver-card').getByLabel('Country'), 'Receiver Country is required'],
        [customer.getByLabel('Item 1 Description', { exact: true }), 'Item 1 Description is required'],
      ],
      () => pay.click(),
    );
  });

  it("the console's credit or debit form (the small $ group)", async () => {
    const { page } = await adminSession(shop.browser, shop.server);
    const shopper = await createAccount(shop.server.url);
    const { _id } = await api<{ _id: string }>(shop.server.url, '/auth/access', undefined, shopper.token);
    await page.goto(`${shop.server.url}/admin/users/${_id}`);
    const form = page.getByRole('form', { name: 'Credit or debit' });
    await form.getByLabel('Amount').waitFor();
    await expectStyledErrors(
      [
        [form.getByLabel('Amount'), /\S/],
        [form.getByLabel('Reason'), 'Reason is required'],
      ],
      () => form.getByRole('button', { name: 'Apply' }).click(),
    );
    await page.context().close();
  });
});
