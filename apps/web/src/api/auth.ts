import type {
  AccessUser,
  ChangePasswordBody,
  ForgotPasswordBody,
  LoginBody,
  PublicConfig,
  RegisterBody,
  ResetPasswordBody,
  VerifyEmailBody,
} from '@portal/contract';
import { request } from './client.ts';

type Message = { message: string };
type Token = { message: string; accessToken: string };

export const readAccess = () => request<AccessUser>('/auth/access', { redirectOn401: false });
export const login = (body: LoginBody) => request<Token>('/auth/login', { method: 'POST', body, auth: false });
export const register = (body: RegisterBody) => request<Message>('/auth/register', { method: 'POST', body, auth: false });
export const forgotPassword = (body: ForgotPasswordBody) => request<Message>('/auth/forgotPassword', { method: 'POST', body, auth: false });
export const resetPassword = (body: ResetPasswordBody) => request<Token>('/auth/resetPassword', { method: 'POST', body, auth: false });
export const verifyEmail = (body: VerifyEmailBody) => request<Token>('/auth/verifyEmail', { method: 'POST', body, auth: false });
export const readPublicConfig = () => request<PublicConfig>('/config', { auth: false });

export const changeEmail = (email: string) => request<Message>('/account/email', { method: 'POST', body: { email } });
export const changePassword = (body: ChangePasswordBody) => request<Token>('/account/password', { method: 'POST', body });
export const regenerateApiKey = () => request<{ message: string; api_key: string }>('/account/api-key', { method: 'POST' });
