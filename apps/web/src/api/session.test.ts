import { describe, expect, it } from 'vitest';
import { tokenCookieAttributes } from './session.ts';

describe('the token cookie', () => {
  it('is Secure on a page served over https, and not over http', () => {
    expect(tokenCookieAttributes('https:')).toEqual({ path: '/', sameSite: 'Lax', expires: 7, secure: true });
    expect(tokenCookieAttributes('http:')).toEqual({ path: '/', sameSite: 'Lax', expires: 7, secure: false });
  });
});
