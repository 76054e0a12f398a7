import type { ChangePasswordBody, LabelFormat } from '@portal/contract';
import { request } from './client.ts';
import { accessQuery } from './current-user.ts';
import { serverMessage, useApiMutation } from './mutation.ts';
import { setStoredEmail, setToken } from './session.ts';

// Account Setting's writes (/account/...): its email, password and API key.

export const changeEmail = (email: string) => request<{ message: string }>('/account/email', { method: 'POST', body: { email } });
export const changePassword = (body: ChangePasswordBody) => request<{ message: string; accessToken: string }>('/account/password', { method: 'POST', body });
export const setLabelFormat = (labelFormat: LabelFormat) => request<{ message: string }>('/account/label-format', { method: 'POST', body: { labelFormat } });
export const setAutoVoid = (autoVoid: boolean) => request<{ message: string }>('/account/auto-void', { method: 'POST', body: { autoVoid } });
export const setRecipientEmails = (on: boolean) => request<{ message: string }>('/account/recipient-emails', { method: 'POST', body: { on } });
export const regenerateApiKey = () => request<{ message: string; api_key: string }>('/account/api-key', { method: 'POST' });

/** Send OTP: a code mailed to the new address, which the verify screen asks for. */
export const useChangeEmail = () => useApiMutation({ call: changeEmail, onSuccess: (_answer, email) => setStoredEmail(email), successToast: serverMessage });

/** Change Password: other sessions are signed out; this one keeps going with the new token. */
export const useChangePassword = () =>
  useApiMutation({ call: changePassword, onSuccess: ({ accessToken }) => setToken(accessToken), successToast: serverMessage });

/** Regenerate: the old key stops working at once; the new one is read with the access check. */
export const useRegenerateApiKey = () =>
  useApiMutation({ call: regenerateApiKey, invalidates: [accessQuery().queryKey], successToast: () => 'API key regenerated' });

/** Label format: downloads (single, bulk, selected) come in it from now on. */
export const useSetLabelFormat = () => useApiMutation({ call: setLabelFormat, invalidates: [accessQuery().queryKey], successToast: serverMessage });

/** Automatic voids of unused labels: on or off for the account. */
export const useSetAutoVoid = () => useApiMutation({ call: setAutoVoid, invalidates: [accessQuery().queryKey], successToast: serverMessage });

/** Status mails to the recipients of the account's labels (those with a ToEmail): on or off. */
export const useSetRecipientEmails = () => useApiMutation({ call: setRecipientEmails, invalidates: [accessQuery().queryKey], successToast: serverMessage });
