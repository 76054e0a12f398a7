import {
  accessResponse,
  forgotPasswordBody,
  loginBody,
  messageResponse,
  registerBody,
  resetPasswordBody,
  tokenResponse,
  verifyEmailBody,
} from '@portal/contract';
import type { FastifyRequest } from 'fastify';
import type { Api, AppContext } from '../../app-context.ts';
import { addressKey } from '../../lib/attempt-limiter.ts';
import { bearerToken } from './tokens.ts';

/** Sign-up, sign-in and the code screens: open to anyone, each behind its captcha and attempt limits. */
export async function authRoutes(api: Api, ctx: AppContext) {
  const { auth, limiter, requireCaptcha } = ctx;
  /**
   * The guards of a limited route, in order: the attempt counted per address (captcha failures too,
   * which slows guessing captchas from one address), the captcha, then the attempt counted per
   * account it names, only once its captcha is valid: requests without a solved captcha cannot use
   * up an account's attempts. 429 past either limit.
   */
  const limited = (route: string, account: (body: any) => string) => [
    async (request: FastifyRequest) => limiter.hit(addressKey(route, request.ip)),
    requireCaptcha,
    async (request: FastifyRequest) => limiter.hit(`account:${route}:${account(request.body).toLowerCase()}`),
  ];
  /**
   * A route that checks a password or an emailed code: the attempt counted per address and the captcha as above, then
   * the check under limiter.guess, which counts only failures (per account and address, per address) and slows down,
   * never refuses, the account's other attempts, so guesses from elsewhere cannot keep its owner out.
   */
  const guessed = (route: string) => [async (request: FastifyRequest) => limiter.hit(addressKey(route, request.ip)), requireCaptcha];
  const guess = <T>(route: string, account: string, request: FastifyRequest, check: () => Promise<T>) =>
    limiter.guess(route, account.toLowerCase(), request.ip, check);
  const byTgId = (body: { tgId: string }) => body.tgId;
  const byEmail = (body: { email: string }) => body.email;

  api.post('/auth/register', { schema: { body: registerBody, response: { 200: messageResponse } }, preHandler: limited('register', byTgId) }, (request) =>
    auth.register(request.body),
  );

  api.post('/auth/login', { schema: { body: loginBody, response: { 200: tokenResponse } }, preHandler: guessed('login') }, (request) =>
    guess('login', request.body.tgId, request, () => auth.login(request.body)),
  );

  api.post(
    '/auth/forgotPassword',
    { schema: { body: forgotPasswordBody, response: { 200: messageResponse } }, preHandler: limited('forgot', byEmail) },
    (request) => auth.forgotPassword(request.body.email),
  );

  api.post('/auth/resetPassword', { schema: { body: resetPasswordBody, response: { 200: tokenResponse } }, preHandler: guessed('reset') }, (request) =>
    guess('reset', request.body.email, request, () => auth.resetPassword(request.body)),
  );

  api.post('/auth/verifyEmail', { schema: { body: verifyEmailBody, response: { 200: tokenResponse } }, preHandler: guessed('verify') }, (request) =>
    guess('verify', request.body.email, request, () => auth.verifyEmail(request.body)),
  );
}

/** The signed-in customer's session (registered in the customer scope, whose guard has checked the token). */
export async function sessionRoutes(api: Api, ctx: AppContext) {
  const { auth } = ctx;

  /** Ends this token's session on the server (the web app's Sign out calls it before dropping its cookie). */
  api.post('/auth/logout', { schema: { response: { 200: messageResponse } } }, (request) => auth.logout(bearerToken(request.headers.authorization)));

  api.get('/auth/access', { schema: { response: { 200: accessResponse } } }, (request) => auth.accessUser(request.userId));
}
