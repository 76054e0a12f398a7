import crypto from 'node:crypto';
import argon2 from 'argon2';
import {
  ACCOUNT_CREATED,
  FORGOT_PASSWORD_SENT,
  INVALID_CREDENTIALS,
  OTP_MAX_ATTEMPTS,
  OTP_TTL_MINUTES,
  centsToDollars,
  type AccessUser,
} from '@portal/contract';
import type { Db } from '../../db/database.ts';
import type { OneTimeCodesTable } from '../../db/schema.ts';
import { HttpError, badRequest, conflict, tooManyRequests, unauthorized } from '../../lib/http-errors.ts';
import { isoIn, newId, nowIso, randomToken } from '../../lib/ids.ts';
import type { Mailer } from '../../providers/mail/mailer.ts';
import type { TokenService } from './tokens.ts';
import * as users from './repository.ts';

export const OTP_INVALID = 'OTP is invalid or expired';
export const OTP_LOCKED = 'Too many wrong OTP attempts, please request a new OTP';
export const TG_ID_TAKEN = 'This Telegram username is already registered';
export const EMAIL_TAKEN = 'This email is already used by another account';

const HASH_OPTIONS = { type: argon2.argon2id } as const;
const newApiKey = () => `lp_${randomToken(24)}`;

export function toAccessUser(user: users.UserRow): AccessUser {
  return {
    _id: user.id,
    username: user.username,
    tgId: user.tg_id,
    email: user.email,
    emailVerified: user.email_verified === 1,
    balance: centsToDollars(user.balance_cents),
    api_key: user.api_key,
  };
}

export function createAuthService(deps: { db: Db; mailer: Mailer; tokens: TokenService; codePepper: string }) {
  const { db, mailer, tokens } = deps;
  // Verifying against a real hash when the account does not exist keeps both answers equally slow.
  const dummyHash = argon2.hash(randomToken(), HASH_OPTIONS);

  const hashCode = (codeId: string, code: string) => crypto.createHmac('sha256', deps.codePepper).update(`${codeId}:${code}`).digest('hex');
  const issueFor = (user: users.UserRow) => tokens.issue({ userId: user.id, tokenVersion: user.token_version });

  async function mailCode(user: users.UserRow, email: string, purpose: OneTimeCodesTable['purpose']): Promise<void> {
    const code = String(crypto.randomInt(0, 1_000_000)).padStart(6, '0');
    const id = newId();
    await users.insertCode(db, {
      id,
      user_id: user.id,
      purpose,
      email,
      code_hash: hashCode(id, code),
      attempts: 0,
      expires_at: isoIn(OTP_TTL_MINUTES * 60_000),
      used_at: null,
      created_at: nowIso(),
    });
    const what = purpose === 'verify_email' ? 'verify your email' : 'reset your password';
    await mailer.send({
      to: email,
      subject: purpose === 'verify_email' ? 'Your email verification code' : 'Your password reset code',
      text: `Hello ${user.username},\n\nYour code to ${what} is ${code}.\nIt expires in ${OTP_TTL_MINUTES} minutes and can be used once.\n\nIf you did not ask for it, ignore this message.`,
    });
  }

  /** Spends the newest code for this email if it matches; wrong tries count towards the lock. */
  async function spendCode(email: string, purpose: OneTimeCodesTable['purpose'], code: string): Promise<OneTimeCodesTable> {
    const row = await users.findLatestCode(db, email, purpose);
    if (!row || row.expires_at <= nowIso()) throw badRequest(OTP_INVALID);
    if (row.attempts >= OTP_MAX_ATTEMPTS) throw tooManyRequests(OTP_LOCKED);
    const expected = Buffer.from(row.code_hash, 'hex');
    const given = Buffer.from(hashCode(row.id, code), 'hex');
    if (!crypto.timingSafeEqual(expected, given)) {
      await users.countCodeAttempt(db, row.id);
      throw badRequest(OTP_INVALID);
    }
    if (!(await users.spendCode(db, row.id, nowIso()))) throw badRequest(OTP_INVALID);
    return row;
  }

  return {
    async register(input: { username: string; tgId: string; password: string }): Promise<{ message: string }> {
      const inserted = await users.insertUser(db, {
        id: newId(),
        username: input.username,
        tg_id: input.tgId,
        tg_id_lower: input.tgId.toLowerCase(),
        password_hash: await argon2.hash(input.password, HASH_OPTIONS),
        email: null,
        email_verified: 0,
        balance_cents: 0,
        api_key: newApiKey(),
        token_version: 0,
        created_at: nowIso(),
      });
      if (!inserted) throw conflict(TG_ID_TAKEN);
      return { message: ACCOUNT_CREATED };
    },

    async login(input: { tgId: string; password: string }): Promise<{ message: string; accessToken: string }> {
      const user = await users.findUserByTgId(db, input.tgId);
      const ok = await argon2.verify(user?.password_hash ?? (await dummyHash), input.password);
      if (!user || !ok) throw unauthorized(INVALID_CREDENTIALS);
      return { message: 'Logged in successfully', accessToken: await issueFor(user) };
    },

    /** The signed-in user for a bearer token, or null when the token is bad, expired or revoked. */
    async userForToken(token: string): Promise<users.UserRow | null> {
      const claims = await tokens.read(token);
      if (!claims) return null;
      const user = await users.findUserById(db, claims.userId);
      return user && user.token_version === claims.tokenVersion ? user : null;
    },

    async requestEmailVerification(userId: string, email: string): Promise<{ message: string }> {
      const owner = await users.findUserByVerifiedEmail(db, email);
      if (owner && owner.id !== userId) throw conflict(EMAIL_TAKEN);
      const user = await users.findUserById(db, userId);
      if (!user) throw unauthorized();
      if (user.email !== email || user.email_verified !== 1) {
        await users.updateUser(db, userId, { email, email_verified: 0 });
      }
      await mailCode(user, email, 'verify_email');
      return { message: `An OTP has been sent to ${email}` };
    },

    async verifyEmail(input: { email: string; OTP: string }): Promise<{ message: string; accessToken: string }> {
      const code = await spendCode(input.email, 'verify_email', input.OTP);
      const user = await users.findUserById(db, code.user_id);
      if (!user || user.email !== input.email) throw badRequest(OTP_INVALID);
      const owner = await users.findUserByVerifiedEmail(db, input.email);
      if (owner && owner.id !== user.id) throw conflict(EMAIL_TAKEN);
      try {
        await users.updateUser(db, user.id, { email_verified: 1 });
      } catch {
        throw conflict(EMAIL_TAKEN); // another account verified it at the same moment
      }
      return { message: 'Email verified successfully', accessToken: await issueFor(user) };
    },

    async forgotPassword(email: string): Promise<{ message: string }> {
      const user = await users.findUserByVerifiedEmail(db, email);
      if (user) await mailCode(user, email, 'reset_password');
      return { message: FORGOT_PASSWORD_SENT };
    },

    async resetPassword(input: { email: string; OTP: string; newPassword: string }): Promise<{ message: string; accessToken: string }> {
      const code = await spendCode(input.email, 'reset_password', input.OTP);
      const user = await users.findUserById(db, code.user_id);
      if (!user || user.email !== input.email || user.email_verified !== 1) throw badRequest(OTP_INVALID);
      const tokenVersion = user.token_version + 1; // signs out every other session
      await users.updateUser(db, user.id, { password_hash: await argon2.hash(input.newPassword, HASH_OPTIONS), token_version: tokenVersion });
      return { message: 'Password reset successfully', accessToken: await tokens.issue({ userId: user.id, tokenVersion }) };
    },

    async changePassword(userId: string, input: { currentPassword: string; newPassword: string }): Promise<{ message: string; accessToken: string }> {
      const user = await users.findUserById(db, userId);
      if (!user) throw unauthorized();
      if (!(await argon2.verify(user.password_hash, input.currentPassword))) throw new HttpError(400, 'Current password is wrong');
      const tokenVersion = user.token_version + 1;
      await users.updateUser(db, userId, { password_hash: await argon2.hash(input.newPassword, HASH_OPTIONS), token_version: tokenVersion });
      return { message: 'Password changed successfully', accessToken: await tokens.issue({ userId, tokenVersion }) };
    },

    async regenerateApiKey(userId: string): Promise<{ message: string; api_key: string }> {
      const apiKey = newApiKey();
      await users.updateUser(db, userId, { api_key: apiKey });
      return { message: 'API key regenerated', api_key: apiKey };
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;
