import { execFile } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { signedInPage, useShop } from './harness.ts';

const ip = (...args: string[]) => promisify(execFile)('ip', args);

/**
 * An IPv4 address of this machine that is not loopback: Chromium does not upgrade requests to
 * 127.0.0.0/8 or localhost, so only such an address shows what a customer on the network sees.
 * The machine's own when it has one (the server only listens there; nothing leaves the machine),
 * else one added to the loopback interface for this file and removed after it: Chromium goes by
 * the address, not the interface.
 */
async function outsideAddress(): Promise<{ address: string; remove(): Promise<void> } | { skip: string }> {
  const own = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal);
  if (own) return { address: own.address, remove: async () => {} };
  if (process.getuid?.() !== 0) return { skip: 'the machine has no non-loopback IPv4 address, and adding one needs root' };
  const address = `10.213.${Math.floor(process.pid / 250) % 250}.${(process.pid % 250) + 1}`;
  await ip('addr', 'add', `${address}/32`, 'dev', 'lo');
  return { address, remove: async () => void (await ip('addr', 'del', `${address}/32`, 'dev', 'lo')) };
}

const outside = await outsideAddress();
// Registered before the shop's, so it runs after the shop has stopped listening there.
afterAll(async () => {
  if ('remove' in outside) await outside.remove();
});
// Listening there, the shop must know which hosts its links may use (or it refuses to start, config.ts): its own address, any port.
const shop = 'address' in outside ? useShop({ env: { HOST: outside.address, ALLOWED_HOSTS: outside.address } }) : undefined;

describe('a shop opened over plain http at a network address', () => {
  it('loads (no HSTS, no upgrade-insecure-requests sending its scripts to an https nobody answers), signs in (the captcha solved without a secure context), and Add Balance stays at that address', async (ctx) => {
    if ('skip' in outside) return ctx.skip(outside.skip);
    const { server, browser } = shop!;
    expect(server.url).toMatch(/^http:\/\/(?!127\.)/);
    const { page } = await signedInPage(browser, server.url);
    expect(new URL(page.url()).origin).toBe(server.url);
    const headers = (await fetch(`${server.url}/login`)).headers;
    expect(headers.get('strict-transport-security')).toBeNull();
    expect(headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');

    // Add Balance sends the customer to the payment page at the address they opened, not to http://localhost.
    await page.getByTestId('sidebar').getByRole('link', { name: 'Deposits' }).click();
    await page.getByLabel('Amount').fill('20');
    await page.getByRole('button', { name: 'Add Balance' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/pay/'));
    expect(new URL(page.url()).origin).toBe(server.url);
  });
});
