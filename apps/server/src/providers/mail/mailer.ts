import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import { newId, nowIso } from '../../lib/ids.ts';

/** A plain-text mail; `headers` adds headers of its own (a status mail's List-Unsubscribe), which the outbox does not keep. */
export type MailMessage = { to: string; subject: string; text: string; headers?: Record<string, string> };

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/**
 * Default without SMTP_URL: keeps every message in the database. The log says only that a mail
 * is waiting and its id, never the body (it holds sign-in codes); `npm run outbox` reads them.
 */
export function createOutboxMailer(db: Db, log: FastifyBaseLogger): Mailer {
  return {
    async send(message) {
      const id = newId();
      await db.insertInto('outbox_mail').values({ id, to_address: message.to, subject: message.subject, body: message.text, created_at: nowIso() }).execute();
      log.info({ outboxMailId: id }, 'mail kept in the outbox (no SMTP_URL set): read it with npm run outbox');
    },
  };
}

/** The newest mails of the outbox, newest first. */
export function latestOutboxMails(db: Db, limit: number) {
  return db.selectFrom('outbox_mail').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  // Loaded only with SMTP_URL set: a shop without it never loads nodemailer.
  const transport = import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(smtpUrl));
  transport.catch(() => {}); // a failed load is reported by the send that waits for it
  return {
    async send(message) {
      await (await transport).sendMail({ from, to: message.to, subject: message.subject, text: message.text, headers: message.headers });
    },
  };
}
