import { useState } from 'react';

/** A fresh Idempotency-Key: crypto.randomUUID where the page may call it (a secure context), else 16 random bytes in hex. */
export const newIdempotencyKey = (): string =>
  typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * The Idempotency-Keys of a screen's paid submissions, one a submission. The same values sent again after an answer
 * that never came or said nothing final (a network error, a 5xx, 409 still running) keep their key, so the server
 * answers the first submission again instead of charging twice; other values, or the same after a success or a
 * settled refusal, get a new key. A refusal before the charge frees its key on the server, so keeping it is harmless.
 */
export function submissionKeys() {
  let current: { values: string; key: string } | null = null;
  const keys = {
    /** The key of a submission of `values` (compared as JSON). */
    keyFor(values: unknown): string {
      const json = JSON.stringify(values);
      if (current?.values !== json) current = { values: json, key: newIdempotencyKey() };
      return current.key;
    },
    /** The submission was answered: the next one gets a new key unless this answer may not be final. */
    answered(error?: unknown) {
      // An ApiError's status; none when the answer never came.
      const status = (error as { status?: unknown } | undefined)?.status;
      const final = error === undefined || status === 502 || (typeof status === 'number' && status < 500 && status !== 409);
      if (final) current = null;
    },
    /** Sends a submission of `values` with its key (`call` puts it in the Idempotency-Key header), and notes its answer. */
    async send<T>(values: unknown, call: (key: string) => Promise<T>): Promise<T> {
      try {
        const answer = await call(keys.keyFor(values));
        keys.answered();
        return answer;
      } catch (error) {
        keys.answered(error);
        throw error;
      }
    },
  };
  return keys;
}

/** submissionKeys for the life of a screen. */
export const useSubmissionKeys = () => useState(submissionKeys)[0];
