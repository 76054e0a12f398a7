import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTCHA_FAILED } from '@portal/contract';
import { startTestApp, uniqueTgId, type TestApp } from '../../../test/harness.ts';

/** A local stand-in for the documented siteverify endpoint: form fields secret, response, remoteip; tokens valid once. */
async function startFakeSiteverify(secret: string) {
  const spent = new Set<string>();
  const requests: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      requests.push(form);
      const token = form.get('response') ?? '';
      let result: Record<string, unknown>;
      if (form.get('secret') !== secret) result = { success: false, 'error-codes': ['invalid-input-secret'] };
      else if (!token.startsWith('pass-')) result = { success: false, 'error-codes': ['invalid-input-response'] };
      else if (spent.has(token)) result = { success: false, 'error-codes': ['timeout-or-duplicate'] };
      else {
        spent.add(token);
        result = { success: true, challenge_ts: new Date().toISOString(), hostname: 'localhost' };
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(result));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/siteverify`, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe.each(['turnstile', 'recaptcha'] as const)('%s', (provider) => {
  let fake: Awaited<ReturnType<typeof startFakeSiteverify>>;
  let t: TestApp;
  beforeAll(async () => {
    fake = await startFakeSiteverify('the-secret');
    t = await startTestApp({ CAPTCHA_PROVIDER: provider, CAPTCHA_SITE_KEY: 'the-site-key', CAPTCHA_SECRET: 'the-secret', CAPTCHA_VERIFY_URL: fake.url });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('tells the page which provider and site key to use', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/config' });
    expect(res.json().captcha).toEqual({ provider, siteKey: 'the-site-key', challengeUrl: null });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/captcha/challenge' })).statusCode).toBe(404);
  });

  it('accepts a token the provider verifies, once, and sends secret, token and address', async () => {
    const body = { username: 'Siteverify User', tgId: uniqueTgId(), password: 'long enough 1', captchaToken: `pass-${uniqueTgId()}` };
    const first = await t.app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: body });
    expect(first.statusCode).toBe(200);
    const sent = fake.requests.at(-1)!;
    expect(sent.get('secret')).toBe('the-secret');
    expect(sent.get('response')).toBe(body.captchaToken);
    expect(sent.get('remoteip')).toBe('127.0.0.1');
    const replay = await t.app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { ...body, tgId: uniqueTgId() } });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().message).toBe(CAPTCHA_FAILED);
  });

  it('rejects a token the provider refuses', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { tgId: uniqueTgId(), password: 'whatever1', captchaToken: 'fail-token' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(CAPTCHA_FAILED);
  });
});

it('treats an unreachable siteverify endpoint as a failed captcha', async () => {
  const t = await startTestApp({
    CAPTCHA_PROVIDER: 'turnstile',
    CAPTCHA_SITE_KEY: 'k',
    CAPTCHA_SECRET: 's',
    CAPTCHA_VERIFY_URL: 'http://127.0.0.1:9/siteverify',
  });
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { tgId: uniqueTgId(), password: 'whatever1', captchaToken: 'pass-x' } });
  expect(res.statusCode).toBe(400);
  expect(res.json().message).toBe(CAPTCHA_FAILED);
  await t.close();
});
