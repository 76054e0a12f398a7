import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import { newId, nowIso } from '../../lib/ids.ts';

export type MailMessage = { to: string; subject: string; text: string };

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** Default without SMTP_URL: keeps every message in the database and logs it, so codes are never lost. */
export function createOutboxMailer(db: Db, log: FastifyBaseLogger): Mailer {
  return {
    async send(message) {
      await db.insertInto('outbox_mail').values({ id: newId(), to_address: message.to, subject: message.subject, body: message.text, created_at: nowIso() }).execute();
      log.info({ to: message.to, subject: message.subject, text: message.text }, 'mail kept in outbox (no SMTP_URL set)');
    },
  };
}

export function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(message) {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
