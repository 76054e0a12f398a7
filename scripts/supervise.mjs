// `npm start` and `npm run worker`: the built server or worker (apps/server/dist/<entry>.js) as the child of this small
// supervisor, which starts it again when it crashes (an uncaught error ends it with 1 on purpose, the kernel's OOM
// killer or kill -9 with a signal), waiting 1 s, then twice as long after each crash up to 30 s, and 1 s again once a
// child has stayed up a minute. SIGTERM and SIGINT are passed to the child, which shuts down gracefully; the supervisor
// then exits with its code and starts nothing. A child that ends with 0 was asked to stop (by a signal of its own) and
// is not started again either. Under systemd or a container runtime with a restart policy, run the entry directly
// instead (see the README).
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

const entry = process.argv[2];
if (entry !== 'server' && entry !== 'worker') {
  console.error('usage: node scripts/supervise.mjs server|worker');
  process.exit(2);
}
const file = path.resolve(import.meta.dirname, '..', 'apps/server/dist', `${entry}.js`);
/** Node's flags of the child (the supervisor itself needs little memory). */
const NODE_FLAGS = ['--max-old-space-size=256'];
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;
/** A child up this long was not crashing in a loop: the next restart waits FIRST_DELAY_MS again. */
const STEADY_MS = 60_000;
/** A child stopped by its configuration (config.ts's CONFIG_EXIT_CODE) would stop the same way again: not restarted. */
const CONFIG_EXIT_CODE = 78;

/** One JSON line on stdout, as the shop's own (pino) log lines: 30 info, 50 error. */
const log = (level, msg, fields = {}) =>
  process.stdout.write(`${JSON.stringify({ level, time: Date.now(), pid: process.pid, hostname: os.hostname(), supervisor: entry, ...fields, msg })}\n`);

/** The exit code of a child that ended with `code`, or with `signal` (128 + its number, as a shell says). */
const exitCodeOf = (code, signal) => code ?? 128 + (os.constants.signals[signal] ?? 0);

let child = null;
let stopping = null;
let delayMs = FIRST_DELAY_MS;
let restartTimer;

function start() {
  const startedAt = Date.now();
  // PORTAL_SUPERVISOR tells the child it is restarted after a crash (the console's Going live checklist).
  child = spawn(process.execPath, [...NODE_FLAGS, file], { stdio: 'inherit', env: { ...process.env, PORTAL_SUPERVISOR: 'scripts/supervise.mjs' } });
  log(30, `started the ${entry}`, { childPid: child.pid });
  child.once('exit', (code, signal) => {
    child = null;
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (stopping || code === 0) {
      log(30, `the ${entry} stopped (${how})`, { code, signal });
      process.exit(exitCodeOf(code, signal));
    }
    if (code === CONFIG_EXIT_CODE) {
      log(50, `the ${entry} stopped: its configuration is not valid (see above); fix it and start again`, { code });
      process.exit(code);
    }
    if (Date.now() - startedAt >= STEADY_MS) delayMs = FIRST_DELAY_MS;
    log(50, `the ${entry} exited (${how}); starting it again in ${delayMs / 1000} s`, { code, signal, restartInMs: delayMs });
    restartTimer = setTimeout(start, delayMs);
    delayMs = Math.min(MAX_DELAY_MS, delayMs * 2);
  });
}

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    if (!stopping) log(30, `${signal}: stopping the ${entry}`, { signal });
    stopping = signal;
    clearTimeout(restartTimer);
    // The child may already have the same signal (Ctrl-C reaches the whole process group): it ignores a second one.
    if (child) child.kill(signal);
    else process.exit(0);
  });
}

start();
