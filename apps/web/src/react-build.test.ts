// React renders the app: no stand-in (preact/compat or another alias) may come back unnoticed. The
// web app's own build, kept in memory, must bundle react-dom 19 from its package, in the vendor chunk.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build, type Rolldown } from 'vite';
import { afterEach, describe, expect, it, vi } from 'vitest';

const web = path.resolve(import.meta.dirname, '..');
const requireFromWeb = createRequire(path.join(web, 'package.json'));

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
    vi.stubEnv('NODE_ENV', 'production'); // vitest's 'test' would make Vite bundle React's development builds
    const output = (await build({ root: web, logLevel: 'silent', build: { write: false } })) as Rolldown.RolldownOutput;
    const chunks = output.output.filter((file): file is Rolldown.OutputChunk => file.type === 'chunk');
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
    const entry = chunks.find((chunk) => chunk.isEntry)!;
    expect(entry.moduleIds.filter((id) => id.includes('/node_modules/react-dom/'))).toEqual([]);
  });
});
