import { announcementResponse, faqResponse, publicConfigResponse, tosResponse } from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';
import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';
import { SEED_ANNOUNCEMENT, SEED_FAQS, SEED_TOS } from './seed-content.ts';

const readContent = async (db: Db, key: string) => (await db.selectFrom('content').select('value').where('key', '=', key).executeTakeFirst())?.value;

/** Fills content the first time the shop starts; an operator's later edits are never overwritten. */
export async function seedContent(db: Db): Promise<void> {
  const defaults = {
    tos: SEED_TOS,
    announcement: SEED_ANNOUNCEMENT.text,
    announcement_status: SEED_ANNOUNCEMENT.status ? '1' : '0',
  };
  for (const [key, value] of Object.entries(defaults)) {
    await db.insertInto('content').values({ key, value }).onConflict((oc) => oc.column('key').doNothing()).execute();
  }
  const faqCount = await db.selectFrom('faqs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  if (Number(faqCount.n) === 0) {
    await db.insertInto('faqs').values(SEED_FAQS.map((faq, position) => ({ id: newId(), position, ...faq }))).execute();
  }
}

export async function contentRoutes(api: Api, ctx: AppContext) {
  const { db, requireUser, captcha, config } = ctx;

  api.get('/tos/read', { schema: { response: { 200: tosResponse } } }, async () => ({ tos: (await readContent(db, 'tos')) ?? '' }));

  api.get('/faq/read', { schema: { response: { 200: faqResponse } }, preHandler: requireUser }, async () => ({
    data: await db.selectFrom('faqs').select(['question', 'answer']).orderBy('position').execute(),
  }));

  api.get('/announcement/read', { schema: { response: { 200: announcementResponse } }, preHandler: requireUser }, async () => ({
    announcement: (await readContent(db, 'announcement')) ?? '',
    status: (await readContent(db, 'announcement_status')) === '1',
  }));

  api.get('/config', { schema: { response: { 200: publicConfigResponse } } }, async () => ({
    captcha: {
      provider: captcha.provider,
      siteKey: captcha.siteKey,
      challengeUrl: captcha.createChallenge ? '/api/v1/captcha/challenge' : null,
    },
    telegramBot: config.TELEGRAM_BOT_USERNAME ?? null,
  }));

  if (captcha.createChallenge) {
    const createChallenge = captcha.createChallenge;
    api.get('/captcha/challenge', async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return createChallenge();
    });
  }
}
