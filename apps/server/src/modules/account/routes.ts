import {
  apiKeyResponse,
  autoVoidBody,
  changeEmailBody,
  changePasswordBody,
  labelFormatBody,
  messageResponse,
  recipientEmailsBody,
  tokenResponse,
} from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';

export async function accountRoutes(api: Api, ctx: AppContext) {
  const { auth, limiter } = ctx;

  api.post('/account/email', { schema: { body: changeEmailBody, response: { 200: messageResponse } } }, async (request) => {
    await limiter.hit(`account:email:${request.userId}`);
    return auth.requestEmailVerification(request.userId, request.body.email);
  });

  api.post('/account/password', { schema: { body: changePasswordBody, response: { 200: tokenResponse } } }, async (request) => {
    await limiter.hit(`account:password:${request.userId}`);
    return auth.changePassword(request.userId, request.body);
  });

  api.post('/account/label-format', { schema: { body: labelFormatBody, response: { 200: messageResponse } } }, (request) =>
    auth.setLabelFormat(request.userId, request.body.labelFormat),
  );

  api.post('/account/auto-void', { schema: { body: autoVoidBody, response: { 200: messageResponse } } }, (request) =>
    auth.setAutoVoid(request.userId, request.body.autoVoid),
  );

  api.post('/account/recipient-emails', { schema: { body: recipientEmailsBody, response: { 200: messageResponse } } }, (request) =>
    auth.setRecipientEmails(request.userId, request.body.on),
  );

  api.post('/account/api-key', { schema: { response: { 200: apiKeyResponse } } }, (request) => auth.regenerateApiKey(request.userId));
}
