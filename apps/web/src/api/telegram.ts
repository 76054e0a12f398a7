import type { TelegramLinkResponse, TelegramSettingsResponse, TelegramTopicsBody } from '@portal/contract';
import { request } from './client.ts';

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
