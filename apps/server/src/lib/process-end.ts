import type { FastifyBaseLogger } from 'fastify';
import { withLogContext } from './log-context.ts';

export type ProcessEnd = {
  log: FastifyBaseLogger;
  /** The line logged on SIGTERM or SIGINT. */
  stopping: string;
  /** Stops taking work and lets what is running finish: the graceful shutdown. */
  close: () => Promise<unknown>;
  /** How long `close` may take before the process exits anyway (with 1). */
  graceMs: number;
};

/**
 * How a long-running process (the web server, the worker) ends. On SIGTERM or SIGINT it closes and
 * exits 0. An error nothing caught (an unhandled rejection or an uncaught exception) is the last
 * resort: it is logged as an error (with the reqId or jobId of the work it came from, through the
 * logger's log-context mixin: the handler runs in the failed work's async context), then the process
 * closes the same way and exits 1, so that its supervisor starts a fresh one rather than letting it
 * serve on in a state nobody planned for.
 */
export function handleProcessEnd({ log, stopping, close, graceMs }: ProcessEnd): void {
  let closing = false;
  const end = async () => {
    if (closing) return;
    closing = true;
    const forceExit = setTimeout(() => process.exit(1), graceMs).unref();
    try {
      await close();
      log.info('closed'); // what tells a graceful close from the timer's exit, for whoever reads the log
    } catch (error) {
      log.error({ err: error }, 'closing failed');
      process.exitCode = 1;
    }
    clearTimeout(forceExit);
    process.exit();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // Kept listening: a second signal while closing (Ctrl-C reaches a supervisor and its child both, and the supervisor
    // passes its own on) is logged, not Node's default of ending the process at once.
    process.on(signal, () => {
      log.info({ signal }, stopping);
      void end();
    });
  }
  // One that comes while closing is logged too. The exit code is 1 however the process then ends.
  const fatal = (message: string) => (error: unknown) => {
    log.error({ err: error }, message);
    process.exitCode = 1;
    // The shutdown's own lines are not the failed request's or job's.
    withLogContext({}, () => void end());
  };
  process.on('unhandledRejection', fatal('unhandled rejection, stopping'));
  process.on('uncaughtException', fatal('uncaught exception, stopping'));
}
