import type { TelegramLinkResponse, TelegramSettingsResponse, TelegramTopicsBody } from '@portal/contract';
import { queryOptions, useQueryClient } from '@tanstack/react-query';
import { request } from './client.ts';
import { serverMessage, useApiMutation } from './mutation.ts';

/** A link's token lasts 15 minutes: a shown link is replaced well before that. */
const TELEGRAM_LINK_REFRESH_MS = 10 * 60_000;

export const readTelegram = () => request<TelegramSettingsResponse>('/account/telegram');
/** A deep link with a fresh one-time token (each call makes one). */
export const createTelegramLink = () => request<TelegramLinkResponse>('/account/telegram/link', { method: 'POST' });

export const telegramQuery = () => queryOptions({ queryKey: ['account', 'telegram'], queryFn: readTelegram });
/** Apart from the settings' key, so saving the settings does not fetch a new link; replaced while shown. */
export const telegramLinkQuery = () =>
  queryOptions({
    queryKey: ['telegram-link'],
    queryFn: createTelegramLink,
    staleTime: TELEGRAM_LINK_REFRESH_MS / 2,
    refetchInterval: TELEGRAM_LINK_REFRESH_MS,
  });
export const saveTelegramTopics = (body: TelegramTopicsBody) => request<TelegramSettingsResponse>('/account/telegram', { method: 'PUT', body });
export const unlinkTelegram = () => request<TelegramSettingsResponse>('/account/telegram', { method: 'DELETE' });

/** A change of the Telegram settings (topics saved, chat unlinked): its answer is the settings, and a link shown before may now be for a linked account or the other way round. */
function useTelegramChange<Vars = void>(call: (vars: Vars) => Promise<TelegramSettingsResponse>) {
  const queryClient = useQueryClient();
  return useApiMutation({
    call,
    onSuccess: (answer) => {
      queryClient.setQueryData(telegramQuery().queryKey, answer);
    },
    invalidates: [telegramLinkQuery().queryKey],
    successToast: serverMessage,
  });
}

export const useSaveTelegramTopics = () => useTelegramChange(saveTelegramTopics);
export const useUnlinkTelegram = () => useTelegramChange(unlinkTelegram);
