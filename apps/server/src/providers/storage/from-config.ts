import path from 'node:path';
import type { Config } from '../../config.ts';
import { createLocalFileStore, type FileStore } from './file-store.ts';

/** Generated files live in the S3 bucket when S3_BUCKET is set, otherwise in DATA_DIR/files. */
export async function createFileStore(config: Config): Promise<FileStore> {
  if (config.S3_BUCKET) {
    // Loaded only when used: the AWS SDK costs a process about 25 MB.
    const { createS3FileStore } = await import('./s3-file-store.ts');
    return createS3FileStore({
      bucket: config.S3_BUCKET,
      endpoint: config.S3_ENDPOINT,
      region: config.S3_REGION,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
    });
  }
  return createLocalFileStore(path.join(config.dataDir, 'files'));
}
