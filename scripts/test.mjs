// `npm test`: lint and type checks side by side (each keeps one core busy), then the tests that need no browser and
// start no process of their own, on SQLite. `npm run test:full` (`--full`, what CI runs): Chromium found or installed,
// the same checks, the build, every test file on every configured engine, and the smoke run on Node 24.
import { spawn } from 'node:child_process';

const full = process.argv.includes('--full');

/** Runs a command; its output is kept and printed whole when it ends, so two at once do not interleave. */
function run(command, args, { quiet = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('close', (code, signal) => {
      if (quiet) process.stdout.write(output);
      resolve({ ok: code === 0, name: [command, ...args].join(' '), why: signal ?? `exit ${code}` });
    });
  });
}

function stopIfFailed(results) {
  const failed = results.filter((result) => !result.ok);
  if (failed.length === 0) return;
  for (const { name, why } of failed) console.error(`\n${name} failed (${why})`);
  process.exit(1);
}

if (full) stopIfFailed([await run('node', ['scripts/find-browser.mjs'])]);
stopIfFailed(await Promise.all([run('npm', ['run', '--silent', 'lint'], { quiet: true }), run('npm', ['run', '--silent', 'typecheck'], { quiet: true })]));
if (full) stopIfFailed([await run('npm', ['run', 'build'])]);
if (!full) stopIfFailed([await run('npx', ['vitest', 'run', '--project', 'sqlite', '--project', 'web', '--project', 'contract'])]);
// The browser tests run one file at a time (each starts a shop and a browser), which vitest otherwise runs apart from
// every other file; so they run beside the rest, in a vitest of their own. Their output comes whole when they end.
else stopIfFailed(await Promise.all([run('npx', ['vitest', 'run', '--project', 'e2e'], { quiet: true }), run('npx', ['vitest', 'run', '--project', '!e2e'])]));
// The built shop on Node 24 too (the registry's binary; see the README's `npm run smoke`).
if (full) stopIfFailed([await run('npm', ['run', 'smoke'])]);
