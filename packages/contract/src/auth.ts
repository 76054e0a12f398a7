import { z } from 'zod';
import { USER_ROLES } from './admin.ts';
import { LABEL_FORMATS } from './label-format-values.ts';
import { requiredText, stringField } from './common.ts';
import { CAPTCHA_FAILED, INVALID_CREDENTIALS, PASSWORD_MIN, TG_ID_REQUIRED, PASSWORD_REQUIRED, OTP_REQUIRED, PASSWORD_MAX } from './auth-values.ts';

const captchaToken = z.string({ error: CAPTCHA_FAILED }).max(10_000, CAPTCHA_FAILED);

/** Telegram usernames: 5-32 of letters, digits and underscores; a leading @ is accepted and dropped. */
export const tgIdSchema = stringField('Telegram username')
  .trim()
  .transform((s) => s.replace(/^@/, ''))
  .pipe(
    z
      .string()
      .min(1, TG_ID_REQUIRED)
      .regex(/^[A-Za-z0-9_]{5,32}$/, 'Telegram username must be 5 to 32 letters, digits or underscores'),
  );

export const passwordSchema = stringField('Password')
  .min(PASSWORD_MIN, `Password must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`);

export const emailSchema = stringField('Email').trim().toLowerCase().max(254, 'Email is too long').pipe(z.email('Enter a valid email address'));

export const otpSchema = z.coerce
  .string({ error: OTP_REQUIRED })
  .trim()
  .regex(/^\d{6}$/, 'OTP must be 6 digits');

export const registerBody = z.object({
  username: requiredText('Name', 100),
  tgId: tgIdSchema,
  password: passwordSchema,
  captchaToken,
});
export const loginBody = z.object({
  tgId: tgIdSchema,
  password: stringField('Password').min(1, PASSWORD_REQUIRED).max(PASSWORD_MAX, INVALID_CREDENTIALS),
  captchaToken,
});
export const forgotPasswordBody = z.object({ email: emailSchema, captchaToken });
export const resetPasswordBody = z.object({ email: emailSchema, newPassword: passwordSchema, OTP: otpSchema, captchaToken });
export const verifyEmailBody = z.object({ email: emailSchema, OTP: otpSchema, captchaToken });
export const tokenResponse = z.object({ message: z.string(), accessToken: z.string() });

export const accessResponse = z.object({
  _id: z.string(),
  username: z.string(),
  tgId: z.string(),
  email: z.string().nullable(),
  emailVerified: z.boolean(),
  /** Dollars with two decimals. */
  balance: z.number(),
  api_key: z.string(),
  /** 'admin' opens the operator console. */
  role: z.enum(USER_ROLES),
  /** The label file format chosen in Account Setting: downloads follow it. */
  labelFormat: z.enum(LABEL_FORMATS),
  /** Account Setting: the shop asks the refund of the user's unused labels by itself (on unless turned off). */
  autoVoid: z.boolean(),
  /** Account Setting: recipients with a ToEmail get status mails (in transit, out for delivery, delivered); off unless turned on. */
  recipientEmails: z.boolean(),
  /** The shop's time zone (SHOP_TIME_ZONE): ship dates are its days (setShopTimeZone). */
  timeZone: z.string(),
});
export type AccessUser = z.infer<typeof accessResponse>;

export const changeEmailBody = z.object({ email: emailSchema });
export const autoVoidBody = z.object({ autoVoid: z.boolean() }).strict();
export const recipientEmailsBody = z.object({ on: z.boolean() }).strict();
export const changePasswordBody = z.object({
  currentPassword: stringField('Current password').min(1, 'Current password is required').max(PASSWORD_MAX),
  newPassword: passwordSchema,
});
export const apiKeyResponse = z.object({ message: z.string(), api_key: z.string() });

export type RegisterBody = z.input<typeof registerBody>;
export type LoginBody = z.input<typeof loginBody>;
export type ForgotPasswordBody = z.input<typeof forgotPasswordBody>;
export type ResetPasswordBody = z.input<typeof resetPasswordBody>;
export type VerifyEmailBody = z.input<typeof verifyEmailBody>;
export type ChangePasswordBody = z.input<typeof changePasswordBody>;
