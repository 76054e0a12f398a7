import { z } from 'zod';
import { RECIPIENT_MAIL_STATUSES, TRACKING_STATUS_LABELS, trackingPagePath, type TrackingStatus } from '@portal/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import { newId, nowIso } from '../../lib/ids.ts';
import { eventOf, type ShopEventRow } from '../../lib/shop-events.ts';
import type { Mailer } from '../../providers/mail/mailer.ts';
import { MAX_ATTEMPTS, type JobContext, type JobDefinition, type JobQueue } from '../../queue/job-queue.ts';
import * as repo from './recipient-repository.ts';
import { carrierOf } from './tracking-page.ts';

export const RECIPIENT_MAIL_JOB = 'recipient-mail';

const SUBJECTS: Record<(typeof RECIPIENT_MAIL_STATUSES)[number], string> = {
  in_transit: 'Your parcel is on its way',
  out_for_delivery: 'Your parcel is out for delivery',
  delivered: 'Your parcel was delivered',
};
const isMailed = (status: TrackingStatus): status is (typeof RECIPIENT_MAIL_STATUSES)[number] =>
  (RECIPIENT_MAIL_STATUSES as readonly string[]).includes(status);

/** The link that stops a sender's mails to the recipient: a page whose button posts to it, as a mail client's one click does. */
const unsubscribeUrl = (base: string, token: string) => `${base}/api/v1/track/${token}/unsubscribe`;

/** The mail of a status: the carrier, the tracking number and the two links; no name, address or price. */
function mailText(order: NonNullable<Awaited<ReturnType<typeof repo.mailOrder>>>, status: TrackingStatus, base: string, token: string): string {
  return [
    `${TRACKING_STATUS_LABELS[status]}: your ${carrierOf(order)} parcel (${order.label_type_name}${order.tracking ? `, tracking number ${order.tracking}` : ''}).`,
    '',
    `Follow it: ${base}${trackingPagePath(token)}`,
    '',
    'You get this mail because the sender gave your address for this parcel.',
    `No more mails from this sender: ${unsubscribeUrl(base, token)}`,
  ].join('\n');
}

/**
 * Status mails to a label's recipient (ToEmail), when its customer turned them on: one per label and status
 * (RECIPIENT_MAIL_STATUSES), hung off the durable order.tracking events. The outbox's receiver records a row per order
 * and status (unique, so a replayed or redelivered event records nothing new) and queues its sending; the job takes
 * the row (pending -> sending, one run alone) before it sends, so however often it runs, a status is mailed at most
 * once. A send the mail server refuses is tried again; a run that dies while sending leaves the row, never resent.
 */
export function createRecipientMails(deps: { db: Db; queue: Pick<JobQueue, 'enqueue'>; mailer: Mailer; log: FastifyBaseLogger; linkBase: string }) {
  const { db, queue, log } = deps;
  const queueMail = (id: string) => queue.enqueue(RECIPIENT_MAIL_JOB, { mailId: id }, { jobId: `recipient-mail-${id}` });

  return {
    /** The outbox's receiver: a mail row for each order.tracking event of a mailed status whose recipient may be mailed. */
    async record(rows: ShopEventRow[]): Promise<void> {
      const events = rows.flatMap((row) => {
        if (row.type !== 'order.tracking') return [];
        const event = eventOf(row);
        return event.type === 'order.tracking' && isMailed(event.status) ? [event] : [];
      });
      if (events.length === 0) return;
      const mailable = new Set((await repo.mailableOrders(db, [...new Set(events.map((e) => e.orderId))])).map((order) => order.id));
      const at = nowIso();
      const mails = events
        .filter((event) => mailable.has(event.orderId))
        .map((event) => ({
          id: newId(),
          order_id: event.orderId,
          user_id: event.userId,
          status: event.status,
          state: 'pending' as const,
          attempts: 0,
          last_error: null,
          sent_at: null,
          created_at: at,
          updated_at: at,
        }));
      if (mails.length === 0) return;
      const queued = await repo.insertMails(db, mails);
      // Recorded before by a process that may have stopped before queueing it: queued again (its job id keeps it one job).
      if (queued.length < mails.length) {
        const before = mails.filter((mail) => !queued.includes(mail.id)).map((mail) => ({ orderId: mail.order_id, status: mail.status }));
        for (const { id } of await repo.untriedMails(db, before)) queued.push(id);
      }
      for (const id of queued) await queueMail(id);
    },

    /** Queues again the mails recorded before `before` still waiting to be sent (their process stopped before queueing them). */
    async resume(before: string): Promise<void> {
      const waiting = await repo.waitingMails(db, before, 500);
      for (const { id } of waiting) await queueMail(id);
    },

    /** The job's handler: sends one mail, once. */
    async deliver(mailId: string, job: Pick<JobContext, 'attempt'>): Promise<void> {
      const mail = await repo.findMail(db, mailId);
      if (!mail || (mail.state !== 'pending' && mail.state !== 'retrying')) return;
      // Read as it is sent: the customer may have turned mails off, or the recipient unsubscribed, since it was recorded.
      const order = await repo.mailOrder(db, mail.order_id);
      if (!order?.to_email || order.refund_status === 'refunded') {
        await repo.updateMail(db, mailId, { state: 'dropped', last_error: 'Not to be mailed any more', updated_at: nowIso() });
        return;
      }
      if (!(await repo.takeMail(db, mailId, nowIso()))) return;
      const attempts = mail.attempts + 1;
      try {
        const status = mail.status as (typeof RECIPIENT_MAIL_STATUSES)[number];
        const unsubscribe = unsubscribeUrl(deps.linkBase, order.tracking_token!);
        // Mail clients offer their own unsubscribe button from these (RFC 2369), one click posting to it (RFC 8058).
        const headers = { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
        await deps.mailer.send({ to: order.to_email, subject: SUBJECTS[status], text: mailText(order, status, deps.linkBase, order.tracking_token!), headers });
        await repo.updateMail(db, mailId, { state: 'sent', attempts, last_error: null, sent_at: nowIso(), updated_at: nowIso() });
      } catch (error) {
        const last = Math.max(job.attempt, attempts) >= MAX_ATTEMPTS;
        const message = error instanceof Error ? error.message : String(error);
        await repo.updateMail(db, mailId, { state: last ? 'failed' : 'retrying', attempts, last_error: message.slice(0, 500), updated_at: nowIso() });
        // The mail's id only: its body holds the recipient's links.
        if (last) log.warn({ err: error, recipientMailId: mailId }, 'recipient mail not sent');
        else throw error;
      }
    },
  };
}
export type RecipientMails = ReturnType<typeof createRecipientMails>;

const recipientMailPayload = z.object({ mailId: z.string().min(1) });

/** Sends one recipient mail (the service does the work; this is its entry point). */
export const recipientMailJob = (mails: RecipientMails): JobDefinition<z.infer<typeof recipientMailPayload>> => ({
  name: RECIPIENT_MAIL_JOB,
  payload: recipientMailPayload,
  handle: ({ mailId }, job) => mails.deliver(mailId, job),
});
