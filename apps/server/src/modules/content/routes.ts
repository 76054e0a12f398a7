import { announcementResponse, faqResponse, publicConfigResponse, tosResponse } from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';

/** The FAQ and the announcement, for the signed-in customer. */
export async function contentRoutes(api: Api, ctx: AppContext) {
  const { content } = ctx;

  api.get('/faq/read', { schema: { response: { 200: faqResponse } } }, async () => ({ data: await content.faqs() }));

  api.get('/announcement/read', { schema: { response: { 200: announcementResponse } } }, () => content.announcement());
}

/** What the signed-out screens read: the terms, the captcha settings and challenge, the Telegram bot's name. */
export async function publicContentRoutes(api: Api, ctx: AppContext) {
  const { content, captcha, config } = ctx;

  api.get('/tos/read', { schema: { response: { 200: tosResponse } } }, async () => ({ tos: await content.tos() }));

  api.get('/config', { schema: { response: { 200: publicConfigResponse } } }, async () => ({
    captcha: {
      provider: captcha.provider,
      siteKey: captcha.siteKey,
      challengeUrl: captcha.createChallenge ? '/api/v1/captcha/challenge' : null,
    },
    // Only a configured bot (token and username) is shown: the link needs the bot to answer it.
    telegramBot: config.TELEGRAM_BOT_TOKEN ? (config.TELEGRAM_BOT_USERNAME ?? null) : null,
  }));

  if (captcha.createChallenge) {
    const createChallenge = captcha.createChallenge;
    api.get('/captcha/challenge', async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return createChallenge();
    });
  }
}
