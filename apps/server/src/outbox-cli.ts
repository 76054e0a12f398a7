// `npm run outbox [-- --limit N]`: prints the newest mails the shop kept in its outbox (no SMTP_URL),
// with the same configuration (DATA_DIR, DATABASE_URL) as the server. Codes are read here, never in logs.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from './config.ts';
import { createDatabase, migrateToLatest } from './db/database.ts';
import { latestOutboxMails } from './providers/mail/mailer.ts';

const { values } = parseArgs({ options: { limit: { type: 'string', default: '10' } } });
const limit = Number(values.limit);
if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
  console.error('--limit must be a whole number from 1 to 1000');
  process.exit(1);
}
const config = loadConfigOrExit();
const db = createDatabase({ url: config.DATABASE_URL, sqliteFile: path.join(config.dataDir, 'portal.sqlite') });
try {
  await migrateToLatest(db);
  const mails = await latestOutboxMails(db, limit);
  if (mails.length === 0) console.log('The outbox is empty.');
  for (const mail of mails) {
    console.log(`--- ${mail.created_at}  ${mail.id}\nTo: ${mail.to_address}\nSubject: ${mail.subject}\n\n${mail.body}\n`);
  }
} finally {
  await db.destroy();
}
