// `npm run build -w apps/server`: the server as plain JavaScript in apps/server/dist, what `npm start` and
// `npm run worker` run. One flat folder: the entries (server.js, worker.js), each pool thread's module
// (render-worker.js, slip-reader-worker.js, found beside the code that starts them) and the chunks they share.
// This repository's code (@portal/contract included) is bundled; npm packages stay imports of node_modules.
// Code loaded on demand (S3, BullMQ, Telegram, ...) stays in chunks of its own, loaded only when configured.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = import.meta.dirname;
const dist = path.join(root, 'dist');

/** Bare imports (npm packages and Node's own) stay imports, except this repository's workspaces. */
const packagesExternal = {
  name: 'packages-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@portal/') ? undefined : { external: true }));
  },
};

const started = performance.now();
fs.rmSync(dist, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: {
    server: 'src/server.ts',
    worker: 'src/worker.ts',
    'render-worker': 'src/providers/labels/render-worker.ts',
    'slip-reader-worker': 'src/modules/amazon/slip-reader-worker.ts',
  },
  outdir: dist,
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  plugins: [packagesExternal],
  logLevel: 'warning',
});
console.log(`Built the server into ${path.relative(process.cwd(), dist) || '.'} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
