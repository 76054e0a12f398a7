// `npm run smoke` (`npm run smoke -- 22` for another major version): the built shop on Node 24, from a copy of
// this checkout. It starts the web process and a worker (`npm start`'s and `npm run worker`'s command on that
// Node), takes a customer through the shop (sign up, deposit, order, bulk order, packing slips) and stops both.
// The Node binary is the npm registry's node-<platform>-<arch> package (what the `node` package installs), kept in
// ~/.cache/portal-node<major> with better-sqlite3 compiled against its headers (the only addon tied to Node's
// version: argon2's and msgpackr's use Node-API). The first run downloads about 50 MB and compiles for minutes.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildCheckout, checkoutRoot, copyCheckout, replaceFile } from '../apps/server/test/built-tree.ts';
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

/** better-sqlite3's addon for `binary`'s Node, compiled once against its headers with npm's node-gyp (or null: this Node's own fits). */
function sqliteAddon(binary: string): string | null {
  const abi = execFileSync(binary, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim();
  if (abi === process.versions.modules) return null;
  const source = path.join(checkoutRoot, 'node_modules/better-sqlite3');
  const { version } = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8')) as { version: string };
  const addon = path.join(cacheDir, `better-sqlite3-${version}-abi${abi}.node`);
  if (fs.existsSync(addon)) return addon;
  const since = performance.now();
  const temp = fs.mkdtempSync(path.join(cacheDir, 'build-'));
  try {
    for (const part of ['binding.gyp', 'package.json', 'src', 'deps']) fs.cpSync(path.join(source, part), path.join(temp, part), { recursive: true });
    const nodeGyp = path.join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm/node_modules/node-gyp/bin/node-gyp.js');
    // The headers of that Node (npm passes its own nodedir setting down as npm_config_nodedir, which node-gyp prefers).
    const nodeDir = path.dirname(path.dirname(binary));
    try {
      execFileSync(process.execPath, [nodeGyp, 'rebuild', '--release', `--jobs=${os.availableParallelism()}`], {
        cwd: temp,
        env: { ...process.env, npm_config_nodedir: nodeDir },
        stdio: 'pipe',
      });
    } catch (error) {
      throw new Error(`node-gyp failed:\n${(error as { stderr?: Buffer }).stderr?.toString().slice(-5000)}`);
    }
    fs.copyFileSync(path.join(temp, 'build/Release/better_sqlite3.node'), `${addon}.tmp`);
    fs.renameSync(`${addon}.tmp`, addon);
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
  console.log(`Compiled better-sqlite3 ${version} for Node's ABI ${abi} in ${seconds(since)}`);
  return addon;
}

fs.mkdirSync(cacheDir, { recursive: true });
const binary = nodeBinary();
const addon = sqliteAddon(binary);
const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();

const checked = performance.now();
buildCheckout();
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-smoke-'));
const processes = processGroup();
try {
  const tree = path.join(temp, 'shop');
  copyCheckout(tree, 'link');
  if (addon) replaceFile(path.join(tree, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), addon);
  const dataDir = path.join(temp, 'data');
  fs.mkdirSync(dataDir);
  const env = { ...JOURNEY_ENV, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  const dir = path.join(tree, 'apps/server');
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
