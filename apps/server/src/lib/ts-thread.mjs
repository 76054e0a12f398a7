// A pool thread whose module is TypeScript (run from source under tsx: tests, `npm run dev`, the CLIs) starts
// here; the built server's threads run their .js bundles. A thread does not take the process's `--import tsx`
// (Node 20 ignores it in a thread's execArgv), so tsx is registered in the thread itself, with source maps off
// (pdf.js through tsx with them: 250 MB and 3.4 s). The pool's `preload` packages are imported first, natively:
// through tsx's loader pdf.js cost the slip reader's thread about 40 MB and 0.7 s more.
// argv: the module's URL, then the packages to preload.
const [module, ...preload] = process.argv.slice(2);
for (const specifier of preload) await import(specifier);
const { register } = await import('tsx/esm/api');
register();
process.setSourceMapsEnabled(false);
await import(module);
