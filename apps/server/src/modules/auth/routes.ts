import { accessResponse, forgotPasswordBody, loginBody, messageResponse, registerBody, resetPasswordBody, tokenResponse, verifyEmailBody } from '@portal/contract';
import type { FastifyRequest } from 'fastify';
import type { Api, AppContext } from '../../app-context.ts';

export async function authRoutes(api: Api, ctx: AppContext) {
  const { auth, limiter, requireCaptcha, requireUser } = ctx;
  /** Counts the attempt per address and per account it names; 429 past the limit. */
  const limit = (route: string, account: (body: any) => string) => async (request: FastifyRequest) => {
    await limiter.hit(`ip:${route}:${request.ip}`, `account:${route}:${account(request.body).toLowerCase()}`);
  };
  const byTgId = (body: { tgId: string }) => body.tgId;
  const byEmail = (body: { email: string }) => body.email;

  api.post('/auth/register', { schema: { body: registerBody, response: { 200: messageResponse } }, preHandler: [limit('register', byTgId), requireCaptcha] }, (request) =>
    auth.register(request.body),
  );

  api.post('/auth/login', { schema: { body: loginBody, response: { 200: tokenResponse } }, preHandler: [limit('login', byTgId), requireCaptcha] }, (request) =>
    auth.login(request.body),
  );

  api.get('/auth/access', { schema: { response: { 200: accessResponse } }, preHandler: requireUser }, (request) => auth.accessUser(request.userId));

  api.post('/auth/forgotPassword', { schema: { body: forgotPasswordBody, response: { 200: messageResponse } }, preHandler: [limit('forgot', byEmail), requireCaptcha] }, (request) =>
    auth.forgotPassword(request.body.email),
  );

  api.post('/auth/resetPassword', { schema: { body: resetPasswordBody, response: { 200: tokenResponse } }, preHandler: [limit('reset', byEmail), requireCaptcha] }, (request) =>
    auth.resetPassword(request.body),
  );

  api.post('/auth/verifyEmail', { schema: { body: verifyEmailBody, response: { 200: tokenResponse } }, preHandler: [limit('verify', byEmail), requireCaptcha] }, (request) =>
    auth.verifyEmail(request.body),
  );
}
