import type { TelegramLinkResponse, TelegramSettingsResponse, TelegramTopicsBody } from '@portal/contract';
import { useQueryClient } from '@tanstack/react-query';
import { request } from './client.ts';
import { serverMessage, useApiMutation } from './mutation.ts';

export const TELEGRAM_QUERY_KEY = ['account', 'telegram'];
/** Apart from the settings' key, so saving the settings does not fetch a new link. */
export const TELEGRAM_LINK_QUERY_KEY = ['telegram-link'];
/** A link's token lasts 15 minutes: a shown link is replaced well before that. */
export const TELEGRAM_LINK_REFRESH_MS = 10 * 60_000;

export const readTelegram = () => request<TelegramSettingsResponse>('/account/telegram');
/** A deep link with a fresh one-time token (each call makes one). */
export const createTelegramLink = () => request<TelegramLinkResponse>('/account/telegram/link', { method: 'POST' });
export const saveTelegramTopics = (body: TelegramTopicsBody) => request<TelegramSettingsResponse>('/account/telegram', { method: 'PUT', body });
export const unlinkTelegram = () => request<TelegramSettingsResponse>('/account/telegram', { method: 'DELETE' });

/** A change of the Telegram settings (topics saved, chat unlinked): its answer is the settings, and a link shown before may now be for a linked account or the other way round. */
function useTelegramChange<Vars = void>(call: (vars: Vars) => Promise<TelegramSettingsResponse>) {
  const queryClient = useQueryClient();
  return useApiMutation({
    call,
    onSuccess: (answer) => {
      queryClient.setQueryData(TELEGRAM_QUERY_KEY, answer);
    },
    invalidates: [TELEGRAM_LINK_QUERY_KEY],
    successToast: serverMessage,
  });
}

export const useSaveTelegramTopics = () => useTelegramChange(saveTelegramTopics);
export const useUnlinkTelegram = () => useTelegramChange(unlinkTelegram);
