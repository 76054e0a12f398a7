import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import purgeCss from '@fullhuman/postcss-purgecss';
import type { Plugin as PostcssPlugin } from 'postcss';
import { EARLY_SCREEN_MODULES } from './src/api/early-call-paths.ts';

const COMPRESSIBLE = /\.(js|css|html|svg|json|csv|txt|map)$/;

/** Writes a .br and a .gz beside every text file of the build, once; the server sends the one the browser takes. */
function precompress(): Plugin {
  let outDir = '';
  let write = true;
  return {
    name: 'portal-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
      write = config.build.write;
    },
    closeBundle() {
      if (!write) return; // a build kept in memory (react-build.test.ts) has no files to compress
      const files = fs.readdirSync(outDir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile() && COMPRESSIBLE.test(d.name));
      for (const file of files) {
        const full = path.join(file.parentPath, file.name);
        const data = fs.readFileSync(full);
        if (data.length < 1024) continue; // not worth a round of decompression
        fs.writeFileSync(
          `${full}.br`,
          zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length } }),
        );
        fs.writeFileSync(`${full}.gz`, zlib.gzipSync(data, { level: 9 }));
      }
    },
  };
}

/**
 * Bootstrap's stylesheet keeps only the rules whose classes the app can put on the page: those
 * named in the app's source and in react-bootstrap's, and those react-bootstrap builds from a prop
 * (`variant="outline-secondary"` is `btn-outline-secondary`, `md={6}` is `col-md-6`). The app's
 * own CSS and other libraries' are left whole. Build only: the dev server serves all of Bootstrap.
 */
function purgeBootstrap(): PostcssPlugin {
  const purge = purgeCss({
    content: [
      path.join(import.meta.dirname, 'index.html'),
      path.join(import.meta.dirname, 'src/**/*.{ts,tsx}'),
      path.join(path.dirname(createRequire(import.meta.url).resolve('react-bootstrap/package.json')), 'esm/**/*.js'),
    ],
    safelist: {
      standard: [
        /^(container|btn|alert|text-bg|bg|border|text|col|offset|order|row-cols|spinner|modal|offcanvas|table|nav|tab|progress|form|input-group|list-group|accordion)-/,
        // Field errors: react-bootstrap's Feedback builds `${type}-feedback` (or -tooltip) from its props, so the
        // class is never written out; without these rules an error is plain black text beside its field.
        /^(in)?valid-(feedback|tooltip)$/,
        /^is-(in)?valid$/,
        'was-validated',
        'has-validation',
      ],
    },
  }) as PostcssPlugin;
  return {
    postcssPlugin: 'portal-purge-bootstrap',
    OnceExit(root, helpers) {
      if (/[\\/]node_modules[\\/]bootstrap[\\/]/.test(root.source?.input.file ?? '')) return purge.OnceExit!(root, helpers);
    },
  };
}

/**
 * The built page fetches its stylesheet as a preload, which does not hold back the first paint (index.html styles
 * its spinner itself); boot.tsx applies it before the first render. A render-blocking stylesheet (22 kB gzipped)
 * put the first paint after its download: FCP 1.8 s in Lighthouse's mobile run. Of low priority: a preload is of the
 * highest, and Lighthouse's simulation counts a high-priority file that came before the first paint as holding it back.
 */
function stylesheetAsPreload(): Plugin {
  return {
    name: 'portal-stylesheet-preload',
    apply: 'build',
    enforce: 'post',
    transformIndexHtml: (html) =>
      html.replace(
        /<link rel="stylesheet" crossorigin href="([^"]+)">/g,
        '<link rel="preload" as="style" fetchpriority="low" crossorigin href="$1" data-app-style>',
      ),
  };
}

/**
 * src/early-calls.ts is an entry of its own, loaded async beside the app's entry: it asks for a signed-in first load's data while
 * React's chunk is still coming (the access check, then the screen's data, waited for the whole app: LCP 3.1 s on
 * the dashboard in Lighthouse's mobile run). See ARCHITECTURE.md#early-calls.
 */
function earlyCallsScript(): Plugin {
  return {
    name: 'portal-early-calls',
    apply: 'build',
    enforce: 'post',
    transformIndexHtml(html, ctx) {
      const chunks = Object.values(ctx.bundle ?? {}).filter((c) => c.type === 'chunk');
      const chunk = chunks.find((c) => c.isEntry && c.name === 'early-calls');
      if (!chunk) return html;
      // Each early screen's chunks and what they import, less what the app's entry loads itself.
      const byFile = new Map(chunks.map((c) => [c.fileName, c]));
      const closure = (files: string[], into = new Set<string>()) => {
        for (const file of files) if (!into.has(file) && byFile.has(file)) closure(byFile.get(file)!.imports, into.add(file));
        return into;
      };
      // The app's entry loads the app (boot.tsx) with a dynamic import, after the first paint.
      const entry = closure(chunks.filter((c) => c.isEntry && c.name !== 'early-calls').flatMap((c) => [c.fileName, ...c.dynamicImports]));
      const moduleChunk = (module: string) => chunks.find((c) => c.facadeModuleId?.replaceAll('\\', '/').endsWith(`/src/${module}`))?.fileName;
      const screens = Object.fromEntries(
        Object.entries(EARLY_SCREEN_MODULES).map(([screen, modules]) => [
          screen,
          [...closure(modules.map(moduleChunk).filter((f) => f !== undefined))].filter((f) => !entry.has(f)),
        ]),
      );
      // After the app's entry (the first script stays the app's), async: it runs as soon as it has come.
      return html.replace(
        /<script type="module" crossorigin src="[^"]+"><\/script>/,
        (entry) =>
          `${entry}\n    <script type="application/json" id="screen-chunks">${JSON.stringify(screens)}</script>` +
          `\n    <script type="module" async crossorigin src="/${chunk.fileName}"></script>`,
      );
    },
  };
}

/** React, the router and TanStack Query: one vendor chunk the entry loads. */
const VENDOR = /node_modules[\\/](react|react-dom|scheduler|react-router|react-router-dom|@tanstack|clsx|js-cookie|cookie|set-cookie-parser)[\\/]/;
const SRC = path.join(import.meta.dirname, 'src');
/** The app's shared folders: what the screens (src/features/*) have in common. */
const SHARED = /[\\/]src[\\/](api|components)[\\/]/;

type Graph = { getModuleInfo(id: string): { importedIds: readonly string[] } | null };
/** Every module a first load of these (under src/) runs: they and what they import statically. */
function staticImports(graph: Graph, files: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    for (const next of graph.getModuleInfo(id)?.importedIds ?? []) visit(next);
  };
  for (const file of files) visit(path.join(SRC, file));
  return seen;
}

/** The first loads that have chunks of their own, in order: a shared module goes with the first that imports it. */
const FIRST_LOADS: [string, string[]][] = [
  ['react', ['boot.tsx']], // the app (main.tsx, the entry, imports it after the first paint)
  ['portal', EARLY_SCREEN_MODULES['/']], // the dashboard and the layout: the signed-in screens' shared parts
  ['order-form', EARLY_SCREEN_MODULES['/createorders']], // what Create Order adds (the type and address pickers)
];
/** The screens' own modules, each the chunk its route loads (early-calls.ts preloads them by name). */
const SCREENS = new Set(
  Object.values(EARLY_SCREEN_MODULES)
    .flat()
    .map((file) => path.join(SRC, file)),
);
const firstLoadsOf = new WeakMap<Graph, [string, Set<string>][]>();

/**
 * The chunk of a module of the shared folders, read from the module graph, not from file names (a file renamed or
 * added lands where its importers put it). What the app's entry imports goes in the vendor chunk: the entry loads it
 * anyway, and the groups import it (it would otherwise be a chunk of its own that the first script waits for). What
 * the dashboard's and Create Order's first loads import is one chunk each: over HTTP/1.1 each chunk of a first load
 * costs a round trip of its own on one of six connections. Any other shared module is split as its importers need it.
 */
function sharedChunk(id: string, graph: Graph): string | null {
  if (!SHARED.test(id) || SCREENS.has(id)) return null;
  let firstLoads = firstLoadsOf.get(graph);
  if (!firstLoads) firstLoadsOf.set(graph, (firstLoads = FIRST_LOADS.map(([name, files]) => [name, staticImports(graph, files)])));
  return firstLoads.find(([, modules]) => modules.has(id))?.[0] ?? null;
}
/** The group of a first load's chunk: its shared modules, and the libraries' modules `also` names. */
const firstLoadGroup = (name: string, priority: number, also?: RegExp) => ({
  name: (id: string, graph: Graph) => (also?.test(id) || sharedChunk(id, graph) === name ? name : null),
  priority,
});

export default defineConfig(({ command }) => ({
  // React 19 renders the app, with Fast Refresh in the dev server.
  plugins: [react(), stylesheetAsPreload(), earlyCallsScript(), precompress()],
  css: { postcss: { plugins: command === 'build' ? [purgeBootstrap()] : [] } },
  server: { port: 5173, strictPort: true },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The transliteration tables behind "Prints as" (any-ascii, 547 kB, 216 kB gzipped) are the one large chunk, loaded
    // only once a name or address holds a character outside printable ASCII.
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      input: { index: path.join(import.meta.dirname, 'index.html'), 'early-calls': path.join(import.meta.dirname, 'src/early-calls.ts') },
      output: {
        // See ARCHITECTURE.md#chunk-groups.
        codeSplitting: {
          groups: [
            // Vite's preload helper, which the app's entry needs for its one import (boot.tsx): alone, so the entry does
            // not import React's chunk (where it would land) and ask for it before the first paint.
            { name: 'preload-helper', test: /vite[\\/]preload-helper/, priority: 30 },
            firstLoadGroup('react', 20, VENDOR),
            // The first screens' react-bootstrap parts (and what they import), one chunk rather than seven: over
            // HTTP/1.1 each chunk of a first load costs a round trip of its own on one of six connections.
            {
              name: 'ui',
              test: /node_modules[\\/]react-bootstrap[\\/]esm[\\/](Alert|Button|Card|Form|InputGroup|TransitionWrapper|divWithClassName)\.js$/,
              priority: 10,
            },
            // The signed-in screens' own (the layout's menu, the dashboard's tables and modals).
            {
              name: 'portal-ui',
              test: /node_modules[\\/]react-bootstrap[\\/]esm[\\/](Offcanvas|Modal|Row|Spinner|Table|Badge)\.js$/,
              priority: 5,
            },
            // Kept in chunks of their own (react-hook-form; zod with the contract's schemas), so the order forms' group
            // below, which imports them, leaves them where the sign-in page (react-hook-form alone) finds them.
            { name: 'react-hook-form', test: /node_modules[\\/]react-hook-form[\\/]/, priority: 8 },
            { name: 'schemas', test: /(node_modules[\\/]zod[\\/]|packages[\\/]contract[\\/]src[\\/]common\.ts$)/, priority: 8 },
            // The signed-in screens' shared parts (formats, the confirm modal, list helpers), and what Create Order adds
            // (its tabs, the type and address pickers).
            firstLoadGroup('portal', 5),
            firstLoadGroup('order-form', 5, /node_modules[\\/]react-bootstrap[\\/]esm[\\/](Nav|Tabs|Tab)\.js$/),
          ],
        },
      },
    },
  },
}));
