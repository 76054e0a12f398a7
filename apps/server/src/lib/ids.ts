import crypto from 'node:crypto';

export const newId = (): string => crypto.randomUUID();
export const nowIso = (): string => new Date().toISOString();
export const isoIn = (ms: number): string => new Date(Date.now() + ms).toISOString();
export const sha256Hex = (text: string): string => crypto.createHash('sha256').update(text).digest('hex');
export const randomToken = (bytes = 24): string => crypto.randomBytes(bytes).toString('base64url');
