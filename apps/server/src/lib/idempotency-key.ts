import type { FastifyReply, FastifyRequest } from 'fastify';
import { IDEMPOTENCY_KEY_INVALID } from '@portal/contract';
import { badRequest } from './http-errors.ts';
import { sha256Hex } from './ids.ts';

/** A paid call's Idempotency-Key and the fingerprint of its request (method, route and body). */
export type Idempotency = { key: string; fingerprint: string };
/** An answer of a paid call: kept with its Idempotency-Key and replayed to repeats. */
export type ApiAnswer = { statusCode: number; body: Record<string, unknown>; replayed?: boolean };

const KEY = /^[\x21-\x7e]{1,255}$/;

/** JSON with sorted keys, so the same request always has the same fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The request's Idempotency-Key (400 when malformed), fingerprinted by its method, route and body (a multipart upload,
 * read later, by its method and route); undefined without one.
 */
export function idempotencyOf(request: FastifyRequest): Idempotency | undefined {
  const key = request.headers['idempotency-key'];
  if (typeof key !== 'string') return undefined;
  if (!KEY.test(key)) throw badRequest(IDEMPOTENCY_KEY_INVALID);
  const fingerprint = sha256Hex(`${request.method} ${request.routeOptions.url}\n${canonical(request.body)}`);
  return { key, fingerprint };
}

/** Sends an answer, saying when it is the first answer of its key again. */
export function sendAnswer(reply: FastifyReply, answer: ApiAnswer) {
  if (answer.replayed) reply.header('idempotent-replayed', 'true');
  return reply.status(answer.statusCode).send(answer.body);
}
