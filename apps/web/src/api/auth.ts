import {
  setShopTimeZone,
  type AccessUser,
  type ForgotPasswordBody,
  type LoginBody,
  type PublicConfig,
  type RegisterBody,
  type ResetPasswordBody,
  type VerifyEmailBody,
} from '@portal/contract';
import { queryOptions } from '@tanstack/react-query';
import { request } from './client.ts';
import { removeToken } from './session.ts';

type Message = { message: string };
type Token = { message: string; accessToken: string };

/** The access check; its answer also names the shop's time zone, whose days the order forms' ship dates are. */
export const readAccess = () =>
  request<AccessUser>('/auth/access', { redirectOn401: false }).then((access) => {
    setShopTimeZone(access.timeZone);
    return access;
  });
export const login = (body: LoginBody) => request<Token>('/auth/login', { method: 'POST', body, auth: false });
export const register = (body: RegisterBody) => request<Message>('/auth/register', { method: 'POST', body, auth: false });
export const forgotPassword = (body: ForgotPasswordBody) => request<Message>('/auth/forgotPassword', { method: 'POST', body, auth: false });
export const resetPassword = (body: ResetPasswordBody) => request<Token>('/auth/resetPassword', { method: 'POST', body, auth: false });
export const verifyEmail = (body: VerifyEmailBody) => request<Token>('/auth/verifyEmail', { method: 'POST', body, auth: false });
export const readPublicConfig = () => request<PublicConfig>('/config', { auth: false });
/** The shop's public settings (captcha, Telegram bot): read once per page load. */
export const publicConfigQuery = () => queryOptions({ queryKey: ['public-config'], queryFn: readPublicConfig, staleTime: Infinity });

/**
 * Sign out: the server ends this session's token first (refused at once on every process), then the cookie goes and
 * the page starts again signed out. The cookie goes even when the call fails (offline, or the session already over).
 */
export async function signOut() {
  try {
    await request<Message>('/auth/logout', { method: 'POST', redirectOn401: false });
  } catch {
    // Nothing more to end on the server, or it cannot be reached: this browser forgets the token either way.
  }
  removeToken();
  window.location.reload();
}
