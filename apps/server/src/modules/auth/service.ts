import crypto from 'node:crypto';
import argon2 from 'argon2';
import {
  ACCOUNT_CREATED,
  ACCOUNT_DISABLED,
  FORGOT_PASSWORD_SENT,
  INVALID_CREDENTIALS,
  SIGNED_OUT,
  OTP_MAX_ATTEMPTS,
  OTP_TTL_MINUTES,
  centsToDollars,
  getShopTimeZone,
  type AccessUser,
  type UserRole,
  DEFAULT_LABEL_FORMAT,
  LABEL_FORMAT_SAVED,
  AUTO_VOID_OFF,
  AUTO_VOID_ON,
  RECIPIENT_EMAILS_OFF,
  RECIPIENT_EMAILS_ON,
  type LabelFormat,
} from '@portal/contract';
import type { Db } from '../../db/database.ts';
import type { OneTimeCodesTable } from '../../db/schema.ts';
import { HttpError, badRequest, conflict, notFound, tooManyRequests, unauthorized } from '../../lib/http-errors.ts';
import type { AuditHook } from '../../lib/audit.ts';
import { batchedReads } from '../../lib/batched-reads.ts';
import { isoIn, newId, nowIso, randomToken, sha256Hex } from '../../lib/ids.ts';
import { SEALED_PREFIX, type SealedBox } from '../../lib/sealed-box.ts';
import type { Mailer } from '../../providers/mail/mailer.ts';
import type { TokenService } from './tokens.ts';
import * as users from './repository.ts';

export const OTP_INVALID = 'OTP is invalid or expired';
export const OTP_LOCKED = 'Too many wrong OTP attempts, please request a new OTP';
export const TG_ID_TAKEN = 'This Telegram username is already registered';
export const EMAIL_TAKEN = 'This email is already used by another account';

export const USER_NOT_FOUND = 'User not found';

/**
 * What a password hash costs: argon2id's own default in the shop (64 MiB, 3 passes, 4 lanes, about half a second of
 * CPU). Tests build their apps with a cheaper one (ServiceOverrides.passwordCost): a sign-up costs two hashes.
 */
export type PasswordCost = { memoryCost: number; timeCost: number; parallelism: number };
/** Last activity is written at most this often per user: the console's "Last active" is the last request, to the minute. */
const ACTIVITY_STEP_MS = 60_000;
const newApiKey = () => `lp_${randomToken(24)}`;
/** A user's API key is sealed with its user id as context, so a sealed key copied to another row does not open. */
const apiKeyContext = (userId: string) => `api-key:${userId}`;

export function toAccessUser(user: users.UserRow, apiKey: string): AccessUser {
  return {
    _id: user.id,
    username: user.username,
    tgId: user.tg_id,
    email: user.email,
    emailVerified: user.email_verified === 1,
    balance: centsToDollars(user.balance_cents),
    api_key: apiKey,
    role: user.role,
    labelFormat: user.label_format,
    autoVoid: user.auto_void === 1,
    recipientEmails: user.recipient_emails === 1,
    timeZone: getShopTimeZone(),
  };
}

/** A disabled account is refused with 403 and a message saying so; its balance and history stay. */
function refuseDisabled(user: users.UserRow): void {
  if (user.disabled_at) throw new HttpError(403, ACCOUNT_DISABLED);
}

export function createAuthService(deps: {
  db: Db;
  mailer: Mailer;
  tokens: TokenService;
  codePepper: string;
  sealedBox: SealedBox;
  passwordCost?: PasswordCost;
}) {
  const { db, mailer, tokens, sealedBox } = deps;
  const HASH_OPTIONS = { type: argon2.argon2id, ...deps.passwordCost } as const;

  /** What a user row keeps of an API key: only its hash (for lookups) and the key sealed (for Account Setting). */
  const storedApiKey = (userId: string, apiKey: string) => ({ api_key_sealed: sealedBox.seal(apiKey, apiKeyContext(userId)), api_key_hash: sha256Hex(apiKey) });
  const openApiKey = (user: users.UserRow): string => {
    if (!sealedBox.isSealed(user.api_key_sealed)) return user.api_key_sealed; // not sealed yet (sealPlainApiKeys runs at start)
    try {
      return sealedBox.open(user.api_key_sealed, apiKeyContext(user.id));
    } catch {
      return ''; // sealed with another server key (SECRETS_KEY changed): the user regenerates it
    }
  };
  // Verifying against a real hash when the account does not exist keeps both answers equally slow.
  const dummyHash = argon2.hash(randomToken(), HASH_OPTIONS);

  const hashCode = (codeId: string, code: string) => crypto.createHmac('sha256', deps.codePepper).update(`${codeId}:${code}`).digest('hex');
  const issueFor = (user: users.UserRow) => {
    refuseDisabled(user);
    return tokens.issue({ userId: user.id, tokenVersion: user.token_version });
  };
  /**
   * The users of the requests that come in the same turn are read in one statement, with whether each request's token
   * was revoked (signed out). Keys are `<user id> <token id>` (an empty token id for a token issued without one).
   */
  const userOfToken = batchedReads(async (keys) => {
    const asked = keys.map((key) => key.split(' ') as [string, string]);
    const rows = await users.findUsersWithRevokedTokens(db, [...new Set(asked.map(([userId]) => userId))], asked.map(([, tokenId]) => tokenId).filter(Boolean));
    const byId = new Map<string, users.UserRow>();
    const revoked = new Set<string>();
    for (const { revoked_jti, ...user } of rows) {
      byId.set(user.id, user);
      if (revoked_jti) revoked.add(revoked_jti);
    }
    return new Map(asked.map(([userId, tokenId], i) => [keys[i], { user: byId.get(userId), revoked: revoked.has(tokenId) }]));
  });

  /** Notes that the user signed in or used the account, at most once a minute (the console's active users and Last active). */
  async function noteActivity(user: users.UserRow, force = false): Promise<void> {
    const now = Date.now();
    if (!force && user.last_active_at && Date.parse(user.last_active_at) > now - ACTIVITY_STEP_MS) return;
    await users.updateUser(db, user.id, { last_active_at: new Date(now).toISOString() });
  }

  /**
   * Brings one account to a role or disabled state in a transaction that also writes the audit row;
   * nothing is written when it already is so. 404 for an unknown user.
   */
  async function changeAccount(userId: string, wanted: { role?: UserRole; disabled?: boolean }, audit: AuditHook): Promise<users.UserRow> {
    return db.transaction().execute(async (trx) => {
      const before = await users.findUserById(trx, userId);
      if (!before) throw notFound(USER_NOT_FOUND);
      const changes: Partial<users.UserRow> = {};
      if (wanted.role && wanted.role !== before.role) changes.role = wanted.role;
      if (wanted.disabled !== undefined && wanted.disabled !== Boolean(before.disabled_at)) changes.disabled_at = wanted.disabled ? nowIso() : null;
      if (Object.keys(changes).length === 0) return before;
      await users.updateUser(trx, userId, changes);
      const after = { ...before, ...changes };
      await audit(trx, { targetId: userId, before: accountState(before), after: accountState(after) });
      return after;
    });
  }

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
    if (row.attempts >= OTP_MAX_ATTEMPTS) throw tooManyRequests((Date.parse(row.expires_at) - Date.now()) / 1000, OTP_LOCKED);
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
      const id = newId();
      const inserted = await users.insertUser(db, {
        id,
        username: input.username,
        tg_id: input.tgId,
        tg_id_lower: input.tgId.toLowerCase(),
        password_hash: await argon2.hash(input.password, HASH_OPTIONS),
        email: null,
        email_verified: 0,
        balance_cents: 0,
        ...storedApiKey(id, newApiKey()),
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
      const accessToken = await issueFor(user);
      await noteActivity(user, true);
      return { message: 'Logged in successfully', accessToken };
    },

    /** The signed-in user for a bearer token, or null when the token is bad, expired or revoked; 403 for a disabled account. */
    async userForToken(token: string): Promise<users.UserRow | null> {
      const claims = await tokens.read(token);
      if (!claims) return null;
      const found = await userOfToken(`${claims.userId} ${claims.tokenId ?? ''}`);
      if (!found?.user || found.revoked) return null;
      const user = { ...found.user }; // each request its own row: one read may answer several
      if (user.token_version !== claims.tokenVersion) return null;
      refuseDisabled(user);
      await noteActivity(user);
      return user;
    },
    /**
     * Signs out the session of this token on every process: the token's id is kept as revoked until the token would
     * have expired, and the account's other sessions go on. A token issued before tokens had ids can only be ended
     * with every session of the account (its token version raised).
     */
    async logout(token: string): Promise<{ message: string }> {
      const claims = await tokens.read(token);
      if (!claims) throw unauthorized();
      if (claims.tokenId) await users.revokeToken(db, { jti: claims.tokenId, user_id: claims.userId, expires_at: claims.expiresAt }, nowIso());
      else await users.updateUser(db, claims.userId, { token_version: claims.tokenVersion + 1 });
      return { message: SIGNED_OUT };
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
      if (user && !user.disabled_at) await mailCode(user, email, 'reset_password');
      return { message: FORGOT_PASSWORD_SENT };
    },

    async resetPassword(input: { email: string; OTP: string; newPassword: string }): Promise<{ message: string; accessToken: string }> {
      const code = await spendCode(input.email, 'reset_password', input.OTP);
      const user = await users.findUserById(db, code.user_id);
      if (!user || user.email !== input.email || user.email_verified !== 1) throw badRequest(OTP_INVALID);
      refuseDisabled(user);
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

    /** The signed-in user as /auth/access shows it. */
    async accessUser(userId: string): Promise<AccessUser> {
      const user = await users.findUserById(db, userId);
      if (!user) throw unauthorized();
      return toAccessUser(user, openApiKey(user));
    },

    /** Gives or takes the admin role (the console, or the command line with `npm run admin`). */
    setRole(userId: string, role: UserRole, audit: AuditHook): Promise<users.UserRow> {
      return changeAccount(userId, { role }, audit);
    },
    /** Disables or enables an account; a disabled one is refused at sign-in, with its tokens and its API key. */
    setDisabled(userId: string, disabled: boolean, audit: AuditHook): Promise<users.UserRow> {
      return changeAccount(userId, { disabled }, audit);
    },
    /** A user by Telegram username (with or without @, any case), or undefined. */
    findByTgId(tgId: string): Promise<users.UserRow | undefined> {
      return users.findUserByTgId(db, tgId.replace(/^@/, ''));
    },

    /** A new key replaces the old one at once: the old key's hash no longer finds the user. */
    async regenerateApiKey(userId: string): Promise<{ message: string; api_key: string }> {
      const apiKey = newApiKey();
      await users.updateUser(db, userId, storedApiKey(userId, apiKey));
      return { message: 'API key regenerated', api_key: apiKey };
    },

    /** The label file format downloads follow (Account Setting). */
    async setLabelFormat(userId: string, labelFormat: LabelFormat): Promise<{ message: string }> {
      await users.updateUser(db, userId, { label_format: labelFormat });
      return { message: LABEL_FORMAT_SAVED };
    },
    async setAutoVoid(userId: string, autoVoid: boolean): Promise<{ message: string }> {
      await users.updateUser(db, userId, { auto_void: autoVoid ? 1 : 0 });
      return { message: autoVoid ? AUTO_VOID_ON : AUTO_VOID_OFF };
    },
    /** POST /account/recipient-emails: status mails to the recipients of the user's labels with a ToEmail, on or off. */
    async setRecipientEmails(userId: string, on: boolean): Promise<{ message: string }> {
      await users.updateUser(db, userId, { recipient_emails: on ? 1 : 0 });
      return { message: on ? RECIPIENT_EMAILS_ON : RECIPIENT_EMAILS_OFF };
    },
    async labelFormatOf(userId: string): Promise<LabelFormat> {
      return (await users.findUserById(db, userId))?.label_format ?? DEFAULT_LABEL_FORMAT;
    },

    /**
     * The user an x-api-key belongs to, or null (401): found by the key's SHA-256 through its unique
     * index, then the stored hash compared in constant time.
     */
    async userForApiKey(apiKey: string): Promise<users.UserRow | null> {
      if (!apiKey || apiKey.length > 200) return null;
      const hash = sha256Hex(apiKey);
      const user = await users.findUserByApiKeyHash(db, hash);
      if (!user || !crypto.timingSafeEqual(Buffer.from(user.api_key_hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
      refuseDisabled(user);
      await noteActivity(user);
      return user;
    },

    /** Seals API keys still kept plain (those of accounts made before keys were sealed); run at start. */
    async sealPlainApiKeys(): Promise<number> {
      const plain = (await users.listUnsealedApiKeys(db, SEALED_PREFIX)).filter((u) => !sealedBox.isSealed(u.api_key_sealed));
      for (const user of plain) await users.updateUser(db, user.id, storedApiKey(user.id, user.api_key_sealed));
      return plain.length;
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;

/** The parts of an account the console changes, as the audit log records them. */
const accountState = (user: users.UserRow) => ({ role: user.role, disabled: Boolean(user.disabled_at) });
