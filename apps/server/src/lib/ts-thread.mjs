// A pool thread whose module is TypeScript (run from source under tsx: tests, `npm run dev`, the CLIs) starts
// here; the built server's threads run their .js bundles. A thread does not take the process's `--import tsx`
// (Node 20 ignores it in a thread's execArgv), so tsx is registered in the thread itself, with source maps
// off: pdf.js loaded through tsx with them took 250 MB and 3.4 s, without them 133 MB and 1.2 s.
import { register } from 'tsx/esm/api';

register();
process.setSourceMapsEnabled(false);
await import(process.argv[2]);
