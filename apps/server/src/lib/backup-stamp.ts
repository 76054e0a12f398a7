import fs from 'node:fs';
import path from 'node:path';

/** The file in DATA_DIR that `npm run backup` writes the time of its last archive to (the console's Going live checklist reads it). */
const LAST_BACKUP_FILE = 'last-backup';

/** Written once an archive is complete. */
export const stampBackup = (dataDir: string, at = new Date()) => fs.writeFileSync(path.join(dataDir, LAST_BACKUP_FILE), `${at.toISOString()}\n`);

/** The time of the last `npm run backup` of this DATA_DIR, or null. */
export function lastBackup(dataDir: string): string | null {
  try {
    const stamp = fs.readFileSync(path.join(dataDir, LAST_BACKUP_FILE), 'utf8').trim();
    return Number.isFinite(Date.parse(stamp)) ? stamp : null;
  } catch {
    return null;
  }
}
