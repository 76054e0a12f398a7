// Worker threads start from plain JavaScript: this loads the TypeScript module named in
// workerData.module through tsx, whether the server runs under tsx, vitest or a plain node.
import { workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

await tsImport(workerData.module, import.meta.url);
