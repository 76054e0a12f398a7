import crypto from 'node:crypto';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Where generated files (label PDFs, bulk files, FedEx labels) live; keys are relative paths like 'bulk/<id>/label.pdf'. */
export interface FileStore {
  /** Writes the file whole (bytes, or a stream read to its end); a reader never sees part of it. */
  put(key: string, data: Uint8Array | Readable): Promise<void>;
  /** The file's bytes, or null when there is none. */
  get(key: string): Promise<Buffer | null>;
  /** `length` bytes of the file from `offset` (one label of a pack), or null when there is no such file. */
  getRange(key: string, offset: number, length: number): Promise<Buffer | null>;
  /** The file as a stream, to send a large one without holding it whole; null when there is none. */
  stream(key: string): Promise<Readable | null>;
  delete(key: string): Promise<void>;
  /**
   * Stores bytes that are read back only in parts, with getRange (packs of labels): the local store appends them to
   * a file it keeps open, a new one for each process and every PACK_FILE_BYTES, as creating a file cost more than
   * writing its bytes; a bucket gets an object for each call. Answers the file and where in it they begin, once they
   * are on the disk (the local store flushes them; a bucket has them once it answers). See ARCHITECTURE.md#label-packs.
   */
  appendToPack(prefix: string, data: Uint8Array): Promise<{ key: string; offset: number }>;
  /** Closes what the store holds open (the local store's pack files), once their writes end. */
  close(): Promise<void>;
  /** A time-limited link that downloads the file straight from the store, where the store has such links (S3). */
  signedUrl?(key: string, fileName: string, expiresInSeconds: number): Promise<string>;
}

/** A file written a chunk at a time as it is made, never whole in memory; readers see it only once it ends. */
export type FileWriter = {
  /** Waits while the store is behind (backpressure); throws once the store failed. */
  write(chunk: Uint8Array): Promise<void>;
  /** Ends the file and waits until it is stored. */
  end(): Promise<void>;
  /** Drops the file: nothing is stored. */
  abort(): Promise<void>;
};

/** Small chunks are gathered up to this size before they go to the store: every write to a file is a round trip to libuv's threads. */
const WRITE_BYTES = 256 * 1024;

/** Opens `key` in the store for writing a chunk at a time (FileStore.put of a stream fed as the chunks come). */
export function openFileWriter(store: FileStore, key: string): FileWriter {
  const stream = new PassThrough();
  stream.on('error', () => {}); // an abandoned file: the store sees the error on its side
  const stored = store.put(key, stream);
  stored.catch(() => {}); // seen by the next write or by end
  let gathered: Uint8Array[] = [];
  let gatheredBytes = 0;
  const flush = async () => {
    const chunk = Buffer.concat(gathered, gatheredBytes);
    gathered = [];
    gatheredBytes = 0;
    if (!stream.write(chunk)) await Promise.race([once(stream, 'drain'), stored]);
  };
  return {
    async write(chunk) {
      gathered.push(chunk);
      gatheredBytes += chunk.length;
      if (gatheredBytes >= WRITE_BYTES) await flush();
    },
    async end() {
      if (gatheredBytes > 0) await flush();
      stream.end();
      await stored;
    },
    async abort() {
      stream.destroy(new Error(`Writing ${key} was abandoned`));
      await stored.catch(() => {});
    },
  };
}

/** A local pack file takes appends until it holds this many bytes; the next append begins another. */
const PACK_FILE_BYTES = 64 * 1024 * 1024;

/** A new pack file's key under `prefix`, spread over 256 folders. */
export function newPackKey(prefix: string): string {
  const id = crypto.randomUUID();
  return `${prefix}/${id.slice(0, 2)}/${id}.bin`;
}

const KEY = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_.-]+)*$/;

/** Throws for a key that is not a plain relative path (no '..', no leading '/', no empty part). */
export function checkFileKey(key: string): void {
  if (!KEY.test(key) || key.split('/').some((part) => part === '..' || part === '.')) throw new Error(`Bad file key ${key}`);
}

/** A local pack file being appended to: its length so far counts the appends still being written. */
type PackFile = { key: string; length: number; handle: Promise<FileHandle>; writes: Set<Promise<void>>; synced: () => Promise<void> };

/**
 * Flushes a pack file to the disk (fdatasync), and its folder's entry of it the first time, so that what an append
 * answered survives a power cut before the database records where its bytes are. Appends that finish while a flush
 * runs share the next one, which begins after them; a flush covers every write finished before it began.
 */
function packSyncer(handle: Promise<FileHandle>, folder: string): () => Promise<void> {
  let entry: Promise<void> | null = null;
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const flush = async () => {
    entry ??= syncFolder(folder);
    await Promise.all([entry, handle.then((h) => h.datasync())]);
  };
  const start = (): Promise<void> => (running = flush().finally(() => (running = null)));
  return () => {
    if (!running) return start();
    next ??= running
      .catch(() => {})
      .then(() => {
        next = null;
        return start();
      });
    return next;
  };
}

/** Flushes a folder's entries (a file made in it); where folders cannot be opened for it (Windows), the file's own flush must do. */
async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await fs.open(folder, 'r');
  } catch {
    return;
  }
  try {
    await handle.sync().catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EISDIR' && error.code !== 'EPERM' && error.code !== 'EINVAL') throw error;
    });
  } finally {
    await handle.close();
  }
}

/** Writes all of `data` at `position` (a write may take less than it was given). */
async function writeAt(handle: FileHandle, data: Uint8Array, position: number): Promise<void> {
  for (let written = 0; written < data.length;) written += (await handle.write(data, written, data.length - written, position + written)).bytesWritten;
}

/** Opens a new file for writing; its folder is made on the first miss, not checked on every write. */
function openNew(file: string, flags: 'w' | 'wx'): Promise<FileHandle> {
  return fs.open(file, flags).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    await fs.mkdir(path.dirname(file), { recursive: true });
    return fs.open(file, flags);
  });
}

/** Files in a local directory (default DATA_DIR/files). */
export function createLocalFileStore(root: string, options: { packFileBytes?: number } = {}): FileStore {
  const packFileBytes = options.packFileBytes ?? PACK_FILE_BYTES;
  const resolve = (key: string) => {
    checkFileKey(key);
    return path.join(root, key);
  };
  /** The pack file appended to under each prefix. */
  const packs = new Map<string, PackFile>();
  const closing = new Set<Promise<void>>();
  /** Takes no more appends; closed once the ones under way are written. */
  const retire = (prefix: string, pack: PackFile) => {
    if (packs.get(prefix) === pack) packs.delete(prefix);
    const closed: Promise<void> = Promise.allSettled(pack.writes)
      .then(async () => (await pack.handle).close())
      .catch(() => {}) // a file that never opened has nothing to close
      .finally(() => closing.delete(closed));
    closing.add(closed);
  };
  return {
    async put(key, data) {
      const file = resolve(key);
      // Write then rename, so a reader never sees half a file.
      const temp = `${file}.${crypto.randomBytes(6).toString('hex')}.tmp`;
      const handle = await openNew(temp, 'w');
      try {
        await (data instanceof Uint8Array ? handle.writeFile(data) : pipeline(data, handle.createWriteStream()));
      } catch (error) {
        await fs.rm(temp, { force: true });
        throw error;
      } finally {
        await handle.close().catch(() => {}); // the write stream may have closed it already
      }
      await fs.rename(temp, file);
    },
    async get(key) {
      try {
        return await fs.readFile(resolve(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async getRange(key, offset, length) {
      let handle;
      try {
        handle = await fs.open(resolve(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
      try {
        const bytes = Buffer.alloc(length);
        const { bytesRead } = await handle.read(bytes, 0, length, offset);
        if (bytesRead !== length) throw new Error(`${key} ends before byte ${offset + length}`);
        return bytes;
      } finally {
        await handle.close();
      }
    },
    async stream(key) {
      // Opened before answering, so a missing file is null rather than a stream that fails later.
      try {
        return (await fs.open(resolve(key))).createReadStream();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async delete(key) {
      await fs.rm(resolve(key), { force: true });
    },
    async appendToPack(prefix, data) {
      let pack = packs.get(prefix);
      if (pack && pack.length >= packFileBytes) retire(prefix, pack);
      pack = packs.get(prefix);
      if (!pack) {
        // 'wx': a file of its own, never one another process appends to.
        const key = newPackKey(prefix);
        const handle = openNew(resolve(key), 'wx');
        pack = { key, length: 0, handle, writes: new Set(), synced: packSyncer(handle, path.dirname(resolve(key))) };
        packs.set(prefix, pack);
      }
      // Taken before the write, so appends under way at once go side by side, each to its own bytes.
      const offset = pack.length;
      pack.length += data.length;
      // Answered once on the disk: the caller records the offset next, and a record must never point past a pack's end.
      const current = pack;
      const write = pack.handle.then((handle) => writeAt(handle, data, offset)).then(() => current.synced());
      pack.writes.add(write);
      try {
        await write;
      } catch (error) {
        retire(prefix, pack); // the next append begins a new file rather than write after a failed one
        throw error;
      } finally {
        pack.writes.delete(write);
      }
      return { key: pack.key, offset };
    },
    async close() {
      for (const [prefix, pack] of packs) retire(prefix, pack);
      await Promise.all(closing);
    },
  };
}
