import type { AdminContent } from '@portal/contract';
import type { Db } from '../../db/database.ts';
import type { AuditHook } from '../../lib/audit.ts';
import { badRequest, conflict, notFound } from '../../lib/http-errors.ts';
import { newId } from '../../lib/ids.ts';
import * as repo from './repository.ts';
import { sanitizeTermsHtml } from './sanitize.ts';
import { SEED_ANNOUNCEMENT, SEED_FAQS, SEED_TOS } from './seed-content.ts';

export const FAQ_NOT_FOUND = 'FAQ not found';
export const FEDEX_PRICE_NOT_SET = 'FedEx orders are not available at the moment';
export const FAQ_ORDER_INCOMPLETE = 'The new order must list every FAQ exactly once';
/** The flat price of a FedEx hand-made order a new shop starts with. */
export const SEED_FEDEX_PRICE_CENTS = 3500;
const FEDEX_PRICE_KEY = 'fedex_price_cents';

/** Terms, FAQs, the announcement and the shop's settings (the FedEx price), as the shop's pages read them and operators edit them. */
export function createContentService(db: Db) {
  const read = (key: string) => repo.readContent(db, key);
  const faqState = (faq: repo.FaqRow) => ({ question: faq.question, answer: faq.answer, position: faq.position });
  const announcement = async (): Promise<{ announcement: string; status: boolean }> => ({
    announcement: (await read('announcement')) ?? '',
    status: (await read('announcement_status')) === '1',
  });
  const fedexPriceCents = async (): Promise<number | null> => {
    const value = Number(await read(FEDEX_PRICE_KEY));
    return Number.isSafeInteger(value) && value > 0 ? value : null;
  };
  // The terms are sanitized on save and again when shown; the last result is kept, as the terms rarely change.
  let shownTos = { raw: '', html: '' };

  return {
    /** Fills content the first time the shop starts; an operator's later edits are never overwritten. */
    async seed(): Promise<void> {
      const defaults = {
        tos: SEED_TOS,
        announcement: SEED_ANNOUNCEMENT.text,
        announcement_status: SEED_ANNOUNCEMENT.status ? '1' : '0',
        [FEDEX_PRICE_KEY]: String(SEED_FEDEX_PRICE_CENTS),
      };
      for (const [key, value] of Object.entries(defaults)) await repo.insertContentIfMissing(db, key, value);
      if ((await repo.countFaqs(db)) === 0) {
        await repo.insertFaqs(
          db,
          SEED_FAQS.map((faq, position) => ({ id: newId(), position, ...faq })),
        );
      }
    },
    async tos(): Promise<string> {
      const raw = (await read('tos')) ?? '';
      if (raw !== shownTos.raw) shownTos = { raw, html: await sanitizeTermsHtml(raw) };
      return shownTos.html;
    },
    async faqs(): Promise<{ question: string; answer: string }[]> {
      return (await repo.listFaqs(db)).map((f) => ({ question: f.question, answer: f.answer }));
    },
    announcement,
    /** The flat price of a FedEx hand-made order in cents, or null when none is set. */
    fedexPriceCents,

    /** The same in dollars; 409 when none is set. */
    async fedexPrice(): Promise<number> {
      const cents = await fedexPriceCents();
      if (cents === null) throw conflict(FEDEX_PRICE_NOT_SET);
      return cents / 100;
    },

    // ---- The operator console's edits: each writes its audit row in the same transaction. ----

    async adminContent(): Promise<AdminContent> {
      const [shown, tos, faqs] = await Promise.all([announcement(), read('tos'), repo.listFaqs(db)]);
      return {
        announcement: shown.announcement,
        announcementStatus: shown.status,
        tos: tos ?? '',
        faqs: faqs.map((f) => ({ _id: f.id, question: f.question, answer: f.answer, position: f.position })),
      };
    },
    async setFedexPrice(cents: number, audit: AuditHook): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const before = await repo.readContent(trx, FEDEX_PRICE_KEY);
        await repo.writeContent(trx, FEDEX_PRICE_KEY, String(cents));
        await audit(trx, { targetId: FEDEX_PRICE_KEY, before: before === undefined ? null : { price: Number(before) / 100 }, after: { price: cents / 100 } });
      });
    },
    async setAnnouncement(input: { announcement: string; status: boolean }, audit: AuditHook): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const before = {
          announcement: (await repo.readContent(trx, 'announcement')) ?? '',
          status: (await repo.readContent(trx, 'announcement_status')) === '1',
        };
        await repo.writeContent(trx, 'announcement', input.announcement);
        await repo.writeContent(trx, 'announcement_status', input.status ? '1' : '0');
        await audit(trx, { targetId: 'announcement', before, after: input });
      });
    },
    /** Stores the terms sanitized (scripts, event handlers and unsafe links removed); answers what was stored. */
    async setTos(html: string, audit: AuditHook): Promise<string> {
      const tos = await sanitizeTermsHtml(html);
      await db.transaction().execute(async (trx) => {
        const before = (await repo.readContent(trx, 'tos')) ?? '';
        await repo.writeContent(trx, 'tos', tos);
        await audit(trx, { targetId: 'tos', before: { tos: before }, after: { tos } });
      });
      return tos;
    },
    /** Adds a FAQ at the end. */
    async createFaq(input: { question: string; answer: string }, audit: AuditHook): Promise<string> {
      return db.transaction().execute(async (trx) => {
        const faq = { id: newId(), position: (await repo.lastFaqPosition(trx)) + 1, ...input };
        await repo.insertFaqs(trx, [faq]);
        await audit(trx, { targetId: faq.id, before: null, after: faqState(faq) });
        return faq.id;
      });
    },
    async updateFaq(id: string, input: { question: string; answer: string }, audit: AuditHook): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const before = await repo.findFaq(trx, id);
        if (!before) throw notFound(FAQ_NOT_FOUND);
        await repo.updateFaq(trx, id, input);
        await audit(trx, { targetId: id, before: faqState(before), after: faqState({ ...before, ...input }) });
      });
    },
    async deleteFaq(id: string, audit: AuditHook): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const before = await repo.findFaq(trx, id);
        if (!before) throw notFound(FAQ_NOT_FOUND);
        await repo.deleteFaq(trx, id);
        await audit(trx, { targetId: id, before: faqState(before), after: null });
      });
    },
    /** Puts the FAQs in this order; the list must hold every FAQ id exactly once (400 otherwise). */
    async reorderFaqs(ids: string[], audit: AuditHook): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const current = await repo.listFaqs(trx);
        const known = new Set(current.map((f) => f.id));
        if (ids.length !== known.size || new Set(ids).size !== ids.length || !ids.every((id) => known.has(id))) throw badRequest(FAQ_ORDER_INCOMPLETE);
        for (const [position, id] of ids.entries()) await repo.updateFaq(trx, id, { position });
        await audit(trx, { targetId: null, before: { ids: current.map((f) => f.id) }, after: { ids } });
      });
    },
  };
}
export type ContentService = ReturnType<typeof createContentService>;
