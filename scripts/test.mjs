// `npm test`: the layout (Prettier), the type check with ESLint (scripts/check.mjs), the import cycles (dpdm), and the tests that need no browser
// and start no process of their own, on SQLite, all three at once: the tests wait on timers and sockets for much of
// their run, and the checks fill those gaps of the two cores. `npm run test:full` (`--full`, what CI runs): Chromium
// found or installed, the same checks, the build, every test file on every configured engine (the slowest first, see
// vitest.config.ts), and the smoke run on Node 24. `--cold` (`npm run test:time`) first removes the caches of Prettier, tsc and ESLint, to time a fresh clone.
// Each run ends with a table of its phases' wall and CPU time (CPU: the phase's processes, from /proc on Linux).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const full = process.argv.includes('--full');
if (process.argv.includes('--cold')) fs.rmSync('node_modules/.cache', { recursive: true, force: true });

const startedAt = performance.now();
const phases = [];

/** Seconds of CPU of this process's children that have ended (utime + stime of /proc/self/stat), or NaN off Linux. */
function childrenCpuSeconds() {
  try {
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100; // cutime and cstime, in clock ticks of 1/100 s
  } catch {
    return NaN;
  }
}

/**
 * Runs a phase in a process of its own (`--phase`, below) that reports the CPU time of everything the phase ran.
 * A quiet phase's output is kept and printed whole when it ends, so phases that run at once do not interleave.
 */
function run(name, command, args, { quiet = false } = {}) {
  const startedAt = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [import.meta.filename, '--phase', command, ...args], {
      stdio: [quiet ? 'ignore' : 'inherit', quiet ? 'pipe' : 'inherit', quiet ? 'pipe' : 'inherit', 'ipc'],
    });
    let output = '';
    let cpu = NaN;
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('message', (message) => (cpu = message.cpu));
    child.on('close', (code, signal) => {
      if (quiet) process.stdout.write(output);
      const result = { name, ok: code === 0, why: signal ?? `exit ${code}`, wall: (performance.now() - startedAt) / 1000, cpu };
      phases.push(result);
      resolve(result);
    });
  });
}

function printPhases() {
  const seconds = (value) => (Number.isNaN(value) ? '-' : `${value.toFixed(1)} s`);
  console.log('\nphase                         wall       CPU');
  for (const { name, wall, cpu, ok } of phases)
    console.log(`${name.padEnd(28)}${seconds(wall).padStart(8)}${seconds(cpu).padStart(10)}${ok ? '' : '  failed'}`);
  console.log(`${'npm test'.padEnd(28)}${seconds((performance.now() - startedAt) / 1000).padStart(8)}${seconds(childrenCpuSeconds()).padStart(10)}`);
}

// Each vitest phase also writes a JSON report here, so the run ends with its failed tests and slowest files: the
// output of two vitest runs side by side is too long to find a failure in, and CI keeps only its tail.
const isPhase = process.argv[2] === '--phase';
const reports = isPhase ? '' : fs.mkdtempSync(path.join(os.tmpdir(), 'shop-test-reports-'));
if (!isPhase) {
  process.on('exit', () => fs.rmSync(reports, { recursive: true, force: true }));
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));
}
const vitest = (name, ...args) => [
  'npx',
  ['vitest', 'run', ...args, '--reporter=default', '--reporter=json', `--outputFile.json=${path.join(reports, `${name}.json`)}`],
];

function printReports() {
  const files = [];
  for (const report of fs.readdirSync(reports)) {
    let testResults;
    try {
      ({ testResults } = JSON.parse(fs.readFileSync(path.join(reports, report), 'utf8')));
    } catch (error) {
      console.log(`\n${report}: no report (${error.message})`);
      continue;
    }
    files.push(...testResults.map((file) => ({ ...file, name: path.relative(process.cwd(), file.name) })));
  }
  const failures = files.flatMap((file) => file.assertionResults.filter((test) => test.status === 'failed').map((test) => ({ file, test })));
  if (failures.length > 0) console.log(`\nfailed tests (${failures.length}):`);
  for (const { file, test } of failures) {
    const why = (test.failureMessages[0] ?? file.message ?? '').split('\n').slice(0, 3).join(' | ');
    console.log(`  ${file.name} > ${test.fullName}\n      ${why.slice(0, 400)}`);
  }
  for (const file of files.filter((file) => file.status === 'failed' && file.assertionResults.length === 0))
    console.log(`  ${file.name}: ${(file.message ?? '').split('\n')[0]}`);
  console.log('\nslowest test files (one line per project that ran them):');
  const seconds = (file) => (file.endTime - file.startTime) / 1000;
  for (const file of files.sort((a, b) => seconds(b) - seconds(a)).slice(0, 20)) console.log(`${seconds(file).toFixed(1).padStart(8)} s  ${file.name}`);
}

function stopIfFailed(results) {
  const failed = results.filter((result) => !result.ok);
  if (failed.length === 0) return;
  printReports();
  printPhases();
  for (const { name, why } of failed) console.error(`\n${name} failed (${why})`);
  process.exit(1);
}

if (isPhase) {
  // One phase: run the command, then tell the parent how much CPU it and all its processes used.
  const child = spawn(process.argv[3], process.argv.slice(4), { stdio: 'inherit' });
  child.on('close', (code, signal) => {
    process.send({ cpu: childrenCpuSeconds() }, () => process.exit(code ?? (signal ? 1 : 0)));
  });
} else {
  const layout = ['npx', ['prettier', '--check', '.', '--log-level', 'warn', '--cache', '--cache-strategy', 'content']];
  const checks = () => [
    run('prettier --check', ...layout, { quiet: true }),
    run('types + lint (check.mjs)', 'node', ['scripts/check.mjs'], { quiet: true }),
    run('import cycles (dpdm)', 'npx', ['dpdm'], { quiet: true }),
  ];
  if (!full) {
    stopIfFailed(
      await Promise.all([...checks(), run('vitest (fast projects)', ...vitest('fast', '--project', 'sqlite', '--project', 'web', '--project', 'contract'))]),
    );
  } else {
    stopIfFailed([await run('find Chromium', 'node', ['scripts/find-browser.mjs'])]);
    // The checks before the tests: beside them, they loaded the first minutes, when the slowest files (the process
    // tests) run, and a kill test missed its moment.
    stopIfFailed(await Promise.all(checks()));
    stopIfFailed([await run('build', 'npm', ['run', 'build'])]);
    // The browser tests run one file at a time (each starts a shop and a browser), which vitest otherwise runs apart
    // from every other file; so they run beside the rest, in a vitest of their own. Their output comes whole at the end.
    stopIfFailed(
      await Promise.all([
        run('vitest e2e', ...vitest('e2e', '--project', 'e2e'), { quiet: true }),
        run('vitest (all but e2e)', ...vitest('rest', '--project', '!e2e')),
      ]),
    );
    // The built shop on Node 24 too (the registry's binary; see the README's `npm run smoke`).
    stopIfFailed([await run('smoke on Node 24', 'npm', ['run', 'smoke'])]);
  }
  printReports();
  printPhases();
}
