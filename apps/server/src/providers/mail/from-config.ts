import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { createOutboxMailer, createSmtpMailer, type Mailer } from './mailer.ts';

/** SMTP when SMTP_URL is set, otherwise the outbox in the database. */
export function createMailer(config: Config, db: Db, log: FastifyBaseLogger): Mailer {
  return config.SMTP_URL ? createSmtpMailer(config.SMTP_URL, config.MAIL_FROM) : createOutboxMailer(db, log);
}
