import { afterAll, beforeAll, expect, it } from 'vitest';
import { solveCaptcha, startTestApp, type TestApp } from './harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '5' });
});
afterAll(() => t.close());

it('answers 429 once brute force on one account passes the limit', async () => {
  const attempt = async () => t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { tgId: 'victim_account', password: 'guess guess', captchaToken: await solveCaptcha(t.app) } });
  for (let i = 0; i < 5; i++) expect((await attempt()).statusCode).toBe(401);
  const blocked = await attempt();
  expect(blocked.statusCode).toBe(429);
  expect(blocked.json().message).toBe('Too many attempts, please try again later');
});

it('limits forgot-password per account too', async () => {
  const attempt = async () => t.app.inject({ method: 'POST', url: '/api/v1/auth/forgotPassword', payload: { email: 'target@example.com', captchaToken: await solveCaptcha(t.app) } });
  for (let i = 0; i < 5; i++) expect((await attempt()).statusCode).toBe(200);
  expect((await attempt()).statusCode).toBe(429);
});

it('allows an address three times the per-account limit across accounts', async () => {
  const attempt = async (i: number) =>
    t.app.inject({ method: 'POST', url: '/api/v1/auth/login', remoteAddress: '10.9.8.7', payload: { tgId: `spray_account_${i}`, password: 'guess guess', captchaToken: await solveCaptcha(t.app) } });
  for (let i = 0; i < 15; i++) expect((await attempt(i)).statusCode).toBe(401);
  expect((await attempt(15)).statusCode).toBe(429);
});
