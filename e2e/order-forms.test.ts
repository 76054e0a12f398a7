import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { RECIPIENT, SENDER, quickText } from '../apps/server/test/sample-addresses.ts';
import { api, selectLabelType, useShop, withServerDb, fundedSession } from './harness.ts';

const shop = useShop({ env: { RATE_LIMIT_MAX: '1000' } });

const FROM_TEXT = quickText(SENDER, 'Suite 4');
const TO_TEXT = quickText(RECIPIENT);

/** A new account funded with `cents`, signed in, on the create-order screen with its label types loaded. */
async function openCreateOrder(cents: number) {
  const { page, ...account } = await fundedSession(shop.browser, shop.server, cents);
  await page.getByTestId('sidebar').getByRole('link', { name: 'Instant - USPS/FedEx (US)' }).click();
  await page.getByRole('heading', { name: 'Create Order' }).waitFor();
  await page.getByLabel('Type', { exact: true }).locator('option', { hasText: 'USPS Priority Mail' }).first().waitFor({ state: 'attached' });
  return { ...account, page };
}

const submitButton = (page: Page) => page.getByTestId('create-order');
const submitWithPrice = (page: Page, price: string) => page.getByRole('button', { name: `Create Order $${price}`, exact: true });
const toast = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });
/** The message under a field, once it is marked invalid. */
const feedbackOf = (field: Locator) => field.locator('xpath=following-sibling::div[contains(@class,"invalid-feedback")][1]');
const isInvalid = (field: Locator) => field.evaluate((el) => el.classList.contains('is-invalid'));

function countCreateCalls(page: Page) {
  const calls = { count: 0 };
  page.on('request', (request) => {
    if (request.url().includes('/api/v1/order/create')) calls.count++;
  });
  return calls;
}

const storedPhones = (token: string) =>
  withServerDb(shop.server, async (db) => {
    const { _id } = await api<{ _id: string }>(shop.server.url, '/auth/access', undefined, token);
    return db.selectFrom('orders').select(['from_phone', 'to_phone', 'to_state', 'to_email']).where('user_id', '=', _id).execute();
  });

/** The closed select's chosen text, measured in its own font, fits inside it (padding and arrow aside): nothing is cut short. */
const choiceFits = (select: Locator) =>
  select.evaluate((el: HTMLSelectElement) => {
    const style = getComputedStyle(el);
    const context = document.createElement('canvas').getContext('2d')!;
    context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    return context.measureText(el.selectedOptions[0]!.text).width <= el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  });

describe('order forms', () => {
  it('marks every bad field at once; a weight with no price is named beside Weight and on the disabled button', async () => {
    const { page } = await openCreateOrder(10_000);
    const creates = countCreateCalls(page);
    // Every type's full name and price range shows in the closed Type select ('UPS Standard (Canada) · $9.50–$36.00', not '…$3').
    const type = page.getByLabel('Type', { exact: true });
    const choices = await type.locator('option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
    expect(choices).toHaveLength(9);
    const cut: string[] = [];
    for (const value of choices) {
      await type.selectOption(value);
      if (!(await choiceFits(type))) cut.push(await type.evaluate((el: HTMLSelectElement) => el.selectedOptions[0]!.text));
    }
    expect(cut).toEqual([]);
    // On a phone a long choice is cut in the select, so the form says it in full under it.
    await selectLabelType(type, 'USPS Priority Mail V9 (15x15x15)');
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.getByTestId('chosen-type').textContent()).toBe('USPS Priority Mail V9 (15x15x15) · $7.25–$23.50');
    await page.setViewportSize({ width: 1280, height: 900 });
    await expect.poll(() => page.getByTestId('chosen-type').isVisible()).toBe(false);
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
    await page.getByLabel('Template').selectOption({ label: 'Normal' });
    await page.getByLabel('Weight').fill('2');
    await page.getByLabel('From Address Data').fill(FROM_TEXT);
    // 'Dallas, Texas' is fine (Texas is TX); the street is too long and the ZIP is not a ZIP: both are named.
    await page.getByLabel('To Address Data').fill(`${RECIPIENT.name}\n${'9'.repeat(55)}\nDallas, Texas\nABCDE`);
    await submitButton(page).click();
    const toCard = page.getByTestId('to-card');
    await expect
      .poll(() => toCard.locator('.invalid-feedback').first().textContent())
      .toBe('To Street must be at most 35 characters; To ZIP must be a US ZIP code like 12345 or 12345-6789');

    // Normal Order names each field by itself.
    await page.getByRole('tab', { name: 'Normal Order' }).click();
    await page.getByTestId('normal-order-form').waitFor();
    await submitButton(page).click();
    const to = page.getByTestId('normal-order-form').getByTestId('to-card');
    await expect.poll(() => feedbackOf(to.getByLabel('Street', { exact: true })).textContent()).toBe('To Street must be at most 35 characters');
    await expect.poll(() => feedbackOf(to.getByLabel('ZIP')).textContent()).toBe('To ZIP must be a US ZIP code like 12345 or 12345-6789');
    await expect.poll(() => to.getByLabel('State').inputValue()).toBe('TX');
    expect(await isInvalid(to.getByLabel('City'))).toBe(false);
    expect(creates.count).toBe(0);

    // Fixed addresses, 71 lb: Weight says why there is no price, and the button says so instead of $0.00, disabled.
    await to.getByLabel('Street', { exact: true }).fill(RECIPIENT.street);
    await to.getByLabel('ZIP').fill('75201');
    await page.getByLabel('Weight').fill('71');
    await page.getByTestId('weight-outside').filter({ hasText: 'USPS Priority Mail takes 0.1-70 lb' }).waitFor();
    await expect.poll(() => submitButton(page).textContent()).toBe('Too heavy for USPS Priority Mail: at most 70 lb');
    expect(await submitButton(page).isDisabled()).toBe(true);
    await page.getByLabel('Weight').fill('0');
    await page.getByTestId('weight-outside').filter({ hasText: 'USPS Priority Mail takes 0.1-70 lb' }).waitFor();
    await expect.poll(() => submitButton(page).textContent()).toBe('Enter a weight');
    expect(await submitButton(page).isDisabled()).toBe(true);
    expect(creates.count).toBe(0);
    await page.getByLabel('Weight').fill('70');
    await page.getByTestId('weight-outside').waitFor({ state: 'detached' });
    await submitWithPrice(page, '26.00').waitFor();
  });

  it("takes phones as people write them (stored as E.164), full state names and the recipient's email, and names a bad phone or email", async () => {
    const { page, token } = await openCreateOrder(10_000);
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'FedEx Ground');
    await page.getByLabel('Weight').fill('1');
    await submitWithPrice(page, '6.50').waitFor();
    await page.getByLabel('From Address Data').fill(FROM_TEXT);
    await page.getByLabel('To Address Data').fill(`${RECIPIENT.name}\n${RECIPIENT.street}\nAustin, texas\n78701`);
    const fromPhone = page.getByTestId('from-card').getByLabel('Phone');
    await fromPhone.fill('call me');
    await page.getByTestId('to-card').getByLabel('Phone').fill('+1 214 555 0100');
    const toEmail = page.getByTestId('to-card').getByLabel('Email');
    await toEmail.fill('not an email');
    await submitButton(page).click();
    await expect.poll(() => feedbackOf(fromPhone).textContent()).toBe('From Phone must be a valid phone number');
    await expect.poll(() => feedbackOf(toEmail).textContent()).toBe('To Email must be a valid email address');
    await fromPhone.fill('(214) 555-0100');
    await toEmail.fill(' Recipient@Example.com ');
    await submitButton(page).click();
    await toast(page, 'Order created successfully').waitFor();
    await page.waitForURL(`${shop.server.url}/`);
    expect(await storedPhones(token)).toEqual([{ from_phone: '+12145550100', to_phone: '+12145550100', to_state: 'TX', to_email: 'recipient@example.com' }]);
  });

  it('insures a parcel: its price shown before buying and added to the button, a value above the limit named, the order showing it', async () => {
    const { page, token } = await openCreateOrder(10_000);
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
    await page.getByLabel('Template').selectOption({ label: 'Normal' });
    await page.getByLabel('Weight').fill('2');
    await page.getByLabel('From Address Data').fill(FROM_TEXT);
    await page.getByLabel('To Address Data').fill(TO_TEXT);
    await expect.poll(() => submitButton(page).textContent()).toMatch(/^Create Order \$\d+\.\d\d$/);
    const label = Number((await submitButton(page).textContent())!.replace('Create Order $', ''));
    const insurance = page.getByLabel('Insurance');
    // Above the shop's limit (INSURANCE_MAX, $5,000): named before anything is sent.
    await insurance.fill('6000');
    await expect.poll(() => feedbackOf(insurance).textContent()).toBe('Insurance must be at most 5,000 dollars');
    // $250 at the defaults (1.5 %, at least $1.50): $3.75, said under the field and added to the button.
    await insurance.fill('250');
    await page.getByTestId('quick-insurance-price').filter({ hasText: "Insurance costs $3.75, added to the label's price" }).waitFor();
    await submitWithPrice(page, (label + 3.75).toFixed(2)).waitFor();
    await submitButton(page).click();
    await toast(page, 'Order created successfully').waitFor();
    await page.waitForURL(`${shop.server.url}/`);
    const stored = await withServerDb(shop.server, async (db) => {
      const { _id } = await api<{ _id: string }>(shop.server.url, '/auth/access', undefined, token);
      return db.selectFrom('orders').select(['insured_cents', 'insurance_cents', 'price_cents']).where('user_id', '=', _id).execute();
    });
    expect(stored).toEqual([{ insured_cents: 25_000, insurance_cents: 375, price_cents: Math.round(label * 100) + 375 }]);
    await page.getByTestId('order-row').first().getByRole('button', { name: 'Details' }).click();
    await page.getByTestId('order-insurance').filter({ hasText: '$250.00 declared, $3.75 of the price' }).waitFor();
  });

  it('says under a field what a name in another script prints as, before paying, and the order keeps what was typed', async () => {
    const { page, token } = await openCreateOrder(10_000);
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
    await page.getByLabel('Template').selectOption({ label: 'Normal' });
    await page.getByLabel('Weight').fill('2');
    await page.getByLabel('From Address Data').fill(FROM_TEXT);
    // Quick Order names the lines of the text that print otherwise, as Normal Order does under each field.
    const quickTo = page.getByTestId('quick-order-form').getByTestId('to-card');
    await page.getByLabel('To Address Data').fill(quickText({ ...RECIPIENT, name: '王小明' }));
    await expect.poll(() => quickTo.getByTestId('prints-as').textContent()).toBe('Prints as: Wang Xiao Ming');
    await page.getByLabel('To Address Data').fill(TO_TEXT);
    await expect.poll(() => quickTo.getByTestId('prints-as').count()).toBe(0);
    await page.getByRole('tab', { name: 'Normal Order' }).click();
    const to = page.getByTestId('normal-order-form').getByTestId('to-card');
    const note = (label: string) => to.getByLabel(label, { exact: true }).locator('xpath=..').getByTestId('prints-as');
    await to.getByLabel('Name', { exact: true }).fill('李小龙 🎉');
    await expect.poll(() => note('Name').textContent()).toBe('Prints as: Li Xiao Long');
    // Windows-1252 prints as typed: no note.
    await to.getByLabel('Company', { exact: true }).fill('O’Brien Shop – €5');
    await to.getByLabel('City').fill('Zürich');
    await expect.poll(() => to.getByTestId('prints-as').count()).toBe(1);
    await to.getByLabel('Name', { exact: true }).fill('Zoë Núñez');
    await expect.poll(() => to.getByTestId('prints-as').count()).toBe(0);
    await to.getByLabel('Name', { exact: true }).fill('Nguyễn Văn Đức');
    await expect.poll(() => note('Name').textContent()).toBe('Prints as: Nguyen Van Duc');
    await page.getByTestId('normal-order-form').getByTestId('create-order').click();
    await toast(page, 'Order created successfully').waitFor();
    const { orders } = await api<{ orders: { _id: string }[] }>(shop.server.url, '/order/read', undefined, token);
    const { order } = await api<{ order: { to: { name: string; company: string }; printedAs: Record<string, string> } }>(
      shop.server.url,
      `/order/details/${orders[0]._id}`,
      undefined,
      token,
    );
    expect(order.to).toMatchObject({ name: 'Nguyễn Văn Đức', company: 'O’Brien Shop – €5' });
    expect(order.printedAs).toEqual({ ToName: 'Nguyen Van Duc' });
    // Order Details says it too, under the side it belongs to.
    await page.getByTestId('order-row').first().getByRole('button', { name: 'Details' }).click();
    const details = page.getByTestId('order-details');
    await expect.poll(() => details.getByTestId('order-to').getByTestId('prints-as').textContent()).toBe('Prints as: Nguyen Van Duc');
    expect(await details.getByTestId('order-from').getByTestId('prints-as').count()).toBe(0);
  });

  it("an expired session keeps Normal Order's own fields, and after signing in returns to that tab with them in the form", async () => {
    const { page, token, tgId, password } = await openCreateOrder(10_000);
    const { _id: userId } = await api<{ _id: string }>(shop.server.url, '/auth/access', undefined, token);
    await page.getByRole('tab', { name: 'Normal Order' }).click();
    await page.waitForURL(`${shop.server.url}/createOrders?tab=normal`);
    const form = page.getByTestId('normal-order-form');
    await selectLabelType(form.getByLabel('Type', { exact: true }), 'FedEx Ground');
    await form.getByLabel('Weight').fill('2');
    await submitWithPrice(page, '6.50').waitFor();
    const sides = {
      from: {
        Name: 'Nora Normal',
        Company: 'Normal Co',
        Street: '1 First Street',
        'Street 2': 'Unit 5',
        City: 'Austin',
        State: 'TX',
        ZIP: '78701',
        Phone: '(214) 555-0100',
      },
      to: { Name: 'Otto Other', Company: '', Street: '9 Ninth Avenue', 'Street 2': '', City: 'Denver', State: 'CO', ZIP: '80202', Phone: '+1 303 555 0199' },
    };
    const fieldOf = (side: 'from' | 'to', label: string) => form.getByTestId(`${side}-card`).getByLabel(label, { exact: true });
    for (const side of ['from', 'to'] as const)
      for (const [label, value] of Object.entries(sides[side]))
        if (label === 'State') await fieldOf(side, label).selectOption(value);
        else await fieldOf(side, label).fill(value);

    // The session ends elsewhere; the next price lookup is refused.
    await api(shop.server.url, '/account/password', { currentPassword: password, newPassword: 'changed elsewhere 3' }, token);
    await form.getByLabel('Weight').fill('3');
    await page.getByTestId('session-expired').waitFor();
    await page.getByLabel('Telegram Username').fill(tgId);
    await page.getByLabel('Password', { exact: true }).fill('changed elsewhere 3');
    await page.getByRole('button', { name: 'Sign In' }).click();

    // Back on Normal Order (not Quick Order), every field of its own filled again.
    await page.waitForURL(`${shop.server.url}/createOrders?tab=normal`);
    expect(await page.getByRole('tab', { name: 'Normal Order' }).getAttribute('aria-selected')).toBe('true');
    await expect.poll(() => form.getByLabel('Type', { exact: true }).locator('option:checked').textContent()).toMatch(/^FedEx Ground/);
    await expect.poll(() => form.getByLabel('Weight').inputValue()).toBe('3');
    for (const side of ['from', 'to'] as const)
      for (const [label, value] of Object.entries(sides[side]))
        await expect.poll(() => fieldOf(side, label).inputValue(), { message: `${side} ${label}` }).toBe(value);
    // The form's own state has them too: the order made from it is the one typed.
    await page.getByRole('button', { name: /^Create Order \$\d+\.\d\d$/ }).click();
    await toast(page, 'Order created successfully').waitFor();
    const [order] = await withServerDb(shop.server, (db) =>
      db
        .selectFrom('orders')
        .select(['from_name', 'from_company', 'from_street2', 'from_state', 'from_phone', 'to_name', 'to_city', 'to_zip', 'to_phone', 'weight'])
        .where('user_id', '=', userId)
        .execute(),
    );
    expect(order).toMatchObject({
      from_name: 'Nora Normal',
      from_company: 'Normal Co',
      from_street2: 'Unit 5',
      from_state: 'TX',
      from_phone: '+12145550100',
      to_name: 'Otto Other',
      to_city: 'Denver',
      to_zip: '80202',
      to_phone: '+13035550199',
    });
    expect(Number(order!.weight)).toBe(3);
  });

  it('asks before leaving Normal Order or the FedEx form with input not sent: Stay keeps it, Leave goes', async () => {
    const { page } = await openCreateOrder(0);
    const sidebarLink = (name: string) => page.getByTestId('sidebar').getByRole('link', { name, exact: true });
    const prompt = page.getByTestId('confirm-modal').filter({ hasText: 'Leave this page?' });
    // Nothing typed: no question.
    await page.getByRole('tab', { name: 'Normal Order' }).click();
    await sidebarLink('FAQs').click();
    await page.waitForURL(`${shop.server.url}/faqs`);
    await page.goBack();
    await page.getByRole('tab', { name: 'Normal Order' }).click();
    const from = page.getByTestId('from-card');
    await from.getByLabel('Name', { exact: true }).fill('Nora Unsaved');
    await sidebarLink('FAQs').click();
    await prompt.waitFor();
    await prompt.getByRole('button', { name: 'Stay' }).click();
    await prompt.waitFor({ state: 'detached' });
    expect(new URL(page.url()).pathname).toBe('/createOrders');
    await expect.poll(() => from.getByLabel('Name', { exact: true }).inputValue()).toBe('Nora Unsaved');

    await sidebarLink('FedEx - Handmade').click();
    await prompt.getByRole('button', { name: 'Leave' }).click();
    await page.waitForURL(`${shop.server.url}/fedex-order`);
    await page.getByRole('tab', { name: 'Create Order' }).click();
    await page.getByTestId('fedex-sender-card').getByLabel('Name', { exact: true }).fill('Fay Unsaved');
    await sidebarLink('Dashboard').click();
    await prompt.getByRole('button', { name: 'Leave' }).click();
    await page.waitForURL(`${shop.server.url}/`);
    await page.context().close();
  });

  it('keeps type, template, weight and both addresses when switching between Quick Order and Normal Order', async () => {
    const { page } = await openCreateOrder(10_000);
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
    await page.getByLabel('Template').selectOption({ label: 'EVS' });
    await page.getByLabel('Weight').fill('2');
    await page.getByLabel('From Address Data').fill(FROM_TEXT);
    await page.getByLabel('To Address Data').fill(`${RECIPIENT.name}\n${RECIPIENT.street}\nToronto, ontario\nM5V 2T6`);

    await page.getByRole('tab', { name: 'Normal Order' }).click();
    const normal = page.getByTestId('normal-order-form');
    await normal.waitFor();
    await expect.poll(() => normal.getByLabel('Type', { exact: true }).locator('option:checked').textContent()).toMatch(/^USPS Priority Mail · /);
    await expect.poll(() => normal.getByLabel('Template').inputValue()).toBe('evs');
    await expect.poll(() => normal.getByLabel('Weight').inputValue()).toBe('2');
    const from = normal.getByTestId('from-card');
    const to = normal.getByTestId('to-card');
    expect(await from.getByLabel('Name', { exact: true }).inputValue()).toBe(SENDER.name);
    expect(await from.getByLabel('Street', { exact: true }).inputValue()).toBe(SENDER.street);
    expect(await from.getByLabel('Street 2').inputValue()).toBe('Suite 4');
    expect(await from.getByLabel('City').inputValue()).toBe(SENDER.city);
    expect(await from.getByLabel('State').inputValue()).toBe(SENDER.state);
    expect(await from.getByLabel('ZIP').inputValue()).toBe(SENDER.zip);
    // Ontario is read as ON, which a US type does not take: shown as itself, with why, never blank.
    await expect.poll(() => to.getByLabel('State').locator('option:checked').textContent()).toBe('ON');
    await expect.poll(() => feedbackOf(to.getByLabel('State')).textContent()).toBe('To State must be a US state, DC or PR');
    expect(await isInvalid(to.getByLabel('State'))).toBe(true);

    // Changes made here go back as the four lines.
    await to.getByLabel('City').fill('Austin');
    await to.getByLabel('State').selectOption({ label: 'Texas' });
    await to.getByLabel('ZIP').fill('78701');
    await page.getByLabel('Weight').fill('3');
    await page.getByRole('tab', { name: 'Quick Order' }).click();
    await page.getByTestId('quick-order-form').waitFor();
    await expect.poll(() => page.getByLabel('To Address Data').inputValue()).toBe(quickText({ ...RECIPIENT, city: 'Austin', state: 'TX', zip: '78701' }));
    expect(await page.getByLabel('From Address Data').inputValue()).toBe(FROM_TEXT);
    expect(await page.getByLabel('Weight').inputValue()).toBe('3');
    expect(await page.getByLabel('Template').inputValue()).toBe('evs');
    await submitWithPrice(page, '6.75').waitFor();
  });

  it('offers UPS types no US saved address and says why; a US state left on a UPS form is an error, not a blank', async () => {
    const { page, token } = await openCreateOrder(10_000);
    await api(
      shop.server.url,
      '/address/create',
      { name: 'Home', street: '1 Main St', street2: '', city: 'Austin', state: 'TX', zip: '78701', company: '' },
      token,
    );
    await page.reload();
    const saved = page.getByTestId('from-card').getByLabel('Saved Address');
    await saved.locator('option', { hasText: 'Home - 1 Main St, Austin, TX' }).waitFor({ state: 'attached' });

    await selectLabelType(page.getByLabel('Type', { exact: true }), 'UPS Standard (Canada)');
    await expect.poll(() => saved.locator('option').allTextContents()).toEqual(['No saved addresses in Canada']);
    expect(await saved.isDisabled()).toBe(true);
    await page.getByTestId('quick-from-saved-why-empty').filter({ hasText: 'Saved addresses are in the United States' }).waitFor();

    // Normal Order: a US address filled under a US type, then a UPS type: the state shows as itself with the reason.
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
    await page.getByRole('tab', { name: 'Normal Order' }).click();
    const from = page.getByTestId('normal-order-form').getByTestId('from-card');
    await from.getByLabel('Saved Address').selectOption({ label: 'Home - 1 Main St, Austin, TX' });
    await expect.poll(() => from.getByLabel('State').inputValue()).toBe('TX');
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'UPS Standard (Canada)');
    await expect.poll(() => from.getByLabel('Province').locator('option:checked').textContent()).toBe('TX');
    await expect.poll(() => feedbackOf(from.getByLabel('Province')).textContent()).toBe('From State must be a Canadian province or territory');
    await expect.poll(() => from.getByLabel('Saved Address').locator('option').allTextContents()).toEqual(['No saved addresses in Canada']);
    await from.getByLabel('Province').selectOption({ label: 'Ontario' });
    await expect.poll(() => isInvalid(from.getByLabel('Province'))).toBe(false);
  });

  it('says how much balance is missing, links to Deposits, and shows the balance beside Create', async () => {
    const { page, token } = await openCreateOrder(500);
    await page.getByTestId('order-balance').filter({ hasText: 'Balance: $5.00' }).waitFor();
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'USPS Priority Mail');
    await page.getByLabel('Template').selectOption({ label: 'EVS' });
    await page.getByLabel('Weight').fill('2');
    await submitWithPrice(page, '6.75').waitFor();
    await page.getByLabel('From Address Data').fill(FROM_TEXT);
    await page.getByLabel('To Address Data').fill(TO_TEXT);
    await submitButton(page).click();
    const short = page.getByTestId('short-balance');
    await expect.poll(() => short.textContent()).toBe('Insufficient balance: $1.75 more is needed. Add balance in Deposits');
    await expect.poll(() => submitButton(page).isEnabled()).toBe(true);
    await short.getByRole('link', { name: 'Add balance in Deposits' }).click();
    await page.waitForURL(`${shop.server.url}/deposits`);
    expect((await api<{ orders: unknown[] }>(shop.server.url, '/order/read', undefined, token)).orders).toEqual([]);
  });
});
