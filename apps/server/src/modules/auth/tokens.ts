import { createSecretKey } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

export type TokenClaims = { userId: string; tokenVersion: number };

export function createTokenService(secret: string, ttlHours: number) {
  // A KeyObject made once; a raw byte key would be imported again on every request.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  return {
    async issue(claims: TokenClaims): Promise<string> {
      return new SignJWT({ ver: claims.tokenVersion })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(claims.userId)
        .setIssuedAt()
        .setExpirationTime(`${ttlHours}h`)
        .sign(key);
    },
    /** The claims of a valid, unexpired token; null for anything else. */
    async read(token: string): Promise<TokenClaims | null> {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
        if (typeof payload.sub !== 'string' || typeof payload.ver !== 'number') return null;
        return { userId: payload.sub, tokenVersion: payload.ver };
      } catch {
        return null;
      }
    },
  };
}
export type TokenService = ReturnType<typeof createTokenService>;
