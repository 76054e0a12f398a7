import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../src/db/database.ts';
import { readLabel } from '../src/modules/orders/label-files.ts';
import { createLocalFileStore } from '../src/providers/storage/file-store.ts';
import { startTestApp, testDbKind, type TestApp } from './harness.ts';
import { orderPayload } from './order-fixtures.ts';
import { fundedCustomer } from './customers.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

/** `npm run backup|restore -- <file>` as a separate process on DATA_DIR. */
function cli(command: 'backup' | 'restore', dataDir: string, file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'apps/server/src/backup-cli.ts', command, file],
      { cwd: repoRoot, env, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let t: TestApp;
let scratch: string;
beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-backup-test-'));
  if (testDbKind === 'sqlite') t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe.runIf(testDbKind === 'sqlite')('npm run backup and npm run restore', () => {
  it('copies the shop while orders are written; the copy keeps the ledger invariant and every completed label', async () => {
    const users = await Promise.all([1, 2, 3].map(() => fundedCustomer(t.app, 100_000, t.db)));
    let writing = true;
    let written = 0;
    const writers = users.map(async (user) => {
      while (writing) {
        const res = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', headers: user.headers, payload: orderPayload('priority') });
        expect(res.statusCode, res.body).toBe(200);
        written++;
      }
    });
    await expect.poll(() => written, { timeout: 30_000, message: 'orders written before the backup' }).toBeGreaterThanOrEqual(10);
    const archive = path.join(scratch, 'shop.tar');
    const backup = await cli('backup', t.config.dataDir, archive);
    const writtenAtBackup = written;
    writing = false;
    await Promise.all(writers);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain(`to ${archive}`);

    const restoredDir = path.join(scratch, 'restored');
    const restore = await cli('restore', restoredDir, archive);
    expect(restore.code, restore.stderr).toBe(0);
    const restored = createDatabase({ sqliteFile: path.join(restoredDir, 'portal.sqlite') });
    try {
      const balances = await restored.selectFrom('users').select(['id', 'balance_cents']).execute();
      for (const user of balances) {
        const { sum } = await restored
          .selectFrom('ledger')
          .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_cents'), eb.lit(0)).as('sum'))
          .where('user_id', '=', user.id)
          .executeTakeFirstOrThrow();
        expect([user.id, Number(sum)]).toEqual([user.id, Number(user.balance_cents)]);
      }
      const completed = await restored.selectFrom('orders').select(['id', 'pdf_key']).where('status', '=', 'completed').execute();
      expect(completed.length).toBeGreaterThanOrEqual(10);
      expect(completed.length).toBeLessThanOrEqual(writtenAtBackup + users.length);
      const restoredFiles = createLocalFileStore(path.join(restoredDir, 'files'));
      for (const order of completed) expect((await readLabel(restoredFiles, order.pdf_key!))?.subarray(0, 5).toString(), order.id).toBe('%PDF-');
      // The keys come along: tokens signed before the backup still sign in.
      expect(fs.readFileSync(path.join(restoredDir, 'jwt-secret'), 'utf8')).toBe(fs.readFileSync(path.join(t.config.dataDir, 'jwt-secret'), 'utf8'));
    } finally {
      await restored.destroy();
    }

    // A restore never writes over a shop.
    const again = await cli('restore', restoredDir, archive);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('is not empty: restore into an empty (or new) directory');
  }, 120_000);
});
