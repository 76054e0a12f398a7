// Commands of the deploy tests (systemd-analyze, caddy, podman) taken from Debian's packages: found on PATH, else
// installed with apt-get when the test runs as root on Debian (as CI does), else a reason to skip.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** The path of `command` on PATH, or undefined. */
export function which(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const file = `${dir}/${command}`;
    if (dir && fs.existsSync(file) && fs.statSync(file).isFile()) return file;
  }
  return undefined;
}

/**
 * `command`, installing Debian's `pkg` first when it is missing (apt-get as root; `apt-get update` once if the install
 * fails on stale lists). `{ skip }` names why not. Installing does not start the package's service: there is no
 * systemd here to start it, and policy-rc.d refuses starts in a container.
 */
export function debianCommand(command: string, pkg: string): { path: string } | { skip: string } {
  const found = which(command);
  if (found) return { path: found };
  if (process.getuid?.() !== 0 || !which('apt-get')) return { skip: `${command} is missing: install Debian's ${pkg} (apt-get install -y ${pkg})` };
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Two test files (two vitest projects) may install at once: the second waits for dpkg's lock.
  const install = () =>
    execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '-qq', '--no-install-recommends', pkg], { stdio: 'ignore', env });
  try {
    try {
      install();
    } catch {
      execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'update', '-qq'], { stdio: 'ignore', env });
      install();
    }
  } catch (error) {
    return { skip: `${command} is missing and installing Debian's ${pkg} failed: ${(error as Error).message.split('\n')[0]}` };
  }
  const installed = which(command);
  return installed ? { path: installed } : { skip: `Debian's ${pkg} installed no ${command}` };
}
