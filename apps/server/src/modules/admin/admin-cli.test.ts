import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { adminCall, signUpCustomer } from '../../../test/admin-fixtures.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../../../..');

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** `node --import tsx apps/server/src/admin-cli.ts ...args` on this test's database, as `npm run admin -- ...args` runs it. */
function adminCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: t.config.dataDir, LOG_LEVEL: 'silent' };
  if (t.databaseUrl) env.DATABASE_URL = t.databaseUrl;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'apps/server/src/admin-cli.ts', ...args], { cwd: repoRoot, env, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('npm run admin', () => {
  it('grant makes a user an admin and revoke makes them a customer again, on this database, with audit rows from the command line', async () => {
    const user = await signUpCustomer(t);
    expect((await adminCall(t.app, user.headers, 'GET', '/overview')).statusCode).toBe(403);

    const grant = await adminCli('grant', `@${user.tgId.toUpperCase()}`);
    expect(grant.code, grant.stderr).toBe(0);
    expect(grant.stdout).toContain(`@${user.tgId} (Test User) is now an admin`);
    expect((await adminCall(t.app, user.headers, 'GET', '/overview')).statusCode).toBe(200);

    const revoke = await adminCli('revoke', user.tgId);
    expect(revoke.code, revoke.stderr).toBe(0);
    expect(revoke.stdout).toContain('is now a customer');
    expect((await adminCall(t.app, user.headers, 'GET', '/overview')).statusCode).toBe(403);

    const rows = await t.db.selectFrom('audit_log').selectAll().where('target_id', '=', user.userId).orderBy('created_at').execute();
    expect(rows.map((r) => [r.admin_id, r.action, JSON.parse(r.after_json!).role])).toEqual([
      [null, 'user.role', 'admin'],
      [null, 'user.role', 'customer'],
    ]);
  }, 120_000);

  it('names an unknown user and a wrong command, changing nothing', async () => {
    const unknown = await adminCli('grant', 'nobody_at_all_here');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No account has the Telegram username nobody_at_all_here');
    const usage = await adminCli('promote', 'someone');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage: npm run admin -- grant <telegram username>');
  }, 120_000);
});
