import { AsyncLocalStorage } from 'node:async_hooks';

/** What a log line is part of: the request, or the queue job, whose work wrote it. */
export type LogContext = { reqId?: string; jobId?: string };

const current = new AsyncLocalStorage<LogContext>();

/** Runs `work` with its log lines (through any logger that has logContextMixin) naming `context`. */
export const withLogContext = <T>(context: LogContext, work: () => T): T => current.run(context, work);

/** A pino mixin: every line written inside withLogContext carries its request or job id. */
export const logContextMixin = (): LogContext => current.getStore() ?? {};
