// The Containerfile, read (README, "Deploy"). Building it here needs podman, a Debian base made with mmdebstrap and the
// whole build (npm ci twice) inside it: more than the minutes CI has left, so CI checks the instructions only; the
// build was measured by hand (see the report of issue 52).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutRoot } from './built-tree.ts';
import { BUILT_NODE_FLAGS } from './processes.ts';

const containerfile = fs.readFileSync(path.join(checkoutRoot, 'Containerfile'), 'utf8');
/** The instructions, continuation lines joined, comments left out. */
const instructions = containerfile
  .replace(/\\\n\s*/g, '')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
/** The stages: each FROM and the instructions after it (the ARG before the first FROM left out). */
const stages = instructions.reduce<string[][]>((all, line) => (line.startsWith('FROM ') ? [...all, [line]] : (all.at(-1)?.push(line), all)), []);
const runStage = stages.at(-1)!;
const lastOf = (stage: string[], instruction: string) => [...stage].reverse().find((line) => line.startsWith(`${instruction} `));

describe('the Containerfile', () => {
  it('builds on ARG BASE (node:24-bookworm-slim) in stages: the build with dev dependencies, the run with npm ci --omit=dev only', () => {
    expect(instructions[0]).toBe('ARG BASE=node:24-bookworm-slim');
    expect(stages.map((stage) => stage[0])).toEqual(['FROM ${BASE} AS build', 'FROM ${BASE} AS deps', 'FROM ${BASE}']);
    expect(stages[0]).toContain('RUN npm ci --no-audit --no-fund');
    expect(stages[0]).toContain('RUN npm run build');
    expect(stages[1]!.some((line) => /^RUN npm ci --omit=dev /.test(line))).toBe(true);
    // The image takes node_modules from the production install, and from the build only what it built.
    const copies = runStage.filter((line) => line.startsWith('COPY '));
    expect(copies).toContain('COPY --from=deps /app /app');
    expect(copies.filter((line) => line.startsWith('COPY --from=build')).map((line) => line.split(' ')[2])).toEqual([
      '/app/apps/server/dist',
      '/app/apps/web/dist',
      '/app/packages/contract/package.json',
    ]);
    expect(runStage.some((line) => line.startsWith('RUN npm'))).toBe(false);
  });

  it('runs as a user that is not root, writing only DATA_DIR (a volume), stopped by SIGTERM, healthy when /readyz is', () => {
    expect(lastOf(runStage, 'USER')).toMatch(/^USER [1-9]\d*:[1-9]\d*$/);
    expect(lastOf(runStage, 'ENV')).toContain('DATA_DIR=/data');
    expect(lastOf(runStage, 'VOLUME')).toBe('VOLUME /data');
    expect(lastOf(runStage, 'STOPSIGNAL')).toBe('STOPSIGNAL SIGTERM');
    expect(lastOf(runStage, 'HEALTHCHECK')).toMatch(/^HEALTHCHECK .*CMD \[.*\/readyz.*\]$/);
    expect(lastOf(runStage, 'ENTRYPOINT')).toBe(`ENTRYPOINT ${JSON.stringify(['node', ...BUILT_NODE_FLAGS]).replaceAll(',', ', ')}`);
    expect(lastOf(runStage, 'CMD')).toBe('CMD ["apps/server/dist/server.js"]');
  });

  it('is built from the sources alone: node_modules, builds, data and .env stay out of the context', () => {
    for (const ignore of ['.containerignore', '.dockerignore']) {
      const lines = fs.readFileSync(path.join(checkoutRoot, ignore), 'utf8').split('\n');
      for (const entry of ['.git', '**/node_modules', '**/dist', 'data', '.env']) expect([ignore, lines]).toEqual([ignore, expect.arrayContaining([entry])]);
    }
  });
});
