import { RESELLER_API_PREFIX, RESELLER_OPENAPI_PATH, type WebhookSettingsBody, type WebhookSettingsResponse } from '@portal/contract';
import { queryOptions, useQueryClient } from '@tanstack/react-query';
import { API_BASE, errorMessage, request } from './client.ts';
import { serverMessage, useApiMutation } from './mutation.ts';

/** The reseller API's address as this page reaches it: the API host when one is configured, else the page's own origin (the server serves the app). */
export const resellerBaseUrl = () => `${API_BASE || window.location.origin}${RESELLER_API_PREFIX}`;

/** The served OpenAPI document; it needs no key. */
export const readResellerDocument = () => request<Record<string, unknown>>(RESELLER_OPENAPI_PATH, { prefix: '', auth: false });
export const resellerDocumentQuery = () => queryOptions({ queryKey: ['reseller-openapi'], queryFn: readResellerDocument, staleTime: Infinity });

export const readWebhook = () => request<WebhookSettingsResponse>('/account/webhook');
export const webhookQuery = () => queryOptions({ queryKey: ['account', 'webhook'], queryFn: readWebhook });
export const saveWebhook = (body: WebhookSettingsBody) => request<WebhookSettingsResponse>('/account/webhook', { method: 'PUT', body });
export const rotateWebhookSecret = () => request<{ message: string; secret: string }>('/account/webhook/secret', { method: 'POST' });

/** Save (or, with url null, remove) the webhook. The answer becomes the settings, without the secret it may carry: that one is the caller's to show once. */
export function useSaveWebhook() {
  const queryClient = useQueryClient();
  return useApiMutation({
    call: saveWebhook,
    onSuccess: ({ secret: _secret, ...settings }) => {
      queryClient.setQueryData(webhookQuery().queryKey, settings);
    },
    successToast: serverMessage,
    // One message per error: the card shows why a URL was refused under its field; a failed removal has no field, so it is a toast.
    errorToast: (error, body) => (body.url === null ? errorMessage(error) : null),
  });
}

/** A new signing secret, which the answer carries once. */
export const useRotateWebhookSecret = () => useApiMutation({ call: rotateWebhookSecret, successToast: serverMessage });
