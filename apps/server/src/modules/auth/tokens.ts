import { createSecretKey } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { randomToken } from '../../lib/ids.ts';

export type TokenClaims = { userId: string; tokenVersion: number };
/** What a valid token says: its user and version, its own id (signing out revokes that id alone) and its end. */
export type ReadClaims = TokenClaims & { tokenId: string | null; expiresAt: string };

/** The token of an `Authorization: Bearer …` header, or '' without one. */
export const bearerToken = (header: string | undefined) => (header?.startsWith('Bearer ') ? header.slice(7).trim() : '');

/** Tokens whose signature was checked, kept (the oldest dropped past this many) until they expire. */
const VERIFIED_TOKENS_KEPT = 10_000;

export function createTokenService(secret: string, ttlHours: number) {
  // A KeyObject made once; a raw byte key would be imported again on every request.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  // A session sends the same token with every request; checking its signature once is enough (the
  // user's token version, which revokes it, is still read on every request).
  const verified = new Map<string, { claims: ReadClaims; expiresAtMs: number }>();
  return {
    async issue(claims: TokenClaims): Promise<string> {
      return new SignJWT({ ver: claims.tokenVersion })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(claims.userId)
        .setJti(randomToken(16))
        .setIssuedAt()
        .setExpirationTime(`${ttlHours}h`)
        .sign(key);
    },
    /** The claims of a valid, unexpired token; null for anything else. A token issued before tokens had ids has tokenId null. */
    async read(token: string): Promise<ReadClaims | null> {
      const known = verified.get(token);
      if (known && known.expiresAtMs > Date.now()) return known.claims;
      verified.delete(token);
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
        if (typeof payload.sub !== 'string' || typeof payload.ver !== 'number' || typeof payload.exp !== 'number') return null;
        const claims = {
          userId: payload.sub,
          tokenVersion: payload.ver,
          tokenId: typeof payload.jti === 'string' ? payload.jti : null,
          expiresAt: new Date(payload.exp * 1000).toISOString(),
        };
        verified.set(token, { claims, expiresAtMs: payload.exp * 1000 });
        if (verified.size > VERIFIED_TOKENS_KEPT) verified.delete(verified.keys().next().value!);
        return claims;
      } catch {
        return null;
      }
    },
  };
}
export type TokenService = ReturnType<typeof createTokenService>;
