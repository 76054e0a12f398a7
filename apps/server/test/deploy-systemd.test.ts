// The systemd units of deploy/systemd (README, "Deploy"): valid for systemd itself (`systemd-analyze verify`, which
// also checks that the command exists), and running what `npm start` and `npm run worker` run, hardened, with a stop
// timeout longer than the process's own graceful shutdown.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkoutRoot } from './built-tree.ts';
import { debianCommand } from './debian-tools.ts';
import { BUILT_NODE_FLAGS } from './processes.ts';

const UNITS = { server: 'label-portal-web.service', worker: 'label-portal-worker.service' } as const;
const unitDir = path.join(checkoutRoot, 'deploy/systemd');
const NODE = '/usr/bin/node';

/** The settings of a unit file's [Service] section (a key set twice: its values in order). */
function serviceSettings(text: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let section = '';
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[')) section = line;
    else if (section === '[Service]') {
      const [key, ...value] = line.split('=');
      settings.set(key!, [...(settings.get(key!) ?? []), value.join('=')]);
    }
  }
  return settings;
}

/** The grace period of an entry's graceful shutdown, as its source gives it to handleProcessEnd (`graceMs: 10_000`). */
function graceSeconds(entry: 'server' | 'worker'): number {
  const source = fs.readFileSync(path.join(checkoutRoot, `apps/server/src/${entry}.ts`), 'utf8');
  const ms = /graceMs: ([\d_]+)/.exec(source)?.[1];
  if (!ms) throw new Error(`no graceMs in src/${entry}.ts`);
  return Number(ms.replaceAll('_', '')) / 1000;
}

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the systemd units', () => {
  const analyze = debianCommand('systemd-analyze', 'systemd');
  if ('skip' in analyze) console.log(`deploy-systemd: systemd-analyze verify skipped: ${analyze.skip}`);

  it.skipIf('skip' in analyze)('pass systemd-analyze verify, with no warning', () => {
    let dir = unitDir;
    if (!fs.existsSync(NODE)) {
      // verify checks that ExecStart's command exists: on a machine whose node is elsewhere, the units point at this one.
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-units-'));
      temps.push(dir);
      for (const unit of Object.values(UNITS))
        fs.writeFileSync(
          path.join(dir, unit),
          fs.readFileSync(path.join(unitDir, unit), 'utf8').replaceAll(`ExecStart=${NODE} `, `ExecStart=${process.execPath} `),
        );
    }
    const result = spawnSync((analyze as { path: string }).path, ['verify', ...Object.values(UNITS).map((unit) => path.join(dir, unit))], {
      encoding: 'utf8',
    });
    // Unknown keys and bad values are only warnings (exit 0): any line on stderr fails the test.
    expect({ status: result.status, stderr: result.stderr.trim(), stdout: result.stdout.trim() }).toEqual({ status: 0, stderr: '', stdout: '' });
  });

  for (const [entry, unit] of Object.entries(UNITS) as ['server' | 'worker', string][]) {
    it(`${unit} runs dist/${entry}.js as npm's script does, restarted on failure, read-only but DATA_DIR, stopped within its grace`, () => {
      const settings = serviceSettings(fs.readFileSync(path.join(unitDir, unit), 'utf8'));
      const one = (key: string) => {
        const values = settings.get(key);
        expect(values, key).toHaveLength(1);
        return values![0]!;
      };
      // The command of `npm start` / `npm run worker` (scripts/supervise.mjs) without the supervisor.
      expect(one('ExecStart')).toBe([NODE, ...BUILT_NODE_FLAGS, `apps/server/dist/${entry}.js`].join(' '));
      const supervisor = fs.readFileSync(path.join(checkoutRoot, 'scripts/supervise.mjs'), 'utf8');
      expect(supervisor).toContain(`const NODE_FLAGS = ${JSON.stringify(BUILT_NODE_FLAGS).replaceAll('"', "'")};`);
      expect(one('WorkingDirectory')).toBe('/srv/label-portal');

      expect(one('Restart')).toBe('on-failure');
      expect(one('RestartPreventExitStatus')).toBe('78');
      expect(one('User')).not.toMatch(/^(root|0)?$/);
      expect(one('EnvironmentFile')).toMatch(/^\//);
      expect(one('ProtectSystem')).toBe('strict');
      const dataDir = one('Environment').replace(/^DATA_DIR=/, '');
      expect(dataDir).toMatch(/^\/var\/lib\//);
      expect(one('ReadWritePaths').split(/\s+/)).toEqual([dataDir]);
      expect(`/var/lib/${one('StateDirectory')}`).toBe(dataDir);

      expect(one('KillSignal')).toBe('SIGTERM');
      expect(Number(one('TimeoutStopSec'))).toBeGreaterThan(graceSeconds(entry));
    });
  }
});
