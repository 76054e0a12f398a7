import path from 'node:path';
import type { Config } from '../../config.ts';
import { createLocalFileStore, type FileStore } from './file-store.ts';

/** Generated files live in DATA_DIR/files. */
export function createFileStore(config: Config): FileStore {
  return createLocalFileStore(path.join(config.dataDir, 'files'));
}
