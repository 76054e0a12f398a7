// `npm run smoke` (`npm run smoke -- 22` for another major version): the built shop on Node 24, from a copy of
// this checkout. It starts the web process and a worker (`npm start`'s and `npm run worker`'s command on that
// Node), takes a customer through the shop (sign up, deposit, order, bulk order, packing slips) and stops both.
// The Node binary is the npm registry's node-<platform>-<arch> package (what the `node` package installs), kept in
// ~/.cache/portal-node<major>. Every addon the shop loads on Node 22+ uses Node-API (better-sqlite3 13, argon2,
// msgpackr), so the checkout's own node_modules serve that Node as they are. The first run downloads about 50 MB.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildCheckout, copyCheckout } from '../apps/server/test/built-tree.ts';
import { processGroup } from '../apps/server/test/processes.ts';
import { JOURNEY_ENV, shopJourney } from '../apps/server/test/shop-journey.ts';

const major = process.argv[2] ?? '24';
const cacheDir = path.join(os.homedir(), '.cache', `portal-node${major}`);
const started = performance.now();
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** The Node binary of the newest `major` release in the registry, downloaded once. */
function nodeBinary(): string {
  const nodeDir = path.join(cacheDir, 'node');
  const binary = path.join(nodeDir, 'bin', 'node');
  if (fs.existsSync(binary)) return binary;
  const since = performance.now();
  const temp = fs.mkdtempSync(path.join(cacheDir, 'download-'));
  try {
    const spec = `node-${process.platform}-${process.arch}@${major}`;
    const tarball = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', temp], { encoding: 'utf8' }).trim().split('\n').pop()!;
    execFileSync('tar', ['xzf', path.join(temp, tarball), '-C', temp]);
    fs.renameSync(path.join(temp, 'package'), nodeDir);
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
  console.log(`Downloaded Node ${execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim()} in ${seconds(since)}`);
  return binary;
}

const STATEMENT_CHURN = `
const { default: Sqlite } = await import('./src/db/sqlite-driver.ts');
const db = new Sqlite(':memory:');
for (let i = 0; i < 200000; i++) db.prepare('select ' + (i % 100)).get();
db.close();
console.log('  200,000 statements prepared and collected');`;

fs.mkdirSync(cacheDir, { recursive: true });
const binary = nodeBinary();
const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();

const checked = performance.now();
buildCheckout();
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-smoke-'));
const processes = processGroup();
try {
  const tree = path.join(temp, 'shop');
  copyCheckout(tree, 'link');
  const dataDir = path.join(temp, 'data');
  fs.mkdirSync(dataDir);
  const env = { ...JOURNEY_ENV, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  const dir = path.join(tree, 'apps/server');
  // better-sqlite3 12 aborted on Node 24.19+ when V8 collected a statement (nodejs/node#65446): a small young
  // generation makes V8 collect thousands of them here.
  execFileSync(binary, ['--max-semi-space-size=1', '--input-type=module', '-e', STATEMENT_CHURN], { cwd: dir, stdio: 'inherit' });
  const web = await processes.startBuilt('server', { ...env, QUEUE_RUN_WORKERS: 'false' }, { node: binary, dir });
  const worker = await processes.startBuilt('worker', env, { node: binary, dir });
  await shopJourney(web.url, (step) => console.log(`  ${step}`));
  const codes = { worker: await worker.stop(), web: await web.stop() };
  if (codes.worker !== 0 || codes.web !== 0) throw new Error(`stopped with exit codes ${JSON.stringify(codes)}`);
  console.log(`The built shop ran on Node ${version} (checked in ${seconds(checked)}, ${seconds(started)} in all)`);
} catch (error) {
  console.error(`The built shop failed on Node ${version}:`, error);
  process.exitCode = 1;
} finally {
  await processes.stopAll();
  fs.rmSync(temp, { recursive: true, force: true });
}
