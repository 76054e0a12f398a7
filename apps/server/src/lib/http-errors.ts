import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { TOO_MANY_ATTEMPTS } from '@portal/contract';
import { isDatabaseUnavailable } from '../db/unavailable.ts';

type HttpErrorOptions = {
  /** Whether the message may be shown to the caller; default: yes below 500, no from 500 up. */
  expose?: boolean;
  /** More fields of the answer beside `message`, e.g. the bad rows of a CSV file. */
  details?: Record<string, unknown>;
  /** Headers of the answer, e.g. Retry-After. */
  headers?: Record<string, string>;
};

/**
 * Thrown by services and guards; the app's one error handler turns it into `{ message, ...details }`
 * with this status. A 5xx whose message is not exposed answers a generic text and is logged.
 */
export class HttpError extends Error {
  readonly expose: boolean;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    readonly statusCode: number,
    message: string,
    options: HttpErrorOptions = {},
  ) {
    super(message);
    this.expose = options.expose ?? statusCode < 500;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'Unauthorized') => new HttpError(401, message);
export const paymentRequired = (message: string) => new HttpError(402, message);
export const notFound = (message = 'Not found') => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
/** 429 with Retry-After in whole seconds (at least 1); the message names the wait unless another is given. */
export function tooManyRequests(retryAfterSeconds: number, message?: string): HttpError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new HttpError(429, message ?? TOO_MANY_ATTEMPTS(seconds), { headers: { 'retry-after': String(seconds) } });
}
/** An outside provider (payments, labels) that failed or is down: its message reaches the user, since trying again later helps. */
export const providerUnavailable = (message: string, statusCode: 502 | 503 = 503) => new HttpError(statusCode, message, { expose: true });

/**
 * Heavy work (a pool of threads: reading PDFs, rendering labels) whose queue is full: a 503 with Retry-After in whole
 * seconds (at least 1). A request answers it; a background job meeting it runs again later instead of failing its work.
 */
export class PoolFull extends HttpError {
  constructor(what: string, retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(503, `The ${what} is busy; try again in ${seconds} s`, { expose: true, headers: { 'retry-after': String(seconds) } });
  }
}

export const GENERIC_ERROR_MESSAGE = 'Something went wrong, please try again later';
export const DATABASE_UNAVAILABLE_MESSAGE = 'Database unavailable, please try again in a few seconds';
/** The Retry-After of an answer given while the database is away: a restart or failover takes seconds. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

export type PublicError = { statusCode: number; message: string; details: Record<string, unknown>; headers: Record<string, string>; internal: boolean };

/**
 * What an error shows its caller, the one rule every error handler follows: an HttpError shows its
 * status and message when it may (`expose`), Fastify's own 4xx (a body too large, bad JSON) say
 * what is wrong, and anything else is a 500 with a generic text; `internal` tells the handler to log it.
 */
export function publicError(error: { statusCode?: number; message: string }): PublicError {
  const none = { details: {}, headers: {} };
  if (error instanceof HttpError) {
    if (!error.expose) return { statusCode: 500, message: GENERIC_ERROR_MESSAGE, ...none, internal: true };
    return { statusCode: error.statusCode, message: error.message, details: error.details, headers: error.headers, internal: error.statusCode >= 500 };
  }
  if (isDatabaseUnavailable(error)) {
    const headers = { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) };
    return { statusCode: 503, message: DATABASE_UNAVAILABLE_MESSAGE, details: {}, headers, internal: true };
  }
  const status = error.statusCode ?? 500;
  if (status >= 500) return { statusCode: 500, message: GENERIC_ERROR_MESSAGE, ...none, internal: true };
  return { statusCode: status, message: error.message, ...none, internal: false };
}

/** A request that failed its route's schema: each bad field (dotted path) and what is wrong with it, or null for any other error. */
export function validationIssues(error: unknown): { field?: string; message: string }[] | null {
  if (!hasZodFastifySchemaValidationErrors(error)) return null;
  return error.validation.map((issue) => {
    const field = issue.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const text = issue.message ?? 'Invalid input';
    return { ...(field ? { field } : {}), message: text.startsWith('Invalid') && field ? `${field}: ${text}` : text };
  });
}
