import type { FastifyRequest } from 'fastify';
import type { Update } from 'grammy/types';
import { z } from 'zod';
import { telegramLinkResponse, telegramSettingsResponse, telegramTopicsBody } from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';
import { unauthorized } from '../../lib/http-errors.ts';
import { linkOrigin } from '../../lib/link-origin.ts';
import { WEBHOOK_BODY_LIMIT_BYTES } from '../../lib/json-body.ts';

/** An update as Telegram posts it: an object with its id (grammY reads the rest). */
const updateBody = z.looseObject({ update_id: z.number().int() });

/** Account Setting's Telegram card and the Orders card's link, for the signed-in customer. */
export async function telegramRoutes(api: Api, ctx: AppContext) {
  const { telegram } = ctx;

  api.get('/account/telegram', { schema: { response: { 200: telegramSettingsResponse } } }, (request) => telegram.settings(request.userId));

  api.put('/account/telegram', { schema: { body: telegramTopicsBody, response: { 200: telegramSettingsResponse } } }, (request) =>
    telegram.saveTopics(request.userId, request.body.topics),
  );

  api.delete('/account/telegram', { schema: { response: { 200: telegramSettingsResponse } } }, (request) => telegram.unlink(request.userId));

  api.post('/account/telegram/link', { schema: { response: { 200: telegramLinkResponse } } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    // Links in messages point to PUBLIC_URL, else to the address the user's dashboard was opened at (when it may be used).
    return telegram.createLink(request.userId, linkOrigin(ctx.config, request));
  });
}

/** In webhook mode, the route Telegram posts updates to (no sign-in: Telegram's secret header is the key). */
export async function telegramWebhookRoutes(api: Api, ctx: AppContext) {
  const { telegramWebhook } = ctx;
  if (telegramWebhook) {
    // Only Telegram knows the secret (it was sent with setWebhook): anything else is refused before its body is read.
    const onRequest = async (request: FastifyRequest) => {
      if (!telegramWebhook.accepts(request.headers['x-telegram-bot-api-secret-token'])) throw unauthorized();
    };
    api.post('/telegram/webhook', { onRequest, bodyLimit: WEBHOOK_BODY_LIMIT_BYTES, schema: { body: updateBody } }, async (request) => {
      await telegramWebhook.handle(request.body as Update);
      return { ok: true };
    });
  }
}
