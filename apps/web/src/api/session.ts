import Cookies from 'js-cookie';
import { keepNotice, takeReturnPath } from './session-expiry.ts';

const TOKEN_COOKIE = 'token';
const STORED_EMAIL = 'email';

export const getToken = () => Cookies.get(TOKEN_COOKIE);
/** The token cookie's attributes: Secure on a page served over https, so the browser never sends it over plain http (a page on http, a laptop, still keeps it). */
export const tokenCookieAttributes = (protocol: string) => ({ path: '/', sameSite: 'Lax', expires: 7, secure: protocol === 'https:' }) as const;
export const setToken = (token: string) => Cookies.set(TOKEN_COOKIE, token, tokenCookieAttributes(window.location.protocol));
export const removeToken = () => Cookies.remove(TOKEN_COOKIE, { path: '/' });

/** The email typed on one auth screen and needed on the next (forgot -> reset, settings -> verify). */
export const getStoredEmail = () => localStorage.getItem(STORED_EMAIL) ?? '';
export const setStoredEmail = (email: string) => localStorage.setItem(STORED_EMAIL, email);
export const clearStoredEmail = () => localStorage.removeItem(STORED_EMAIL);

/** Login, reset and verify all end the same way: keep the token and reload at the root (or where an expired session left the user). */
export function signInWith(token: string, notice?: string) {
  setToken(token);
  if (notice) keepNotice(notice);
  window.location.assign(takeReturnPath());
}
