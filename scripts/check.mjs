// `npm run check`: the type check and ESLint in one process, on the same TypeScript programs. The projects are built
// as `tsc -b` builds them (project references: each file is checked once; the incremental build info in
// node_modules/.cache/tsc skips what has not changed), and ESLint's type-aware rules (the floating promises) read
// their types from the programs just checked, instead of building and checking every file again. ESLint's cache
// (node_modules/.cache/eslint) skips the files unchanged since its last run; a cold run (a fresh clone, CI) lints all.
// A caveat of any type-aware lint cache: an unchanged file is not linted again when only a file it imports changes.
import path from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';
import tseslint from 'typescript-eslint';

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);

const formatHost = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => root, getNewLine: () => '\n' };
let typeErrors = 0;
const reportDiagnostic = (diagnostic) => {
  if (diagnostic.category === ts.DiagnosticCategory.Error) typeErrors += 1;
  process.stdout.write(ts.formatDiagnosticsWithColorAndContext([diagnostic], formatHost));
};

/** The solution's projects, built in order; the program of each project that had to be checked again. */
function buildProjects() {
  const host = ts.createSolutionBuilderHost(ts.sys, ts.createEmitAndSemanticDiagnosticsBuilderProgram, reportDiagnostic);
  const builder = ts.createSolutionBuilder(host, ['tsconfig.json'], {});
  const programs = new Map();
  for (let project = builder.getNextInvalidatedProject(); project; project = builder.getNextInvalidatedProject()) {
    if (project.kind === ts.InvalidatedProjectKind.Build) programs.set(project.project, project.getProgram());
    project.done();
  }
  return programs;
}

function parse(configPath) {
  return ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: reportDiagnostic });
}

const projects = new Map(); // tsconfig.json path -> its parsed config, and its program once built or asked for
const solution = parse('tsconfig.json');
for (const reference of solution.projectReferences) {
  const configPath = ts.resolveProjectReferencePath(reference);
  projects.set(configPath, { config: parse(configPath), program: undefined });
}
for (const [configPath, program] of buildProjects()) projects.get(configPath).program = program;

/** The program that holds a file: the one the build checked, or, if the build found its project up to date, a new one
 * (parsed and bound; checked only where a rule asks a type), made the first time a file of the project is linted. */
function programOf(filePath) {
  for (const project of projects.values()) {
    if (!project.config.fileNames.includes(filePath)) continue;
    const { fileNames, options, projectReferences } = project.config;
    project.program ??= ts.createProgram({ rootNames: fileNames, options, projectReferences });
    return project.program;
  }
  throw new Error(`${path.relative(root, filePath)} is in no project of tsconfig.json, so its types cannot be read`);
}

// The programs reach the parser through this wrapper, not through parserOptions: ESLint's cache key is the config
// written out as JSON, which must not change with the programs of a run.
const parser = {
  meta: { name: 'portal/parser-on-checked-programs' },
  parseForESLint: (code, options) => tseslint.parser.parseForESLint(code, { ...options, projectService: false, programs: [programOf(options.filePath)] }),
};
const eslint = new ESLint({
  cache: true,
  cacheLocation: 'node_modules/.cache/eslint/',
  cacheStrategy: 'content',
  overrideConfig: { files: ['**/*.ts', '**/*.tsx'], languageOptions: { parser } },
});
const results = await eslint.lintFiles(['.']);

const formatter = await eslint.loadFormatter('stylish');
const lintReport = await formatter.format(results);
if (lintReport) process.stdout.write(lintReport);
const lintErrors = results.reduce((sum, result) => sum + result.errorCount + result.fatalErrorCount, 0);
if (typeErrors > 0 || lintErrors > 0) {
  console.error(`check: ${typeErrors} type error(s), ${lintErrors} lint error(s)`);
  process.exit(1);
}
