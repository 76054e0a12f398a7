import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

// Every confirmation is the one ConfirmModal: the browser's own dialog looks like another app's and cannot be styled.
it('no screen asks with window.confirm', () => {
  const root = path.join(import.meta.dirname, '..');
  const sources = fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.test.ts'));
  expect(sources.length).toBeGreaterThan(50);
  expect(sources.filter((file) => /\b(window\.)?confirm\(/.test(fs.readFileSync(path.join(root, file), 'utf8')))).toEqual([]);
});
