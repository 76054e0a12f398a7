import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../config.ts';
import { startLocalS3, type LocalS3 } from '../../../test/local-s3.ts';
import { createLocalFileStore, type FileStore } from './file-store.ts';
import { createFileStore } from './from-config.ts';

// Made in beforeAll, not as the file loads: `vitest list` loads every file and runs no afterAll.
let root = '';
let s3: LocalS3;
beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'file-store-'));
  s3 = await startLocalS3();
});
afterAll(async () => {
  await s3?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

// The same contract on the local directory and on an S3-compatible store.
const stores: [string, () => FileStore | Promise<FileStore>][] = [
  ['a local directory', () => createLocalFileStore(root)],
  ['an S3 bucket', () => createFileStore(loadConfig({ DATA_DIR: root, ...s3.env }))],
];

describe.each(stores)('files in %s', (_name, open) => {
  it('keeps, reads, replaces and deletes files under nested keys; a missing file is null', async () => {
    const store = await open();
    await store.put('labels/ab/one.pdf', new TextEncoder().encode('%PDF-1'));
    expect((await store.get('labels/ab/one.pdf'))?.toString()).toBe('%PDF-1');
    await store.put('labels/ab/one.pdf', new TextEncoder().encode('%PDF-2'));
    expect((await store.get('labels/ab/one.pdf'))?.toString()).toBe('%PDF-2');
    await store.delete('labels/ab/one.pdf');
    expect(await store.get('labels/ab/one.pdf')).toBeNull();
    expect(await store.get('labels/never/written.pdf')).toBeNull();
    await store.delete('labels/never/written.pdf'); // deleting what is not there is not an error
  });

  it('reads a part of a file (one label of a pack); a missing file is null, a part past the end an error', async () => {
    const store = await open();
    await store.put('labels/packs/ab/pack.bin', new TextEncoder().encode('%PDF-A%PDF-BB%PDF-CCC'));
    expect((await store.getRange('labels/packs/ab/pack.bin', 6, 7))?.toString()).toBe('%PDF-BB');
    expect((await store.getRange('labels/packs/ab/pack.bin', 0, 6))?.toString()).toBe('%PDF-A');
    expect((await store.getRange('labels/packs/ab/pack.bin', 13, 8))?.toString()).toBe('%PDF-CCC');
    expect(await store.getRange('labels/packs/ab/none.bin', 0, 6)).toBeNull();
    await expect(store.getRange('labels/packs/ab/pack.bin', 13, 9)).rejects.toThrow('ends before byte 22');
  });

  it('keeps a large file (a merged PDF or ZIP) whole, byte for byte', async () => {
    const store = await open();
    const big = Buffer.alloc(20 * 1024 * 1024 + 123);
    for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
    await store.put('bulk/b1/label.zip', big);
    const back = await store.get('bulk/b1/label.zip');
    expect(back?.length).toBe(big.length);
    expect(back?.equals(big)).toBe(true);
    // Streamed back, as downloads send it.
    const chunks: Buffer[] = [];
    for await (const chunk of (await store.stream('bulk/b1/label.zip'))!) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(big)).toBe(true);
    expect(await store.stream('bulk/b1/missing.zip')).toBeNull();
    // Written from a stream, as the bulk ZIP is made.
    await store.put(
      'bulk/b2/label.zip',
      Readable.from(
        (function* () {
          for (let at = 0; at < big.length; at += 1024 * 1024) yield big.subarray(at, at + 1024 * 1024);
        })(),
      ),
    );
    expect((await store.get('bulk/b2/label.zip'))?.equals(big)).toBe(true);
  }, 60_000);

  it('appends packs: each lands whole where it is said to be, also when many are written at once', async () => {
    const store = await open();
    const packs = Array.from({ length: 20 }, (_, i) => Buffer.from(`%PDF-${i}-${'x'.repeat(i * 97)}`));
    const stored = await Promise.all(packs.map((data) => store.appendToPack('labels/packs', data)));
    for (const [i, { key, offset }] of stored.entries()) {
      expect(key).toMatch(/^labels\/packs\/[0-9a-f]{2}\/[0-9a-f-]{36}\.bin$/);
      expect((await store.getRange(key, offset, packs[i].length))?.equals(packs[i])).toBe(true);
    }
    // No two packs share a byte.
    const spans = stored
      .map(({ key, offset }, i) => ({ key, offset, end: offset + packs[i].length }))
      .sort((a, b) => a.key.localeCompare(b.key) || a.offset - b.offset);
    for (let i = 1; i < spans.length; i++) if (spans[i].key === spans[i - 1].key) expect(spans[i].offset).toBeGreaterThanOrEqual(spans[i - 1].end);
    await store.close();
  });

  it('refuses keys that leave its folder', async () => {
    const store = await open();
    for (const key of ['../escape.pdf', 'labels/../../x', '/etc/passwd', 'a//b', '']) {
      await expect(store.put(key, new Uint8Array(1))).rejects.toThrow('Bad file key');
      await expect(store.get(key)).rejects.toThrow('Bad file key');
    }
  });
});

it('writes a local file whole or not at all: no temp file is left beside it', async () => {
  const store = createLocalFileStore(root);
  await store.put('labels/cd/two.pdf', new TextEncoder().encode('%PDF-1'));
  expect(fs.readdirSync(path.join(root, 'labels/cd'))).toEqual(['two.pdf']);
});

it('refuses a local file whose folder cannot be made, small or large, and leaves nothing behind', async () => {
  const store = createLocalFileStore(root);
  await store.put('labels/ef', new TextEncoder().encode('a file where a folder would go'));
  await expect(store.put('labels/ef/small.pdf', new TextEncoder().encode('%PDF-1'))).rejects.toThrow(/ENOTDIR|EEXIST/);
  await expect(store.put('labels/ef/large.pdf', new Uint8Array(2 * 1024 * 1024))).rejects.toThrow(/ENOTDIR|EEXIST/);
  expect(fs.readdirSync(path.join(root, 'labels')).filter((name) => name.startsWith('ef'))).toEqual(['ef']);
});

it('appends local packs to one open file, side by side; another process, or a full file, begins a file of its own', async () => {
  const dir = fs.mkdtempSync(path.join(root, 'packs-'));
  const store = createLocalFileStore(dir, { packFileBytes: 10 });
  const a = await store.appendToPack('labels/packs', Buffer.from('%PDF-A'));
  const b = await store.appendToPack('labels/packs', Buffer.from('%PDF-BB'));
  expect([b.key, a.offset, b.offset]).toEqual([a.key, 0, 6]);
  // 13 bytes now, past the 10 a file takes: the next append begins a new file.
  const c = await store.appendToPack('labels/packs', Buffer.from('%PDF-C'));
  expect([c.key === a.key, c.offset]).toEqual([false, 0]);
  // A second store on the same folder, as a worker process beside the web one.
  const other = createLocalFileStore(dir);
  const d = await other.appendToPack('labels/packs', Buffer.from('%PDF-D'));
  expect([d.key === c.key, d.offset]).toEqual([false, 0]);
  await Promise.all([store.close(), other.close()]);
  expect(fs.readFileSync(path.join(dir, a.key), 'latin1')).toBe('%PDF-A%PDF-BB');
  expect(fs.readFileSync(path.join(dir, c.key), 'latin1')).toBe('%PDF-C');
  expect(fs.readFileSync(path.join(dir, d.key), 'latin1')).toBe('%PDF-D');
});

it('refuses a local pack whose folder cannot be made, and appends to a new file once it can', async () => {
  const dir = fs.mkdtempSync(path.join(root, 'packs-'));
  const store = createLocalFileStore(dir);
  fs.writeFileSync(path.join(dir, 'blocked'), 'a file where a folder would go');
  await expect(store.appendToPack('blocked', Buffer.from('%PDF-A'))).rejects.toThrow(/ENOTDIR|EEXIST/);
  fs.rmSync(path.join(dir, 'blocked'));
  const stored = await store.appendToPack('blocked', Buffer.from('%PDF-B'));
  expect(stored.offset).toBe(0);
  expect((await store.getRange(stored.key, 0, 6))?.toString()).toBe('%PDF-B');
  await store.close();
});

it('answers a local pack append only once its bytes are flushed to the disk, appends at once sharing flushes', async () => {
  const dir = fs.mkdtempSync(path.join(root, 'packs-'));
  const store = createLocalFileStore(dir);
  // Every FileHandle's datasync, watched: when each began and ended.
  const probe = await fs.promises.open(path.join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
  await probe.close();
  const flushes: { began: number; ended: number }[] = [];
  const spy = vi.spyOn(proto, 'datasync').mockImplementation(async () => {
    const flush = { began: performance.now(), ended: Infinity };
    flushes.push(flush);
    await new Promise((r) => setTimeout(r, 20));
    flush.ended = performance.now();
  });
  try {
    const answered: { asked: number; at: number; key: string; offset: number }[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const asked = performance.now();
        const { key, offset } = await store.appendToPack('labels/packs', Buffer.from(`%PDF-${String(i).padStart(2, '0')}`));
        answered.push({ asked, at: performance.now(), key, offset });
      }),
    );
    // Each answer waited for a flush that began after it was asked; twenty appends at once needed a few, not twenty.
    for (const a of answered) expect(flushes.some((f) => f.began >= a.asked && f.ended <= a.at)).toBe(true);
    expect(flushes.length).toBeGreaterThanOrEqual(1);
    expect(flushes.length).toBeLessThan(answered.length);
    expect(new Set(answered.map((a) => a.key)).size).toBe(1);
    expect(answered.map((a) => a.offset).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i * 7));
  } finally {
    spy.mockRestore();
    await store.close();
  }
});
