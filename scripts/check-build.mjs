// Before `npm start` (`server`) and `npm run worker` (`worker`): the built server (and, for the web process, the
// built web app) must be there. This never builds: building needs the devDependencies a production install leaves out.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const entry = process.argv[2];
const needed = [`apps/server/dist/${entry}.js`, ...(entry === 'server' ? ['apps/web/dist/index.html'] : [])];
const missing = needed.filter((file) => !fs.existsSync(path.join(root, file)));
if (missing.length > 0) {
  console.error(`${missing.join(' and ')} missing: build the shop first with \`npm run build\` (after \`npm ci\`).`);
  process.exit(1);
}

/** The newest modification time under `target`, 0 when it does not exist. */
function newestMtime(target) {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...fs.readdirSync(target).map((name) => newestMtime(path.join(target, name))));
}

// A checkout changed after its build still starts, on the old build: said once, as a warning.
const built = fs.statSync(path.join(root, needed[0])).mtimeMs;
if (['apps/server/src', 'packages/contract/src'].some((dir) => newestMtime(path.join(root, dir)) > built)) {
  console.warn('The source changed after the last build: run `npm run build` to start the new code.');
}
