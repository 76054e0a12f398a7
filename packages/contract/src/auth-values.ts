// Sign-in and sign-up words and limits, without zod (see index.ts).

export const CAPTCHA_FAILED = 'Captcha verification failed';
export const INVALID_CREDENTIALS = 'Invalid Telegram username or password';
export const PASSWORDS_DO_NOT_MATCH = 'Passwords do not match';
export const ACCOUNT_CREATED = 'Account created successfully, please login';
export const FORGOT_PASSWORD_SENT = 'If this email belongs to a verified account, an OTP has been sent to it';
export const OTP_TTL_MINUTES = 10;
export const OTP_MAX_ATTEMPTS = 5;
export const PASSWORD_MIN = 8;
/** What an auth form says beside a field left empty (the server's own words for it). */
export const NAME_REQUIRED = 'Name is required';
export const TG_ID_REQUIRED = 'Telegram username is required';
export const PASSWORD_REQUIRED = 'Password is required';
export const OTP_REQUIRED = 'OTP is required';
export const PASSWORD_MAX = 128;
/**
 * The answer past an attempt limit, naming the wait (Retry-After, in seconds) in whole minutes rounded
 * up, so it never promises less than the wait: "in 1 minute" under a minute.
 */
export const TOO_MANY_ATTEMPTS = (retryAfterSeconds: number) => {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Too many attempts, try again in ${minutes} minute${minutes === 1 ? '' : 's'}`;
};
/** The answer of POST /api/v1/auth/logout: the token it was sent with no longer works, on any process. */
export const SIGNED_OUT = 'Signed out';
