// Lint runs in `npm test`, after `prettier --check` (the layout is Prettier's: `npm run format`). Type errors are tsc's job; this guards the import boundaries of the design,
// (type-aware) that no promise is left floating or handed to a caller that ignores it, and the rules of hooks in the web app.
import fs from 'node:fs';
import path from 'node:path';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const folders = (dir) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
const webFeatures = folders('apps/web/src/features');
const serverModules = folders('apps/server/src/modules');

const sharedZones = [
  // The web's features do not import each other: shared pieces live in components/ and api/.
  ...webFeatures.map((feature) => ({
    target: `./apps/web/src/features/${feature}`,
    from: webFeatures.filter((other) => other !== feature).map((other) => `./apps/web/src/features/${other}`),
    message: 'A feature does not import another feature; move what both need to components/ or api/.',
  })),
  // The operator console's calls are its own: anything else importing them would pull them into the customers' bundle.
  {
    target: [
      './apps/web/src/api',
      './apps/web/src/components',
      ...webFeatures.filter((feature) => feature !== 'admin').map((feature) => `./apps/web/src/features/${feature}`),
    ],
    from: './apps/web/src/api/admin.ts',
    message: "Only the operator console (features/admin) imports api/admin.ts, so the customers' bundle leaves it out.",
  },
];
// A server module reaches another module only through its service (tests and their fixtures may reach further).
const moduleZones = [
  ...serverModules.flatMap((module) =>
    serverModules
      .filter((other) => other !== module)
      .map((other) => ({
        target: `./apps/server/src/modules/${module}`,
        from: `./apps/server/src/modules/${other}`,
        except: ['service.ts'],
        message: 'Another module is reached only through its service.ts.',
      })),
  ),
];
const zoneRules = [
  // Providers and the queue are the outside world and the engine: they know no domain module.
  {
    target: ['./apps/server/src/providers', './apps/server/src/queue', './apps/server/src/lib', './apps/server/src/db'],
    from: './apps/server/src/modules',
    message: 'Providers, the queue, lib and db do not import modules.',
  },
  // The contract is shared by both apps and imports neither.
  { target: './packages/contract', from: ['./apps'], message: 'The contract imports nothing of the apps.' },
  { target: './apps/web', from: ['./apps/server'], message: 'The web app talks to the server through the contract only.' },
  { target: './apps/server', from: ['./apps/web'], message: 'The server does not import the web app.' },
];
// Test helpers (fixtures, fakes, generated clients) live in apps/server/test; code that ships never imports them.
const shippedZones = [{ target: './apps/server/src', from: './apps/server/test', message: 'Code that ships does not import test helpers (apps/server/test).' }];
const TESTS = ['**/*.test.ts', '**/*-fixtures.ts'];

const root = import.meta.dirname;
const inside = (file, dir) => file === dir || file.startsWith(`${dir}/`);
const strip = (dir) => dir.replace(/^\.\//, '');

/** Import boundaries: a file in a zone's target may not import from its `from` folders (except the listed files). */
const boundaries = {
  meta: { type: 'problem', schema: [{ type: 'array' }] },
  create(context) {
    const file = path.relative(root, context.filename);
    const zones = context.options[0].filter((zone) => [zone.target].flat().some((dir) => inside(file, strip(dir))));
    if (zones.length === 0) return {};
    const check = (source) => {
      if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const target = path.relative(root, path.resolve(path.dirname(context.filename), source.value));
      for (const zone of zones) {
        for (const from of [zone.from].flat().map(strip)) {
          if (!inside(target, from)) continue;
          if ((zone.except ?? []).some((allowed) => target === path.join(from, allowed))) continue;
          context.report({ node: source, message: `Unexpected import of ${source.value}: ${zone.message}` });
        }
      }
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
    };
  },
};

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', '**/*.mjs'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      ecmaVersion: 'latest',
      sourceType: 'module',
      // Type-aware rules read each file's types through its project of tsconfig.json (the root's files, vitest.config.ts
      // and scripts/*.ts, are e2e's). `npm run check` hands them the programs its type check has just built instead.
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { portal: { rules: { boundaries } }, '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'portal/boundaries': ['error', [...sharedZones, ...moduleZones, ...zoneRules, ...shippedZones]],
      'no-debugger': 'error',
      // A promise nobody awaits or catches loses its error, and an unhandled rejection ends the process.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  { files: TESTS, rules: { 'portal/boundaries': ['error', [...sharedZones, ...zoneRules]] } },
  {
    // Hooks are called unconditionally and in the same order, and an effect or memo names every value it reads.
    files: ['apps/web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
);
