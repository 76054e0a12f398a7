import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { solveChallenge } from 'altcha-lib/v1';
import { fundUser, startSmtpInbox, type SmtpInbox } from '../apps/server/test/harness.ts';
import { createDatabase } from '../apps/server/src/db/database.ts';

const root = path.resolve(import.meta.dirname, '..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export type RunningServer = { url: string; dataDir: string; inbox: SmtpInbox; stop(): Promise<void> };

/**
 * The product as `npm start` runs it (the server entry point serving the built web app) on a
 * fresh data directory, mailing through a real local SMTP server. Pages are opened at 127.0.0.1,
 * so the page talks to its own origin.
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-e2e-'));
  const inbox = await startSmtpInbox();
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/server.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, SMTP_URL: inbox.url, LOG_LEVEL: 'warn', ALTCHA_MAX_NUMBER: '20000', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      if (i > 300) throw new Error('server did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    dataDir,
    inbox,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await inbox.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}

/** Fails the test on any page error, so a broken screen cannot pass quietly. */
export async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  page.on('pageerror', (error) => {
    throw error;
  });
  return page;
}

/** Solves the server's ALTCHA challenge outside the browser, for set-up calls made over HTTP. */
async function captchaToken(url: string): Promise<string> {
  const challenge = await (await fetch(`${url}/api/v1/captcha/challenge`)).json();
  const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise;
  return Buffer.from(JSON.stringify({ ...challenge, number: solution!.number })).toString('base64');
}

export async function api<T = any>(url: string, pathName: string, body?: Record<string, unknown>, token?: string, withCaptcha = false): Promise<T> {
  const payload = withCaptcha ? { ...body, captchaToken: await captchaToken(url) } : body;
  const response = await fetch(`${url}/api/v1${pathName}`, {
    method: body ? 'POST' : 'GET',
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: payload ? JSON.stringify(payload) : undefined,
  });
  const data = await response.json();
  if (!response.ok) throw new Error(`${pathName}: ${response.status} ${JSON.stringify(data)}`);
  return data as T;
}

let counter = 0;
export const uniqueTgId = (prefix = 'e2e') => `${prefix}_${Date.now() % 1_000_000_000}_${++counter}`;

/** An account made through the real calls; returns its bearer token. */
export async function createAccount(url: string, tgId = uniqueTgId(), password = 'e2e password 1') {
  await api(url, '/auth/register', { username: 'E2E Shipper', tgId, password }, undefined, true);
  const { accessToken } = await api<{ accessToken: string }>(url, '/auth/login', { tgId, password }, undefined, true);
  return { tgId, password, token: accessToken };
}

/** Signs in through the sign-in screen, whose invisible captcha solves its challenge in the page. */
export async function signInThroughPage(page: Page, url: string, tgId: string, password: string): Promise<void> {
  await page.goto(`${url}/login`);
  await page.getByLabel('Telegram Username').fill(tgId);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.getByTestId('sidebar').waitFor();
}

/** Credits the token's account with `cents` through the ledger service, on the running server's SQLite file. */
export async function fundAccount(server: RunningServer, token: string, cents: number): Promise<void> {
  const { _id: userId } = await api<{ _id: string }>(server.url, '/auth/access', undefined, token);
  const db = createDatabase({ sqliteFile: path.join(server.dataDir, 'portal.sqlite') });
  try {
    await fundUser(db, userId, cents);
  } finally {
    await db.destroy();
  }
}
