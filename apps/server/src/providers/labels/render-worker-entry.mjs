// Worker threads start from plain JavaScript: this loads the TypeScript worker through tsx,
// whether the server runs under tsx, vitest or a plain node.
import { tsImport } from 'tsx/esm/api';

await tsImport('./render-worker.ts', import.meta.url);
