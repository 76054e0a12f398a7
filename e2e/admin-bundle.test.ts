import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

// What a customer downloads: index.html's entry script, the chunks it preloads, and every chunk
// those import statically. The operator console must be in none of them (it is fetched only
// when an admin opens /admin). Reads the built app: run `npm run build` first.

const dist = path.resolve(import.meta.dirname, '../apps/web/dist');
const assets = path.join(dist, 'assets');

/** Text found only in the console's pages, and in the chart library it loads. */
const CONSOLE_MARKERS = ['Label types and prices', 'FedEx hand-made queue is empty', 'Audit log pages', 'Credit or debit', 'Daily sales and deposits'];
const CHART_MARKERS = ['u-legend', 'u-cursor-x'];

const read = (file: string) => fs.readFileSync(path.join(assets, file), 'utf8');

function builtIndex(): string {
  const file = path.join(dist, 'index.html');
  if (!fs.existsSync(file)) throw new Error('apps/web/dist/index.html is missing: run `npm run build` first');
  return fs.readFileSync(file, 'utf8');
}

/** The chunk files named by index.html's entry script and modulepreload links. */
function htmlChunks(html: string): string[] {
  const refs = [
    ...html.matchAll(/<script[^>]+type="module"[^>]+src="\/assets\/([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/assets\/([^"]+\.js)"/g),
  ];
  return refs.map((m) => m[1]!);
}

/** Chunks a chunk imports statically (`import … from "./x.js"`, `import "./x.js"`, `export … from "./x.js"`); dynamic import("./x.js") is left out. */
const staticImports = (code: string): string[] =>
  [...code.matchAll(/(?:\bimport|\bexport)\s*(?:[^'"`()]*?\bfrom\s*)?["'`]\.\/([\w.-]+\.js)["'`]/g)].map((m) => m[1]!);

/** The app the entry imports once the page is painted (main.tsx imports boot.tsx, and nothing else, dynamically). */
const appChunks = (entry: string): string[] => [...read(entry).matchAll(/\bimport\(\s*["'`]\.\/([\w.-]+\.js)["'`]\s*\)/g)].map((m) => m[1]!);

/** The entry, the app it imports, and everything they load before any other dynamic import runs. */
function customerChunks(): string[] {
  const seen = new Set<string>();
  const html = htmlChunks(builtIndex());
  const queue = [...html, ...html.flatMap(appChunks)];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    queue.push(...staticImports(read(file)));
  }
  return [...seen];
}

const jsChunks = () => fs.readdirSync(assets).filter((f) => f.endsWith('.js'));

describe('the customer bundle leaves the operator console out', () => {
  it('has none of the console in the entry script, its preloads or their static imports', () => {
    const chunks = customerChunks();
    expect(chunks.length).toBeGreaterThan(0);
    for (const file of chunks) {
      const code = read(file);
      for (const marker of [...CONSOLE_MARKERS, ...CHART_MARKERS]) expect(code.includes(marker), `${marker} in customer chunk ${file}`).toBe(false);
    }
    const bytes = chunks.reduce((sum, f) => sum + fs.statSync(path.join(assets, f)).size, 0);
    const gzipped = chunks.reduce((sum, f) => sum + gzipSync(fs.readFileSync(path.join(assets, f))).length, 0);
    console.log(`customer JS: ${chunks.join(', ')}: ${bytes} bytes, ${gzipped} gzipped`);
  });

  it('puts the console in a chunk of its own that the app only imports dynamically, and the chart library in another', () => {
    const customer = new Set(customerChunks());
    const consoleChunks = jsChunks().filter((f) => CONSOLE_MARKERS.every((m) => read(f).includes(m)));
    expect(consoleChunks).toHaveLength(1);
    const [consoleChunk] = consoleChunks as [string];
    expect(customer.has(consoleChunk)).toBe(false);
    // The app (the router) names it only inside a dynamic import (import("./admin-console-….js") or Vite's preload map).
    const [app] = appChunks(htmlChunks(builtIndex())[0]!);
    expect(read(app!)).toContain(consoleChunk);
    expect(staticImports(read(app!))).not.toContain(consoleChunk);

    const chartChunks = jsChunks().filter((f) => CHART_MARKERS.every((m) => read(f).includes(m)));
    expect(chartChunks).toHaveLength(1);
    expect(customer.has(chartChunks[0]!)).toBe(false);
    expect(chartChunks[0]).not.toBe(consoleChunk);
    for (const file of [consoleChunk, chartChunks[0]!]) {
      const size = fs.statSync(path.join(assets, file)).size;
      console.log(`${file}: ${size} bytes, ${gzipSync(fs.readFileSync(path.join(assets, file))).length} gzipped`);
    }
  });
});
