// `npm run backup -- <file.tar>` copies the shop while it runs: the SQLite database through SQLite's
// online backup (a consistent snapshot, even mid-write), then the rest of DATA_DIR (label files and
// keys), as one tar archive. `npm run restore -- <file.tar>` unpacks one into an empty DATA_DIR.
// On PostgreSQL the database is pg_dump's job: the archive then holds DATA_DIR alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import * as tar from 'tar';
import { loadConfigOrExit } from './config.ts';

const USAGE = 'Usage: npm run backup -- <archive.tar>\n       npm run restore -- <archive.tar>';
const DB_FILE = 'portal.sqlite';
// The live database (copied through the backup API instead) and files being written right now.
const LIVE = new Set([DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, `${DB_FILE}-journal`]);

const [command, file, ...rest] = process.argv.slice(2);
if ((command !== 'backup' && command !== 'restore') || !file || rest.length > 0) {
  console.error(USAGE);
  process.exit(2);
}
const archive = path.resolve(process.env.INIT_CWD ?? process.cwd(), file);
const config = loadConfigOrExit();

async function backup(): Promise<void> {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-backup-'));
  try {
    // The snapshot first: every completed order in it already has its label file, so the files copied after cover it.
    if (!config.DATABASE_URL) {
      const live = new SqliteDatabase(path.join(config.dataDir, DB_FILE), { readonly: true, fileMustExist: true });
      try {
        await live.backup(path.join(stage, DB_FILE));
      } finally {
        live.close();
      }
    }
    // The files as they are now, listed first: one being written (a .tmp renamed when done) is left out.
    const entries = fs
      .readdirSync(config.dataDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.endsWith('.tmp'))
      .map((entry) => path.relative(config.dataDir, path.join(entry.parentPath, entry.name)))
      .filter((name) => !LIVE.has(name));
    await tar.create({ file: archive, cwd: config.dataDir, portable: true }, entries);
    if (!config.DATABASE_URL) await tar.replace({ file: archive, cwd: stage, portable: true }, [DB_FILE]);
    const size = fs.statSync(archive).size;
    console.log(`Backed up ${config.dataDir} to ${archive} (${(size / 2 ** 20).toFixed(1)} MB)`);
    if (config.DATABASE_URL) console.log('The database is PostgreSQL: back it up with pg_dump (see the README); this archive holds DATA_DIR alone.');
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

async function restore(): Promise<void> {
  if (!fs.existsSync(archive)) throw new Error(`No archive at ${archive}`);
  if (fs.existsSync(config.dataDir) && fs.readdirSync(config.dataDir).length > 0) {
    throw new Error(`DATA_DIR ${config.dataDir} is not empty: restore into an empty (or new) directory`);
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  await tar.extract({ file: archive, cwd: config.dataDir, strict: true });
  console.log(`Restored ${archive} into ${config.dataDir}`);
}

try {
  await (command === 'backup' ? backup() : restore());
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
