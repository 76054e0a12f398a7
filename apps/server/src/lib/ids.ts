import crypto from 'node:crypto';

export const newId = (): string => crypto.randomUUID();
export const nowIso = (): string => new Date().toISOString();
let lastIncreasingMs = 0;
/** How far ahead of the clock nowIsoIncreasing may run: a 5,000-row burst takes 5 s of it; a clock set back further restarts it. */
const INCREASING_AHEAD_MAX_MS = 60_000;
/**
 * Like nowIso, but strictly increasing within this process, so rows written in one burst keep their order when sorted by
 * time. A clock set back by more than a minute (or a test's moved clock restored) restarts it at the clock, rather than
 * dating every row in the future until the clock catches up, where a stalled-order sweep would not see them.
 */
export function nowIsoIncreasing(): string {
  const now = Date.now();
  lastIncreasingMs = lastIncreasingMs >= now && lastIncreasingMs - now < INCREASING_AHEAD_MAX_MS ? lastIncreasingMs + 1 : now;
  return new Date(lastIncreasingMs).toISOString();
}
export const isoIn = (ms: number): string => new Date(Date.now() + ms).toISOString();
export const sha256Hex = (text: string): string => crypto.createHash('sha256').update(text).digest('hex');
export const randomToken = (bytes = 24): string => crypto.randomBytes(bytes).toString('base64url');
