import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyRequest } from 'fastify';

/** What a log line is part of: the request, or the queue job, whose work wrote it. */
export type LogContext = { reqId?: string; jobId?: string };

const current = new AsyncLocalStorage<LogContext>();

/** Runs `work` with its log lines (through any logger that has logContextMixin) naming `context`. */
export const withLogContext = <T>(context: LogContext, work: () => T): T => current.run(context, work);

/** A pino mixin: every line written inside withLogContext carries its request or job id. */
export const logContextMixin = (): LogContext => current.getStore() ?? {};

/** A URL as the log shows it: the path, and each query parameter's name with its value replaced (a query may carry a key, e.g. a FedEx link's signature). */
export function redactQuery(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const names = url
    .slice(start + 1)
    .split('&')
    .filter(Boolean)
    .map((pair) => `${pair.split('=')[0]}=[redacted]`);
  return `${url.slice(0, start)}?${names.join('&')}`;
}

/** The request line of the log: Fastify's own fields, its URL redacted. */
export const requestLogFields = (request: FastifyRequest) => ({
  method: request.method,
  url: redactQuery(request.url),
  host: request.host,
  remoteAddress: request.ip,
  remotePort: request.socket?.remotePort,
});
