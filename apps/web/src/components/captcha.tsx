import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import type {} from 'altcha/types/react';
import { API_BASE } from '../api/client.ts';
import { publicConfigQuery } from '../api/auth.ts';

export type CaptchaHandle = {
  /** A fresh solution for one request: solves the challenge now if it has not been solved yet. */
  getToken(): Promise<string>;
  /** Tokens are single use: call after every submit. */
  reset(): void;
};

type HostedCaptcha = {
  render(el: HTMLElement, options: Record<string, unknown>): string | number;
  execute?(id?: string | number): void;
  reset(id?: string | number): void;
};
declare global {
  interface Window {
    grecaptcha?: HostedCaptcha;
    turnstile?: HostedCaptcha;
  }
}

const HOSTED_SCRIPTS = {
  recaptcha: { url: 'https://www.google.com/recaptcha/api.js?render=explicit', global: 'grecaptcha' },
  turnstile: { url: 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit', global: 'turnstile' },
} as const;

/**
 * The ALTCHA widget's script (it defines <altcha-widget>) comes in its own chunk: a visible widget
 * loads it when it shows, an invisible one when its first token is asked for, so the sign-in page
 * does not download it before the user signs in.
 */
const loadAltcha = () => import('altcha');

/**
 * A page opened over plain http at a network address is no secure context: the ALTCHA widget then
 * refuses to run (it hashes with crypto.subtle). The same proof of work is solved here with a
 * JavaScript SHA-256, yielding to the page every few thousand tries; the server checks it the same way.
 */
async function solveAltchaInPage(challengeUrl: string): Promise<string> {
  const [{ sha256 }, { bytesToHex }] = await Promise.all([import('@noble/hashes/sha2'), import('@noble/hashes/utils')]);
  const response = await fetch(`${API_BASE}${challengeUrl}`);
  if (!response.ok) throw new Error('Captcha verification failed');
  const challenge = (await response.json()) as { algorithm: string; challenge: string; maxnumber: number; salt: string; signature: string };
  for (let number = 0; number <= challenge.maxnumber; number++) {
    if (bytesToHex(sha256(challenge.salt + number)) === challenge.challenge) return btoa(JSON.stringify({ ...challenge, number }));
    if (number % 5000 === 4999) await new Promise((r) => setTimeout(r));
  }
  throw new Error('Captcha verification failed');
}

function loadScript(src: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (document.querySelector(`script[src="${src}"]`)) return resolve();
    const script = Object.assign(document.createElement('script'), { src, async: true, onload: () => resolve(), onerror: reject });
    document.head.appendChild(script);
  });
}

/** Waits a while for what `get` answers: a click right after the page opened still goes through once the captcha is ready. */
async function whenReady<T>(get: () => T | null | undefined): Promise<T> {
  for (const until = Date.now() + 15_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    const value = get();
    if (value) return value;
  }
  throw new Error('Captcha is still loading, please try again');
}

/** The captcha the server is configured for: ALTCHA proof of work by default, or reCAPTCHA / Turnstile. */
export const Captcha = forwardRef<CaptchaHandle, { invisible?: boolean }>(function Captcha({ invisible = false }, ref) {
  const config = useQuery(publicConfigQuery());
  const altchaRef = useRef<HTMLElementTagNameMap['altcha-widget']>(null);
  const hostedRef = useRef<HTMLDivElement>(null);
  const hosted = useRef<{ id?: string | number; token?: string; waiting?: (token: string) => void }>({});
  const captcha = config.data?.captcha;
  const latest = useRef(captcha);
  useEffect(() => {
    latest.current = captcha;
  }, [captcha]);

  useEffect(() => {
    if (captcha?.provider === 'altcha' && !invisible && window.isSecureContext) void loadAltcha();
  }, [captcha, invisible]);

  useEffect(() => {
    if (!captcha || captcha.provider === 'altcha' || !hostedRef.current) return;
    const { url, global } = HOSTED_SCRIPTS[captcha.provider];
    const el = hostedRef.current;
    let cancelled = false;
    // Without its script the widget stays empty, and getToken asks the user to complete the captcha.
    loadScript(url)
      .then(async () => {
        while (!window[global] && !cancelled) await new Promise((r) => setTimeout(r, 100));
        if (cancelled) return;
        hosted.current.id = window[global]!.render(el, {
          sitekey: captcha.siteKey,
          size: invisible && captcha.provider === 'recaptcha' ? 'invisible' : 'normal',
          callback: (token: string) => {
            hosted.current.token = token;
            hosted.current.waiting?.(token);
          },
        });
      })
      .catch((error: unknown) => console.error('The captcha did not load', error));
    return () => {
      cancelled = true;
    };
  }, [captcha, invisible]);

  useImperativeHandle(ref, () => ({
    async getToken() {
      const captcha = await whenReady(() => latest.current);
      if (captcha.provider === 'altcha') {
        if (!window.isSecureContext) return solveAltchaInPage(captcha.challengeUrl!);
        await loadAltcha();
        const widget = await whenReady(() => altchaRef.current);
        const result = await widget.verify();
        if (!result?.payload) throw new Error('Captcha verification failed');
        return result.payload;
      }
      if (hosted.current.token) return hosted.current.token;
      const api = window[HOSTED_SCRIPTS[captcha.provider].global];
      if (captcha.provider === 'recaptcha' && invisible) api?.execute?.(hosted.current.id);
      else throw new Error('Please complete the captcha');
      return new Promise<string>((resolve) => (hosted.current.waiting = resolve));
    },
    reset() {
      if (captcha?.provider === 'altcha') altchaRef.current?.reset();
      else if (captcha) {
        hosted.current.token = undefined;
        window[HOSTED_SCRIPTS[captcha.provider].global]?.reset(hosted.current.id);
      }
    },
  }));

  if (!captcha) return null;
  if (captcha.provider !== 'altcha') return <div ref={hostedRef} className="my-2" />;
  if (!window.isSecureContext) return null;
  return (
    <div className={invisible ? 'd-none' : 'my-2'} data-testid="captcha">
      <altcha-widget
        ref={altchaRef}
        challenge={`${API_BASE}${captcha.challengeUrl}`}
        display={invisible ? 'invisible' : 'standard'}
        auto="off"
        name="captchaToken"
      />
    </div>
  );
});
