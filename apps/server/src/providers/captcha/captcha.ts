import { createChallenge, verifySolution } from 'altcha-lib/v1';
import type { Challenge } from 'altcha-lib/v1/types';
import type { CaptchaProvider } from '@portal/contract';
import type { Db } from '../../db/database.ts';
import { isoIn, nowIso, sha256Hex } from '../../lib/ids.ts';

export interface CaptchaVerifier {
  readonly provider: CaptchaProvider;
  readonly siteKey: string | null;
  /** True once per solved challenge: a missing, wrong, expired or reused token is false. */
  verify(token: string | undefined, remoteIp: string): Promise<boolean>;
  /** ALTCHA only: a fresh proof-of-work challenge for the widget. */
  createChallenge?(): Promise<Challenge>;
}

const CHALLENGE_TTL_MS = 10 * 60 * 1000;

/** Self-hosted proof of work (ALTCHA, v1 SHA-256 challenges, which the v3 widget still solves). */
export function createAltchaVerifier(db: Db, hmacKey: string, maxNumber: number): CaptchaVerifier {
  return {
    provider: 'altcha',
    siteKey: null,
    createChallenge: () => createChallenge({ hmacKey, maxNumber, expires: new Date(Date.now() + CHALLENGE_TTL_MS) }),
    async verify(token) {
      if (!token) return false;
      let signature: string;
      try {
        const payload = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
        if (!(await verifySolution(payload, hmacKey, true))) return false;
        signature = String(payload.signature);
      } catch {
        return false;
      }
      // A solved challenge is spent: the first use records it, any later one is refused.
      await db.deleteFrom('captcha_uses').where('expires_at', '<', nowIso()).execute();
      const inserted = await db
        .insertInto('captcha_uses')
        .values({ key: sha256Hex(signature), expires_at: isoIn(CHALLENGE_TTL_MS) })
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
    },
  };
}

const SITEVERIFY_URLS = {
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
} as const;

/** reCAPTCHA v2 and Turnstile share the siteverify protocol: form post of secret, response, remoteip. */
export function createSiteverifyVerifier(provider: 'recaptcha' | 'turnstile', siteKey: string, secret: string, verifyUrl?: string): CaptchaVerifier {
  const url = verifyUrl ?? SITEVERIFY_URLS[provider];
  return {
    provider,
    siteKey,
    async verify(token, remoteIp) {
      if (!token) return false;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ secret, response: token, remoteip: remoteIp }),
          signal: AbortSignal.timeout(10_000),
        });
        if (!response.ok) return false;
        const result = (await response.json()) as { success?: unknown };
        return result.success === true;
      } catch {
        return false;
      }
    },
  };
}
