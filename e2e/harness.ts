import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';
import { solveChallenge } from 'altcha-lib/v1';
import { afterAll, beforeAll } from 'vitest';
import { fundUser, startSmtpInbox, type SmtpInbox } from '../apps/server/test/harness.ts';
import { uniqueId } from '../apps/server/test/basics.ts';
import { fundedCustomer, newCustomer } from '../apps/server/test/customers.ts';
import { startFakeEasyPost, type FakeEasyPost } from '../apps/server/test/fake-easypost.ts';
import { startFakeTelegram, type FakeTelegram } from '../apps/server/test/fake-telegram.ts';
import { easyPostEnv } from '../apps/server/test/easypost-fixtures.ts';
import { createDatabase, type Db } from '../apps/server/src/db/database.ts';

const root = path.resolve(import.meta.dirname, '..');

async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export type RunningServer = { url: string; dataDir: string; inbox: SmtpInbox; stop(): Promise<void> };

// Whatever a failed (or stopped) test file leaves running is killed, and its data directories
// removed, when its worker process exits.
const children = new Set<ChildProcess>();
const dataDirs = new Set<string>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  // A server that does not stop within its own 10 s shutdown limit is killed.
  const timer = setTimeout(() => child.kill('SIGKILL'), 12_000);
  await exited;
  clearTimeout(timer);
}

/**
 * The product as `npm start` runs it (the server entry point serving the built web app) on a
 * fresh data directory, mailing through a real local SMTP server. Pages are opened at 127.0.0.1
 * (or the IPv4 address env.HOST names), so the page talks to its own origin. If it does not start,
 * nothing it made is left behind.
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-e2e-'));
  dataDirs.add(dataDir);
  let inbox: SmtpInbox | undefined;
  let child: ChildProcess | undefined;
  const stop = async () => {
    if (child) await stopChild(child).finally(() => children.delete(child!));
    await inbox?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    dataDirs.delete(dataDir);
  };
  try {
    inbox = await startSmtpInbox();
    const host = env.HOST ?? '127.0.0.1';
    const port = await freePort(host);
    child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/server.ts'], {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: host,
        DATA_DIR: dataDir,
        SMTP_URL: inbox.url,
        LOG_LEVEL: 'warn',
        ALTCHA_MAX_NUMBER: '20000',
        DATABASE_URL: '',
        REDIS_URL: '',
        LABEL_SANDBOX_TRACKING_STEP_MS: '0',
        // Days (ship dates, the overview's) are UTC days whatever the machine's zone, as the tests count them.
        SHOP_TIME_ZONE: 'UTC',
        ...env,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.add(child);
    const url = `http://${host}:${port}`;
    // A loop of its own, not vi.waitFor: `npm run screenshots` starts the shop here too, outside vitest.
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error('server did not start within 60 s');
      if (
        await fetch(`${url}/healthz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return { url, dataDir, inbox, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    // Within useShop's afterAll, which waits for a start still under way.
    timeout: 60_000,
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export type Shop = {
  server: RunningServer;
  browser: Browser;
  /** Only with `easyPost: true`. */
  fake: FakeEasyPost;
  /** Only with `telegram: true`. */
  telegram: FakeTelegram;
};

/**
 * The one set-up of a browser test file (or describe block): registers beforeAll, which starts a shop on `env`
 * and Chromium side by side (after a fake EasyPost the shop buys its labels at, and a fake Telegram Bot API it
 * polls, when asked), and afterAll, which closes whatever of them started, even when the start failed half-way.
 * The fields of the returned object are filled in beforeAll.
 */
export function useShop(options: { env?: Record<string, string>; easyPost?: boolean; telegram?: boolean } = {}): Shop {
  const shop = {} as Partial<Shop>;
  let starting: Promise<void> | undefined;
  beforeAll(() => {
    starting = (async () => {
      let env = options.env ?? {};
      if (options.easyPost) {
        shop.fake = await startFakeEasyPost();
        env = { ...easyPostEnv(shop.fake), ...env };
      }
      if (options.telegram) {
        shop.telegram = await startFakeTelegram();
        const { token, username, apiRoot } = shop.telegram;
        env = { TELEGRAM_BOT_TOKEN: token, TELEGRAM_BOT_USERNAME: username, TELEGRAM_API_ROOT: apiRoot, ...env };
      }
      const started = await Promise.allSettled([
        startServer(env).then((server) => void (shop.server = server)),
        launchBrowser().then((browser) => void (shop.browser = browser)),
      ]);
      for (const result of started) if (result.status === 'rejected') throw result.reason;
    })();
    return starting;
  });
  afterAll(async () => {
    // A start cut off by the hook's timeout still runs on: what it starts is closed once it has.
    await starting?.catch(() => {});
    // The browser first (its pages call the server), then the server, then the fakes it calls; each even if another fails.
    const failures: unknown[] = [];
    for (const close of [() => shop.browser?.close(), () => shop.server?.stop(), () => shop.fake?.close(), () => shop.telegram?.close()]) {
      try {
        await close();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  });
  return shop as Shop;
}

/** Fails the test on any page error, so a broken screen cannot pass quietly. `options` adds to the context's (permissions, for one). */
export async function newPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true, ...options });
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

export const uniqueTgId = (prefix = 'e2e') => uniqueId(prefix);

/** What the browser tests' accounts are called, and their password. */
const E2E_ACCOUNT = { username: 'E2E Shipper', password: 'e2e password 1' };

/** An account made through the real calls; returns its bearer token. */
export const createAccount = (url: string, tgId = uniqueTgId()) => newCustomer(url, { ...E2E_ACCOUNT, tgId });

/** A new account funded with `cents` (not at all for 0) through the ledger, on the running server's SQLite file. */
export const fundedAccount = (server: RunningServer, cents: number, tgId = uniqueTgId()) =>
  withServerDb(server, (db) => fundedCustomer(server.url, cents, db, { ...E2E_ACCOUNT, tgId }));

/** Signs in through the sign-in screen, whose invisible captcha solves its challenge in the page. */
export async function signInThroughPage(page: Page, url: string, tgId: string, password: string): Promise<void> {
  await page.goto(`${url}/login`);
  await page.getByLabel('Telegram Username').fill(tgId);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.getByTestId('sidebar').waitFor();
}

/** A new account, signed in on a page of its own. */
export async function signedInPage(browser: Browser, url: string) {
  const account = await createAccount(url);
  const page = await newPage(browser);
  await signInThroughPage(page, url, account.tgId, account.password);
  return { account, page };
}

/** A new account funded with `cents` (not at all for 0), signed in through the sign-in screen in a page of its own. */
export async function fundedSession(browser: Browser, server: RunningServer, cents: number, options: BrowserContextOptions = {}) {
  const account = await fundedAccount(server, cents);
  const page = await newPage(browser, options);
  await signInThroughPage(page, server.url, account.tgId, account.password);
  return { ...account, page };
}

/** The first admin, made as the README says: the command line on the shop's data directory. */
export async function grantAdmin(shop: RunningServer, tgId: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'apps/server/src/admin-cli.ts', 'grant', tgId], {
    cwd: root,
    env: { ...process.env, DATA_DIR: shop.dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' },
  });
  return stdout;
}

/** An account made admin by the CLI, signed in through the sign-in screen in a page of its own. */
export async function adminSession(browser: Browser, shop: RunningServer) {
  const account = await createAccount(shop.url, uniqueTgId('admin'));
  const said = await grantAdmin(shop, account.tgId);
  if (!said.includes(`@${account.tgId} (E2E Shipper) is now an admin`)) throw new Error(`the CLI did not make @${account.tgId} an admin: ${said}`);
  const page = await newPage(browser);
  await signInThroughPage(page, shop.url, account.tgId, account.password);
  return { ...account, page };
}

/** Credits the token's account with `cents` through the ledger service, on the running server's SQLite file. */
export async function fundAccount(server: RunningServer, token: string, cents: number): Promise<void> {
  const { _id: userId } = await api<{ _id: string }>(server.url, '/auth/access', undefined, token);
  await withServerDb(server, (db) => fundUser(db, userId, cents));
}

/** Runs `work` on the running server's SQLite file, for set-up a test cannot do through the API. */
export async function withServerDb<T>(server: RunningServer, work: (db: Db) => Promise<T>): Promise<T> {
  const db = createDatabase({ sqliteFile: path.join(server.dataDir, 'portal.sqlite') });
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

/** Chooses a label type by its name in a Type select, whose options also show each type's price range ('FedEx Ground · $6.50–$20.00'). */
export async function selectLabelType(select: Locator, name: string): Promise<void> {
  await select.locator('option', { hasText: name }).first().waitFor({ state: 'attached' });
  const names = await select.locator('option').evaluateAll((options) => options.map((o) => [(o as HTMLOptionElement).value, o.textContent ?? '']));
  const found = names.find(([, text]) => text === name || text.startsWith(`${name} · `));
  if (!found) throw new Error(`no label type ${name} among ${names.map(([, text]) => text).join(', ')}`);
  await select.selectOption(found[0]);
}
