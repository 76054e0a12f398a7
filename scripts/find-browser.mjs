// The browser tests drive Debian's Chromium. Finds it (CHROMIUM_PATH, then /usr/bin/chromium);
// installs Debian's package when running as root with apt-get; otherwise stops with the command to run.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const DEFAULT_PATH = '/usr/bin/chromium';
const INSTALL = 'apt-get update && apt-get install -y chromium';

function stop(message) {
  console.error(message);
  process.exit(1);
}

const fromEnv = process.env.CHROMIUM_PATH;
if (fromEnv) {
  if (!fs.existsSync(fromEnv)) stop(`CHROMIUM_PATH=${fromEnv} does not exist: point it at a Chromium binary, or unset it to use ${DEFAULT_PATH}`);
  process.exit(0);
}
if (fs.existsSync(DEFAULT_PATH)) process.exit(0);

const hasAptGet = ['/usr/bin/apt-get', '/bin/apt-get'].some((p) => fs.existsSync(p));
if (process.getuid?.() !== 0 || !hasAptGet)
  stop(`Chromium not found at ${DEFAULT_PATH}: run "sudo ${INSTALL.replace('&& ', '&& sudo ')}" or set CHROMIUM_PATH`);

console.log(`Chromium not found at ${DEFAULT_PATH}: installing Debian's chromium package...`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
try {
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: ['ignore', 'ignore', 'inherit'], env });
} catch {
  stop(`Installing Chromium failed: run "${INSTALL}" or set CHROMIUM_PATH`);
}
if (!fs.existsSync(DEFAULT_PATH)) stop(`Chromium is still missing at ${DEFAULT_PATH}: run "${INSTALL}" or set CHROMIUM_PATH`);
