// Page weight and Lighthouse scores of the built web app (apps/web/dist, from `npm run build`),
// served by the real server entry point on the embedded defaults in a temporary data directory,
// with a customer who has a few orders. Prints, never fails:
//  - for the sign-in page, the dashboard and Create Order: the JavaScript the browser downloads for a first load
//    (raw and gzipped; target under 150 KB gzipped for the first two) and everything it transfers;
//  - Lighthouse (default mobile settings, simulated throttling) on the sign-in page, the dashboard
//    and the create-order page: performance, accessibility and best-practices scores with FCP, LCP
//    and TBT, the median of BENCH_LIGHTHOUSE_RUNS (3) runs; 0 skips Lighthouse (targets 95 and 100).
// It names the renderer the build carries (react-dom and its version) first.
// Chromium: CHROMIUM_PATH or /usr/bin/chromium. Run alone with `npx tsx bench/page-run.ts`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { launch, type LaunchedChrome } from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createDatabase } from '../src/db/database.ts';
import { changeBalance } from '../src/modules/billing/ledger.ts';
import { call, captcha, freePort } from '../test/processes.ts';
import { COMPANY_RECIPIENT, RECIPIENT, orderParties } from '../test/sample-addresses.ts';
import { medianBy } from './median.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const dist = path.join(root, 'apps/web/dist');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RUNS = Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 3);
const FIRST_LOAD_TARGET_KB = 150;
const SCORE_TARGETS = { performance: 95, accessibility: 100 } as const;

/** kB as Vite prints them (1000 bytes). */
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 12_000);
  await exited;
  clearTimeout(timer);
}

/** `npm start` on a fresh data directory: the server entry point serving the built app. */
async function startServer(dataDir: string, track: (child: ChildProcess) => void): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/server.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'error',
      DATABASE_URL: '',
      REDIS_URL: '',
      SMTP_URL: '',
      S3_BUCKET: '',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  track(child);
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 100))) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('server did not start within 60 s');
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return url;
  }
}

/** A customer with a balance and three orders, made through the real calls; returns the bearer token. */
async function seedCustomer(url: string, dataDir: string): Promise<string> {
  const account = { tgId: 'bench_page', password: 'bench password 1' };
  await call(url, '/auth/register', { username: 'Bench Shipper', ...account, captchaToken: await captcha(url) });
  const { accessToken } = await call(url, '/auth/login', { ...account, captchaToken: await captcha(url) });
  const { _id: userId } = await call(url, '/auth/access', undefined, accessToken);
  const db = createDatabase({ sqliteFile: path.join(dataDir, 'portal.sqlite') });
  try {
    await db.transaction().execute((trx) => changeBalance(trx, { userId, amountCents: 100_000, kind: 'adjustment', reference: null, note: 'bench funding' }));
  } finally {
    await db.destroy();
  }
  const { labelTypes } = (await call(url, '/labeltype/read', undefined, accessToken)) as { labelTypes: { _id: string; uid: string }[] };
  const priority = labelTypes.find((t) => t.uid === 'priority')!;
  for (const [i, receiver] of [RECIPIENT.name, COMPANY_RECIPIENT.name, 'Liam Chen'].entries()) {
    await call(
      url,
      '/order/create',
      {
        labelType: priority._id,
        design: 'normal',
        Weight: i + 1,
        ...orderParties(),
        ToName: receiver,
      },
      accessToken,
    );
  }
  return accessToken;
}

type FirstLoad = { jsFiles: number; jsRaw: number; jsGzip: number; transfer: number };

/** What a browser with an empty cache downloads to show the page at `url` until the network is quiet. */
async function measureFirstLoad(browser: Browser, url: string, token: string | null, ready: (page: Page) => Promise<void>): Promise<FirstLoad> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  try {
    if (token) await context.addCookies([{ name: 'token', value: token, url }]);
    const page = await context.newPage();
    const responses: import('playwright-core').Response[] = [];
    page.on('response', (response) => responses.push(response));
    await page.goto(url);
    await ready(page);
    await page.waitForLoadState('networkidle');
    const load: FirstLoad = { jsFiles: 0, jsRaw: 0, jsGzip: 0, transfer: 0 };
    for (const response of responses) {
      const sizes = await response.request().sizes();
      load.transfer += sizes.responseBodySize + sizes.responseHeadersSize;
      if (response.request().resourceType() !== 'script') continue;
      const file = fs.readFileSync(path.join(dist, new URL(response.url()).pathname));
      load.jsFiles += 1;
      load.jsRaw += file.length;
      load.jsGzip += zlib.gzipSync(file, { level: 9 }).length;
    }
    return load;
  } finally {
    await context.close();
  }
}

type Audit = {
  performance: number;
  accessibility: number;
  bestPractices: number;
  fcp: number;
  lcp: number;
  tbt: number;
  problems: string[];
  benchmarkIndex: number;
  slowCpu: boolean;
};

/** One Lighthouse run (default mobile config) in a fresh Chromium profile; a signed-in page gets the token cookie first. */
async function audit(url: string, token: string | null, profileDir: string): Promise<Audit> {
  let chrome: LaunchedChrome | undefined;
  try {
    const tmp = path.join(profileDir, 'tmp');
    fs.mkdirSync(tmp, { recursive: true });
    // Chromium's own scratch directories go in the profile, which the bench removes (it is killed, so it cannot tidy /tmp).
    chrome = await launch({
      chromePath: CHROMIUM,
      chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'],
      userDataDir: profileDir,
      logLevel: 'silent',
      envVars: { ...process.env, TMPDIR: tmp },
    });
    if (token) {
      const browser = await chromium.connectOverCDP(`http://127.0.0.1:${chrome.port}`);
      await browser.contexts()[0].addCookies([{ name: 'token', value: token, url }]);
      await browser.close();
    }
    // The profile is new (an empty cache); keeping storage keeps the cookie.
    const result = await lighthouse(url, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility', 'best-practices'],
      disableStorageReset: Boolean(token),
    });
    if (!result) throw new Error('Lighthouse gave no result');
    if (result.lhr.runtimeError) throw new Error(`Lighthouse: ${result.lhr.runtimeError.code}`);
    const { categories, audits } = result.lhr;
    const score = (id: string) => Math.round((categories[id]?.score ?? 0) * 100);
    const problems = [...(categories.accessibility?.auditRefs ?? []), ...(categories['best-practices']?.auditRefs ?? [])]
      .filter((ref) => ref.weight > 0 && audits[ref.id].score !== null && audits[ref.id].score! < 1)
      .map((ref) => ref.id);
    return {
      performance: score('performance'),
      accessibility: score('accessibility'),
      bestPractices: score('best-practices'),
      fcp: audits['first-contentful-paint'].numericValue ?? 0,
      lcp: audits['largest-contentful-paint'].numericValue ?? 0,
      tbt: audits['total-blocking-time'].numericValue ?? 0,
      problems,
      // Lighthouse's measure of this machine's speed; it warns when it is below what its 4x CPU slowdown assumes.
      benchmarkIndex: result.lhr.environment.benchmarkIndex,
      slowCpu: result.lhr.runWarnings.some((warning) => warning.includes('slower CPU')),
    };
  } finally {
    chrome?.kill();
  }
}

/** The renderer the built scripts carry: react-dom names itself and its version to React's dev tools hook. */
function builtRenderer(): string {
  const assets = path.join(dist, 'assets');
  for (const file of fs.readdirSync(assets).filter((name) => name.endsWith('.js'))) {
    const found = /version:["'`]([\d.]+)["'`],rendererPackageName:["'`]react-dom["'`]/.exec(fs.readFileSync(path.join(assets, file), 'utf8'));
    if (found) return `react-dom ${found[1]} (${file})`;
  }
  return 'no react-dom found: a stand-in renders the app';
}

const median = (values: number[]) => medianBy(values, (v) => v);

/** The run whose performance score is the median of the runs (its timings go with it). */
function medianRun(runs: Audit[]): Audit {
  return {
    ...medianBy(runs, (r) => r.performance),
    accessibility: median(runs.map((r) => r.accessibility)),
    bestPractices: median(runs.map((r) => r.bestPractices)),
  };
}

export async function runPageBench(): Promise<void> {
  console.log('\nPage weight and Lighthouse (built web app, real server on the embedded defaults)');
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    console.log('  apps/web/dist is missing: run `npm run build` first');
    return;
  }
  if (!fs.existsSync(CHROMIUM)) {
    console.log(`  Chromium not found at ${CHROMIUM}: set CHROMIUM_PATH`);
    return;
  }
  console.log(`  Renderer in the build: ${builtRenderer()}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-page-'));
  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  // A signal or an error ends everything this bench started.
  const cleanUp = () => {
    server?.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('exit', cleanUp);
  try {
    const url = await startServer(path.join(dataDir, 'data'), (child) => (server = child));
    const token = await seedCustomer(url, path.join(dataDir, 'data'));

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    const loads = [
      { name: 'sign-in', path: '/', token: null, budget: true, ready: (page: Page) => page.getByRole('button', { name: 'Sign In' }).waitFor() },
      { name: 'dashboard', path: '/', token, budget: true, ready: (page: Page) => page.getByTestId('order-row').nth(2).waitFor() },
      // No budget of its own: what it adds to the dashboard's is its form's (react-hook-form, the pickers).
      {
        name: 'create order',
        path: '/createorders',
        token,
        budget: false,
        ready: (page: Page) => page.getByRole('heading', { name: 'Create Order' }).waitFor(),
      },
    ];
    console.log(`  First load, empty cache (target: JS under ${FIRST_LOAD_TARGET_KB} kB gzipped for sign-in and the dashboard)`);
    for (const load of loads) {
      const figures = await measureFirstLoad(browser, `${url}${load.path}`, load.token, load.ready);
      const verdict = !load.budget ? 'no target' : figures.jsGzip / 1000 < FIRST_LOAD_TARGET_KB ? 'ok' : 'OVER';
      console.log(
        `  ${load.name.padEnd(12)} JS ${String(figures.jsFiles).padStart(2)} files ${kb(figures.jsRaw).padStart(9)} raw ${kb(figures.jsGzip).padStart(9)} gzip (${verdict})   transferred ${kb(figures.transfer).padStart(9)} in all`,
      );
    }
    await browser.close();
    browser = undefined;

    if (RUNS <= 0) return;
    console.log(
      `  Lighthouse ${RUNS > 1 ? `median of ${RUNS} runs` : '1 run'}, mobile, simulated throttling (targets: performance >= ${SCORE_TARGETS.performance}, accessibility >= ${SCORE_TARGETS.accessibility})`,
    );
    const pages = [
      { name: 'sign-in', path: '/', token: null },
      { name: 'dashboard', path: '/', token },
      { name: 'create order', path: '/createorders', token },
    ];
    let profile = 0;
    for (const page of pages) {
      const runs: Audit[] = [];
      // A run Lighthouse itself spoils (a lost trace: NO_NAVSTART, NO_FCP) is run again, twice at most.
      const failures: string[] = [];
      while (runs.length < RUNS && failures.length <= 2) {
        try {
          runs.push(await audit(`${url}${page.path}`, page.token, path.join(dataDir, `chrome-${++profile}`)));
        } catch (error) {
          failures.push(error instanceof Error ? error.message : String(error));
        }
      }
      if (runs.length === 0) {
        console.log(`  ${page.name.padEnd(12)} no Lighthouse result: ${failures.join('; ')}`);
        continue;
      }
      const m = medianRun(runs);
      const mark = (score: number, target: number) => `${String(score).padStart(3)} (${score >= target ? 'ok' : 'UNDER'} ${target})`;
      const problems = [...new Set(runs.flatMap((r) => r.problems))];
      console.log(
        `  ${page.name.padEnd(12)} performance ${mark(m.performance, SCORE_TARGETS.performance)}  accessibility ${mark(m.accessibility, SCORE_TARGETS.accessibility)}  best practices ${String(m.bestPractices).padStart(3)}` +
          `   FCP ${(m.fcp / 1000).toFixed(2)} s  LCP ${(m.lcp / 1000).toFixed(2)} s  TBT ${m.tbt.toFixed(0)} ms${RUNS > 1 ? `  (performance runs: ${runs.map((r) => r.performance).join(', ')})` : ''}${problems.length ? `\n    failed audits: ${problems.join(', ')}` : ''}${failures.length ? `\n    runs spoilt and repeated: ${failures.join('; ')}` : ''}` +
          (runs.some((r) => r.slowCpu)
            ? `\n    Lighthouse: this machine's CPU is slower than it expects (benchmark index ${runs.map((r) => Math.round(r.benchmarkIndex)).join(', ')}), which lowers the performance score`
            : ''),
      );
    }
  } catch (error) {
    console.log(`  page bench stopped: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await browser?.close().catch(() => undefined);
    if (server) await stopChild(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.removeListener('exit', cleanUp);
  }
}
