import crypto from 'node:crypto';

export const newId = (): string => crypto.randomUUID();
export const nowIso = (): string => new Date().toISOString();
let lastIncreasingMs = 0;
/** Like nowIso, but strictly increasing within this process, so rows written in one burst keep their order when sorted by time. */
export const nowIsoIncreasing = (): string => new Date((lastIncreasingMs = Math.max(Date.now(), lastIncreasingMs + 1))).toISOString();
export const isoIn = (ms: number): string => new Date(Date.now() + ms).toISOString();
export const sha256Hex = (text: string): string => crypto.createHash('sha256').update(text).digest('hex');
export const randomToken = (bytes = 24): string => crypto.randomBytes(bytes).toString('base64url');
