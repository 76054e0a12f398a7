import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { readOrCreateSecret } from '../../lib/secrets.ts';
import { createAltchaVerifier, createSiteverifyVerifier, type CaptchaVerifier } from './captcha.ts';

/** The verifier CAPTCHA_PROVIDER names; loadConfig has already checked the hosted providers' keys. */
export function createCaptchaVerifier(config: Config, db: Db): CaptchaVerifier {
  if (config.CAPTCHA_PROVIDER === 'altcha') {
    return createAltchaVerifier(db, readOrCreateSecret(config.dataDir, 'altcha-hmac-key', config.ALTCHA_HMAC_KEY), config.ALTCHA_MAX_NUMBER);
  }
  return createSiteverifyVerifier(config.CAPTCHA_PROVIDER, config.CAPTCHA_SITE_KEY!, config.CAPTCHA_SECRET!, config.CAPTCHA_VERIFY_URL);
}
