import crypto from 'node:crypto';

/** Every sealed value starts with this (a plain API key starts with lp_). */
export const SEALED_PREFIX = 'v1.';
const PREFIX = SEALED_PREFIX;

/**
 * Secrets the shop must show or use again (a user's API key on Account Setting, a webhook signing
 * secret), kept encrypted with a server key: AES-256-GCM, a fresh IV each time, and the row they
 * belong to as associated data, so a sealed value copied to another row does not open.
 */
export function createSealedBox(serverSecret: string) {
  const key = Buffer.from(crypto.hkdfSync('sha256', serverSecret, 'label-portal', 'sealed-box v1', 32));
  return {
    seal(plain: string, context: string): string {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context));
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${PREFIX}${iv.toString('base64url')}.${data.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
    },
    /** The plain text; throws when the value was not sealed with this key and context. */
    open(sealed: string, context: string): string {
      const [iv, data, tag] = sealed.slice(PREFIX.length).split('.');
      if (!sealed.startsWith(PREFIX) || !iv || data === undefined || !tag) throw new Error('not a sealed value');
      const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
    isSealed: (value: string): boolean => value.startsWith(PREFIX),
  };
}
export type SealedBox = ReturnType<typeof createSealedBox>;
