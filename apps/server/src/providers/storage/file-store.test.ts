import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createLocalFileStore } from './file-store.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'file-store-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const store = createLocalFileStore(root);

it('keeps, reads and deletes files under nested keys', async () => {
  await store.put('labels/ab/one.pdf', new TextEncoder().encode('%PDF-1'));
  expect((await store.get('labels/ab/one.pdf'))?.toString()).toBe('%PDF-1');
  await store.put('labels/ab/one.pdf', new TextEncoder().encode('%PDF-2'));
  expect((await store.get('labels/ab/one.pdf'))?.toString()).toBe('%PDF-2');
  expect(fs.readdirSync(path.join(root, 'labels/ab'))).toEqual(['one.pdf']);
  await store.delete('labels/ab/one.pdf');
  expect(await store.get('labels/ab/one.pdf')).toBeNull();
});

it('refuses keys that leave its directory', async () => {
  for (const key of ['../escape.pdf', 'labels/../../x', '/etc/passwd', 'a//b', '']) {
    await expect(store.put(key, new Uint8Array(1))).rejects.toThrow('Bad file key');
  }
});
