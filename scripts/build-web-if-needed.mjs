// Builds the web app when dist/ is missing or older than any source it is built from.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'apps/web/dist/index.html');
const sources = ['apps/web/src', 'apps/web/public', 'apps/web/index.html', 'apps/web/vite.config.ts', 'packages/contract/src'];

function newestMtime(target) {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...fs.readdirSync(target).map((name) => newestMtime(path.join(target, name))));
}

const built = newestMtime(dist);
const changed = Math.max(...sources.map((s) => newestMtime(path.join(root, s))));
if (!built || changed > built) {
  console.log('Building the web app...');
  execSync('npm run build -w apps/web', { cwd: root, stdio: 'inherit' });
}
