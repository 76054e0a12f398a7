// React renders the app: no stand-in (preact/compat or another alias) may come back unnoticed. The
// web app's own build, kept in memory, must bundle react-dom 19 from its package, in the vendor chunk.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import { build, type Rolldown } from 'vite';
import { afterEach, describe, expect, it, vi } from 'vitest';

const web = path.resolve(import.meta.dirname, '..');
const requireFromWeb = createRequire(path.join(web, 'package.json'));

/** The production build, in memory (made once for the tests below). */
let built: Promise<Rolldown.OutputChunk[]> | undefined;
function buildChunks(): Promise<Rolldown.OutputChunk[]> {
  vi.stubEnv('NODE_ENV', 'production'); // vitest's 'test' would make Vite bundle React's development builds
  built ??= (build({ root: web, logLevel: 'silent', build: { write: false } }) as Promise<Rolldown.RolldownOutput>).then((output) =>
    output.output.filter((file): file is Rolldown.OutputChunk => file.type === 'chunk'),
  );
  return built;
}

describe('React, not a stand-in', () => {
  it('depends on react and react-dom 19, and no preact is installed', () => {
    const { dependencies } = JSON.parse(fs.readFileSync(path.join(web, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(dependencies.react).toMatch(/^\^19\./);
    expect(dependencies['react-dom']).toMatch(/^\^19\./);
    expect(Object.keys(dependencies).filter((name) => name.includes('preact'))).toEqual([]);
    expect(() => requireFromWeb.resolve('preact')).toThrow(/Cannot find module/);
    expect((requireFromWeb('react-dom/package.json') as { version: string }).version).toMatch(/^19\./);
  });

  afterEach(() => vi.unstubAllEnvs());

  it('builds with react-dom itself in the react vendor chunk, apart from the entry', { timeout: 180_000 }, async () => {
    const chunks = await buildChunks();
    const modules = chunks.flatMap((chunk) => chunk.moduleIds.map((id) => id.replaceAll('\\', '/')));
    expect(modules.filter((id) => /\/node_modules\/(preact|@preact)\//.test(id))).toEqual([]);
    const vendor = chunks.find((chunk) => chunk.name === 'react');
    expect(vendor?.moduleIds.map((id) => id.replaceAll('\\', '/'))).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/\/node_modules\/react-dom\/cjs\/react-dom-client\.production\.js$/),
        expect.stringMatching(/\/node_modules\/react\/cjs\/react\.production\.js$/),
      ]),
    );
    expect(vendor!.code).toContain('19.'); // react-dom checks that react has its own version
    const entry = chunks.find((chunk) => chunk.isEntry && chunk.name === 'index')!;
    expect(entry.moduleIds.filter((id) => id.includes('/node_modules/react-dom/'))).toEqual([]);
    // Nothing of React's is asked for before the first paint: the entry imports it only through the app, dynamically.
    expect(entry.imports).not.toContain(vendor!.fileName);
    const app = chunks.find((chunk) => entry.dynamicImports.includes(chunk.fileName) && chunk.facadeModuleId?.endsWith('/src/boot.tsx'));
    expect(app?.imports).toContain(vendor!.fileName);
  });
});

describe('first-load budget', () => {
  afterEach(() => vi.unstubAllEnvs());

  // What a first load downloads: the entry, the app it imports, the screen's chunks (boot.tsx asks for them), and every
  // chunk they import statically. npm run bench measures the same in a browser; the target is under 150 kB gzipped.
  it('keeps the sign-in page and the dashboard under 150 kB of JavaScript gzipped, and zod out of first loads', { timeout: 180_000 }, async () => {
    const chunks = await buildChunks();
    const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
    const screen = (file: string) => chunks.find((chunk) => chunk.facadeModuleId?.replaceAll('\\', '/').endsWith(file))!;
    const firstLoad = (...screens: string[]) => {
      const files = new Set<string>();
      const add = (chunk: Rolldown.OutputChunk) => {
        if (files.has(chunk.fileName)) return;
        files.add(chunk.fileName);
        for (const imported of chunk.imports) add(byFile.get(imported)!);
      };
      const entry = chunks.find((chunk) => chunk.isEntry && chunk.name === 'index')!;
      add(entry);
      for (const app of entry.dynamicImports) add(byFile.get(app)!); // the app (boot.tsx), imported after the first paint
      for (const file of screens) add(screen(file));
      return [...files].map((file) => byFile.get(file)!);
    };
    const firstLoadKb = (...screens: string[]) => firstLoad(...screens).reduce((sum, chunk) => sum + zlib.gzipSync(chunk.code, { level: 9 }).length, 0) / 1000;
    expect(firstLoadKb('/features/auth/sign-in-page.tsx')).toBeLessThan(150);
    expect(firstLoadKb('/components/layout.tsx', '/features/dashboard/dashboard-page.tsx')).toBeLessThan(150);
    // zod and the contract's schemas (26 kB gzipped) load with a form's first check, not with the screen.
    const zodIn = (...screens: string[]) => firstLoad(...screens).some((chunk) => chunk.moduleIds.some((id) => /[\\/]node_modules[\\/]zod[\\/]/.test(id)));
    expect(zodIn('/features/auth/sign-in-page.tsx')).toBe(false);
    expect(zodIn('/components/layout.tsx', '/features/create-order/create-order-page.tsx')).toBe(false);
    // The check finds zod where it is: the FedEx screen validates as it renders.
    expect(zodIn('/components/layout.tsx', '/features/fedex/fedex-order-page.tsx')).toBe(true);
  });
});
