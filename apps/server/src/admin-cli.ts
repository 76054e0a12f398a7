// `npm run admin -- grant <telegram username>` makes a user an admin of the operator console;
// `revoke` makes them a customer again. Same configuration as the server (DATA_DIR, DATABASE_URL),
// so it works on SQLite and PostgreSQL; the change is written to the audit log as made from the command line.
import pino from 'pino';
import { loadConfigOrExit } from './config.ts';
import { buildServices } from './services.ts';

const USAGE = 'Usage: npm run admin -- grant <telegram username>\n       npm run admin -- revoke <telegram username>';

const [command, tgId, ...rest] = process.argv.slice(2);
if ((command !== 'grant' && command !== 'revoke') || !tgId || rest.length > 0) {
  console.error(USAGE);
  process.exit(2);
}

const config = loadConfigOrExit();
const services = await buildServices(config, pino({ level: 'warn' }, pino.destination(2)));
try {
  const user = await services.admin.setRoleFromCommandLine(tgId, command === 'grant' ? 'admin' : 'customer');
  if (user) {
    console.log(`@${user.tgId} (${user.username}) is now ${user.role === 'admin' ? 'an admin' : 'a customer'}`);
  } else {
    console.error(`No account has the Telegram username ${tgId}`);
    process.exitCode = 1;
  }
} finally {
  await services.close();
}
