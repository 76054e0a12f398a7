import { describe, expect, it } from 'vitest';
import { SENDER, quickText } from '../apps/server/test/sample-addresses.ts';
import { api, createAccount, newPage, selectLabelType, signedInPage, signInThroughPage, useShop, uniqueTgId, withServerDb } from './harness.ts';

const shop = useShop();

const SIDEBAR = [
  'Dashboard',
  'Instant - USPS/FedEx (US)',
  'USPS CSV',
  'End of day',
  'FedEx - Handmade',
  'Amazon CSV Generator',
  'Deposits',
  'Addresses',
  'Packages',
  'Prices',
  'FAQs',
  'Reseller API',
];
const SIDEBAR_PATHS = [
  '/',
  '/createOrders',
  '/csv-orders',
  '/scan-forms',
  '/fedex-order',
  '/amazon-csv',
  '/deposits',
  '/address',
  '/packages',
  '/prices',
  '/faqs',
  '/api-docs',
];

describe('sign up, sign in, the shell, sign out', () => {
  it('signs up, is sent to sign-in, signs in and walks every sidebar entry', async () => {
    const page = await newPage(shop.browser);
    const tgId = uniqueTgId();
    await page.goto(`${shop.server.url}/register`);
    await page.getByLabel('Name', { exact: true }).fill('Grace Shipper');
    await page.getByLabel('Telegram Username').fill(tgId);
    await page.getByLabel('Password', { exact: true }).fill('grace password 1');
    await expect.poll(() => page.getByRole('link', { name: 'Terms of Service' }).getAttribute('href')).toBe('/tos');
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await page.getByText('Account created successfully, please login').waitFor();
    await page.waitForURL(`${shop.server.url}/login`, { timeout: 10_000 });

    await page.getByLabel('Telegram Username').fill(tgId);
    await page.getByLabel('Password', { exact: true }).fill('grace password 1');
    await page.getByRole('button', { name: 'Show Password' }).click();
    await expect.poll(() => page.getByLabel('Password', { exact: true }).getAttribute('type')).toBe('text');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByTestId('sidebar').waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    // A new account is shown its first steps: a deposit, then an order.
    const firstSteps = page.getByTestId('first-steps');
    await expect.poll(() => firstSteps.getByRole('link').allTextContents()).toEqual(['Deposit', 'Create Order']);
    expect(await firstSteps.getByRole('link', { name: 'Create Order' }).getAttribute('href')).toBe('/createOrders');
    expect(await page.context().cookies()).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'token', path: '/', secure: false })])); // Secure only over https
    const token = (await page.context().cookies()).find((c) => c.name === 'token')!.value;

    const sidebar = page.getByTestId('sidebar');
    await expect
      .poll(() => sidebar.locator('.sidebar-link').allTextContents())
      .toEqual(SIDEBAR.map((label, i) => expect.stringContaining(label)) as unknown as string[]);
    for (const [i, label] of SIDEBAR.entries()) {
      await sidebar.getByRole('link', { name: label }).click();
      await page.waitForURL((url) => url.pathname === SIDEBAR_PATHS[i]);
      await sidebar.locator('.sidebar-link.active', { hasText: label }).waitFor();
      await expect.poll(() => sidebar.locator('.sidebar-link.active').count()).toBe(1);
    }

    await page.getByTestId('user-menu').click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign In' }).waitFor();
    expect((await page.context().cookies()).find((c) => c.name === 'token')).toBeUndefined();
    // Signing out ended the session on the server: the old token is refused.
    await expect(api(shop.server.url, '/auth/access', undefined, token)).rejects.toThrow(/401/);
  });

  it('signs in on a click made before the captcha settings arrived, once they do', async () => {
    const { tgId, password } = await createAccount(shop.server.url);
    const page = await newPage(shop.browser);
    // The page's settings (which captcha to solve) answer only after the click.
    let release!: () => void;
    const clicked = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/v1/config', async (route) => {
      await clicked;
      await route.continue();
    });
    await page.goto(`${shop.server.url}/login`);
    await page.getByLabel('Telegram Username').fill(tgId);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    release();
    await page.getByTestId('sidebar').waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
  });

  it('calls its own origin when the served app is opened at localhost on a port other than 7400', async () => {
    const { tgId, password } = await createAccount(shop.server.url);
    const page = await newPage(shop.browser);
    const local = shop.server.url.replace('127.0.0.1', 'localhost');
    const apiHosts = new Set<string>();
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) apiHosts.add(url.host);
    });
    await signInThroughPage(page, local, tgId, password);
    expect([...apiHosts]).toEqual([new URL(local).host]);
  });

  it('shows the server message for wrong credentials and hides it after 3 seconds', async () => {
    const page = await newPage(shop.browser);
    await page.goto(`${shop.server.url}/somewhere-unknown`);
    await page.getByLabel('Telegram Username').fill(uniqueTgId('nobody'));
    await page.getByLabel('Password', { exact: true }).fill('wrong password');
    await page.getByRole('button', { name: 'Sign In' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toBe('Invalid Telegram username or password');
    await alert.waitFor({ state: 'detached', timeout: 4500 });
  });

  it('names the required fields of an empty Sign-Up, Sign-In and Verify, sending nothing', async () => {
    const page = await newPage(shop.browser);
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/v1/auth/') && request.method() === 'POST') sent.push(request.url());
    });
    const invalid = () => page.locator('.invalid-feedback:visible').allTextContents();

    await page.goto(`${shop.server.url}/register`);
    // The password rule is under its field before anything is sent, and checked before sending.
    await expect.poll(() => page.getByTestId('password-hint').textContent()).toBe('At least 8 characters.');
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await expect.poll(invalid).toEqual(['Name is required', 'Telegram username is required', 'Password is required']);
    await page.getByLabel('Password', { exact: true }).fill('short');
    await expect.poll(invalid).toEqual(['Name is required', 'Telegram username is required', 'Password must be at least 8 characters']);
    await page.getByLabel('Password', { exact: true }).fill('');
    await expect.poll(() => page.getByLabel('Name', { exact: true }).evaluate((el) => el.classList.contains('is-invalid'))).toBe(true);
    // A field filled in loses its message; the others keep theirs.
    await page.getByLabel('Name', { exact: true }).fill('Jane');
    await expect.poll(invalid).toEqual(['Telegram username is required', 'Password is required']);

    await page.goto(`${shop.server.url}/login`);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await expect.poll(invalid).toEqual(['Telegram username is required', 'Password is required']);

    await page.goto(`${shop.server.url}/verify`);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(invalid).toEqual(['OTP is required']);
    expect(sent).toEqual([]);
  });

  it('shows the FAQ accordion, the settings page and the terms', async () => {
    const { account, page } = await signedInPage(shop.browser, shop.server.url);
    await page.getByTestId('sidebar').getByRole('link', { name: 'FAQs' }).click();
    await page.getByText('Frequently Asked Questions').waitFor();
    const questions = page.locator('.accordion-item');
    await questions.first().waitFor();
    await expect.poll(() => questions.count()).toBeGreaterThanOrEqual(8);
    await page.getByRole('button', { name: 'Do I get a bonus on deposits?' }).click();
    await page.getByText('Deposits above $200 earn a 2% bonus').waitFor({ state: 'visible' });

    await page.getByTestId('user-menu').click();
    await page
      .getByRole('button', { name: 'Account Setting' })
      .or(page.getByRole('link', { name: 'Account Setting' }))
      .click();
    await page.getByText(`@${account.tgId}`).first().waitFor();
    const key = await page.getByTestId('api-key').inputValue();
    await page.getByRole('button', { name: 'Regenerate' }).click();
    // The one confirmation modal, not the browser's own dialog.
    const confirm = page.getByTestId('confirm-modal');
    await confirm.getByText('The current key stops working at once.', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Regenerate' }).click();
    await expect.poll(() => page.getByTestId('api-key').inputValue()).not.toBe(key);

    const visitor = await newPage(shop.browser);
    await visitor.goto(`${shop.server.url}/tos`);
    await visitor.getByRole('heading', { name: 'Terms of Service' }).waitFor();
    await visitor.getByText('The price of a label is fixed when you create it').waitFor();
  });
});

describe('password reset and email verification', () => {
  it('verifies an email from Account Setting, then resets the password with a mailed code', async () => {
    const account = await createAccount(shop.server.url);
    const email = `${account.tgId}@example.com`;
    const page = await newPage(shop.browser);
    await signInThroughPage(page, shop.server.url, account.tgId, account.password);
    await page.goto(`${shop.server.url}/settings`);
    await page.getByLabel('New email').fill(email);
    await page.getByRole('button', { name: 'Send OTP' }).click();
    await page.waitForURL(`${shop.server.url}/verify`);
    await page.getByLabel('OTP').fill(await shop.server.inbox.codeFor(email));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${shop.server.url}/`);
    await page.getByRole('alert').filter({ hasText: 'Email verified' }).waitFor();
    await page.goto(`${shop.server.url}/settings`);
    await page.getByText('Verified', { exact: true }).waitFor();
    await page.getByTestId('user-menu').click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign In' }).waitFor();

    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByText('Enter your email to get reset password OTP on your registered email.').waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send OTP' }).click();
    await page.getByRole('alert').filter({ hasText: 'an OTP has been sent' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('email'))).toBe(email);
    await page.waitForURL(`${shop.server.url}/reset`, { timeout: 5000 });

    const code = await shop.server.inbox.codeFor(email);
    await page.getByLabel('OTP', { exact: true }).fill(code);
    await page.getByLabel('New Password', { exact: true }).fill('new password 123');
    await page.getByLabel('Confirm New Password', { exact: true }).fill('different 123');
    await page.getByRole('button', { name: 'Reset Password' }).click();
    await page.getByRole('alert').filter({ hasText: 'Passwords do not match' }).waitFor();

    await page.getByLabel('Confirm New Password', { exact: true }).fill('new password 123');
    await page.getByRole('button', { name: 'Reset Password' }).click();
    await page.getByTestId('sidebar').waitFor();
    await page.getByRole('alert').filter({ hasText: 'Password changed' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('email'))).toBeNull();
    await api(shop.server.url, '/auth/login', { tgId: account.tgId, password: 'new password 123' }, undefined, true);
  });
});

describe('a signed-in user', () => {
  it('is sent from /login to the dashboard, reads the Terms at /tos, and finds the price table from the FAQs', async () => {
    const account = await createAccount(shop.server.url);
    const page = await newPage(shop.browser);
    await signInThroughPage(page, shop.server.url, account.tgId, account.password);
    await page.goto(`${shop.server.url}/login`);
    await page.waitForURL(`${shop.server.url}/`);
    await page.getByRole('heading', { name: 'Order History' }).first().waitFor();
    await page.goto(`${shop.server.url}/tos`);
    await page.getByRole('heading', { name: 'Terms of Service' }).waitFor();
    await expect.poll(() => page.getByTestId('tos').textContent()).toContain('The price of a label is fixed when you create it');
    await page.getByTestId('sidebar').waitFor();
    await page.getByRole('link', { name: 'Back to Dashboard' }).click();
    await page.waitForURL(`${shop.server.url}/`);

    // The FAQ promises a price table: it is built from each type's tiers.
    await page.getByTestId('sidebar').getByRole('link', { name: 'FAQs' }).click();
    await page.getByRole('link', { name: 'Price table' }).click();
    await page.waitForURL(`${shop.server.url}/prices`);
    const priority = page.getByTestId('price-type').filter({ has: page.getByRole('heading', { name: 'USPS Priority Mail', exact: true }) });
    await expect
      .poll(() => priority.getByTestId('price-tier').allTextContents())
      .toEqual([
        'over 0 up to 1 lb$4.50',
        'over 1 up to 5 lb$6.75',
        'over 5 up to 10 lb$9.50',
        'over 10 up to 20 lb$13.25',
        'over 20 up to 40 lb$18.50',
        'over 40 up to 70 lb$26.00',
      ]);
  });
});

describe('Reset Password opened directly', () => {
  it('asks for the email it has not been given, and resets the password with it', async () => {
    const account = await createAccount(shop.server.url);
    const email = `${account.tgId}@example.com`;
    await withServerDb(shop.server, (db) => db.updateTable('users').set({ email, email_verified: 1 }).where('tg_id', '=', account.tgId).execute());
    await api(shop.server.url, '/auth/forgotPassword', { email }, undefined, true);
    const page = await newPage(shop.browser); // a fresh browser: nothing stored by Forgot Password
    await page.goto(`${shop.server.url}/reset`);
    await page.getByRole('link', { name: 'Forgot Password' }).waitFor();
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('OTP', { exact: true }).fill(await shop.server.inbox.codeFor(email));
    await page.getByLabel('New Password', { exact: true }).fill('new password 456');
    await page.getByLabel('Confirm New Password', { exact: true }).fill('new password 456');
    await page.getByRole('button', { name: 'Reset Password' }).click();
    await page.getByTestId('sidebar').waitFor();
    await api(shop.server.url, '/auth/login', { tgId: account.tgId, password: 'new password 456' }, undefined, true);
  });
});

describe('an expired session', () => {
  it('keeps what a form held, says the session expired, and returns to the form after signing in again', async () => {
    const account = await createAccount(shop.server.url);
    const page = await newPage(shop.browser);
    await signInThroughPage(page, shop.server.url, account.tgId, account.password);
    await page.getByTestId('sidebar').getByRole('link', { name: 'Instant - USPS/FedEx (US)' }).click();
    await page.waitForURL(`${shop.server.url}/createOrders`);
    await selectLabelType(page.getByLabel('Type', { exact: true }), 'FedEx Ground');
    const fromText = quickText(SENDER);
    await page.getByLabel('From Address Data').fill(fromText);
    await page.getByLabel('Weight').fill('2');
    await page.getByRole('button', { name: 'Create Order $6.50', exact: true }).waitFor();
    // The session ends elsewhere; the next price lookup is refused.
    await api(shop.server.url, '/account/password', { currentPassword: account.password, newPassword: 'changed elsewhere 2' }, account.token);
    await page.getByLabel('Weight').fill('3');
    await page.getByTestId('session-expired').waitFor();
    expect(new URL(page.url()).pathname).toBe('/');

    await page.getByLabel('Telegram Username').fill(account.tgId);
    await page.getByLabel('Password', { exact: true }).fill('changed elsewhere 2');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL(`${shop.server.url}/createOrders`);
    await expect.poll(() => page.getByLabel('Weight').inputValue()).toBe('3');
    await expect.poll(() => page.getByLabel('From Address Data').inputValue()).toBe(fromText);
    await expect.poll(() => page.getByLabel('Type', { exact: true }).locator('option:checked').textContent()).toMatch(/^FedEx Ground/);
    // The form's own state has them too: the price follows the kept type and weight.
    // (It shows $0.00 until the price comes: waited for, not read once.)
    await page.getByRole('button', { name: /^Create Order \$(?!0\.00$)\d+\.\d\d$/ }).waitFor();
    // Only once: the next sign-in starts at the root.
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it('a 401 removes the token cookie and sends the user to /', async () => {
    const { account, page } = await signedInPage(shop.browser, shop.server.url);
    await page.getByTestId('sidebar').getByRole('link', { name: 'Addresses' }).click();
    await page.waitForURL(`${shop.server.url}/address`);
    // Changing the password elsewhere revokes this browser's token.
    await api(shop.server.url, '/account/password', { currentPassword: account.password, newPassword: 'changed elsewhere 1' }, account.token);
    await page.getByTestId('sidebar').getByRole('link', { name: 'FAQs' }).click();
    await page.waitForURL(`${shop.server.url}/`);
    await page.getByRole('button', { name: 'Sign In' }).waitFor();
    expect((await page.context().cookies()).find((c) => c.name === 'token')).toBeUndefined();
  });
});
