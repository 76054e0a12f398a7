// `npm run backup -- <file.tar>` copies the shop while it runs: the SQLite database through SQLite's
// online backup (a consistent snapshot, even mid-write), then the rest of DATA_DIR (label files and
// keys), as one tar archive. `npm run restore -- <file.tar>` unpacks one into an empty DATA_DIR.
// On PostgreSQL the database is pg_dump's job: the archive then holds DATA_DIR alone.
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import SqliteDatabase from './db/sqlite-driver.ts';
import * as tar from 'tar';
import { loadConfigOrExit } from './config.ts';
import { stampBackup } from './lib/backup-stamp.ts';

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
    const files = fs
      .readdirSync(config.dataDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.endsWith('.tmp'))
      .map((entry) => path.relative(config.dataDir, path.join(entry.parentPath, entry.name)))
      .filter((name) => !LIVE.has(name))
      .flatMap((name) => {
        const stat = fs.statSync(path.join(config.dataDir, name), { throwIfNoEntry: false });
        return stat ? [{ root: config.dataDir, name, stat }] : []; // none: removed since it was listed
      });
    if (!config.DATABASE_URL) files.push({ root: stage, name: DB_FILE, stat: fs.statSync(path.join(stage, DB_FILE)) });
    const pack = new tar.Pack({ portable: true });
    const written = pipeline(pack, fs.createWriteStream(archive));
    for (const file of files) await addAsListed(pack, file.root, file.name, file.stat);
    pack.end();
    await written;
    const size = fs.statSync(archive).size;
    stampBackup(config.dataDir);
    console.log(`Backed up ${config.dataDir} to ${archive} (${(size / 2 ** 20).toFixed(1)} MB)`);
    if (config.DATABASE_URL) console.log('The database is PostgreSQL: back it up with pg_dump (see the README); this archive holds DATA_DIR alone.');
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Adds a file to the archive as long as it was when listed. A label pack file may still be appended to while it is
 * read (FileStore.appendToPack); every label the database snapshot names was written before the listing.
 */
async function addAsListed(pack: tar.Pack, root: string, name: string, stat: fs.Stats): Promise<void> {
  const entry = new tar.ReadEntry(new tar.Header({ path: name, type: 'File', size: stat.size, mode: stat.mode & 0o7777, mtime: stat.mtime }));
  pack.add(entry);
  if (stat.size > 0) {
    for await (const chunk of fs.createReadStream(path.join(root, name), { start: 0, end: stat.size - 1 })) {
      if (!entry.write(chunk as Buffer)) await once(entry, 'drain');
    }
  }
  entry.end();
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
